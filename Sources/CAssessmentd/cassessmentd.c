#define _GNU_SOURCE
#include "cassessmentd.h"
#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/fanotify.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <unistd.h>

int cad_peer_credentials(int fd, int *pid, unsigned int *uid, unsigned int *gid) {
    struct ucred cred;
    socklen_t length = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) != 0) return -1;
    if (length != sizeof cred) { errno = EINVAL; return -1; }
    *pid = cred.pid;
    *uid = cred.uid;
    *gid = cred.gid;
    return 0;
}

int cad_accept(int fd) {
    return accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
}

int cad_stop_signals(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    if (sigprocmask(SIG_BLOCK, &set, NULL) != 0) return -1;
    return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

int cad_read_signal(int fd) {
    struct signalfd_siginfo info;
    ssize_t n = read(fd, &info, sizeof info);
    return n == (ssize_t)sizeof info ? (int)info.ssi_signo : 0;
}

int cad_spawn_close_from(void *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np((posix_spawn_file_actions_t *)actions, lowest);
}

int cad_pipe(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

int cad_proc_events_open(void) {
    int fd = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_CONNECTOR);
    if (fd < 0) return -1;
    int size = 8 << 20;
    // As root the buffer may exceed rmem_max; without that, the default one is kept.
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) != 0)
        (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    struct sockaddr_nl address;
    memset(&address, 0, sizeof address);
    address.nl_family = AF_NETLINK;
    address.nl_groups = CN_IDX_PROC;
    address.nl_pid = 0;
    if (bind(fd, (struct sockaddr *)&address, sizeof address) != 0) goto fail;
    // nlmsghdr, then cn_msg, then the operation, as the connector reads them.
    char request[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(enum proc_cn_mcast_op))] __attribute__((aligned(NLMSG_ALIGNTO)));
    memset(request, 0, sizeof request);
    struct nlmsghdr *header = (struct nlmsghdr *)request;
    header->nlmsg_len = sizeof request;
    header->nlmsg_type = NLMSG_DONE;
    struct cn_msg *message = NLMSG_DATA(header);
    message->id.idx = CN_IDX_PROC;
    message->id.val = CN_VAL_PROC;
    message->len = sizeof(enum proc_cn_mcast_op);
    enum proc_cn_mcast_op op = PROC_CN_MCAST_LISTEN;
    memcpy(message->data, &op, sizeof op);
    if (send(fd, request, sizeof request, 0) != (ssize_t)sizeof request) goto fail;
    return fd;
fail:;
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
}

int cad_proc_events_read(int fd, cad_proc_event *events, int max) {
    int count = 0;
    char buffer[16384] __attribute__((aligned(NLMSG_ALIGNTO)));
    while (count < max) {
        ssize_t n = recv(fd, buffer, sizeof buffer, 0);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) break;
            return -1;
        }
        for (struct nlmsghdr *header = (struct nlmsghdr *)buffer; NLMSG_OK(header, (size_t)n) && count < max;
             header = NLMSG_NEXT(header, n)) {
            if (header->nlmsg_type == NLMSG_ERROR || header->nlmsg_type == NLMSG_NOOP) continue;
            if (header->nlmsg_len < NLMSG_LENGTH(sizeof(struct cn_msg) + sizeof(struct proc_event))) continue;
            struct cn_msg *message = NLMSG_DATA(header);
            if (message->id.idx != CN_IDX_PROC || message->id.val != CN_VAL_PROC) continue;
            struct proc_event *event = (struct proc_event *)message->data;
            cad_proc_event *out = &events[count];
            memset(out, 0, sizeof *out);
            switch (event->what) {
            case PROC_EVENT_FORK:
                // A new thread of a process is no new process.
                if (event->event_data.fork.child_pid != event->event_data.fork.child_tgid) continue;
                out->what = 1;
                out->pid = event->event_data.fork.child_tgid;
                out->parent = event->event_data.fork.parent_tgid;
                break;
            case PROC_EVENT_EXEC:
                out->what = 2;
                out->pid = event->event_data.exec.process_tgid;
                break;
            case PROC_EVENT_UID:
                out->what = 3;
                out->pid = event->event_data.id.process_tgid;
                out->ruid = event->event_data.id.r.ruid;
                out->euid = event->event_data.id.e.euid;
                break;
            case PROC_EVENT_COMM:
                if (event->event_data.comm.process_pid != event->event_data.comm.process_tgid) continue;
                out->what = 5;
                out->pid = event->event_data.comm.process_tgid;
                memcpy(out->name, event->event_data.comm.comm, sizeof event->event_data.comm.comm);
                out->name[sizeof out->name - 1] = 0;
                break;
            case PROC_EVENT_EXIT:
                // Only the whole process's end (its last thread).
                if (event->event_data.exit.process_pid != event->event_data.exit.process_tgid) continue;
                out->what = 4;
                out->pid = event->event_data.exit.process_tgid;
                break;
            default:
                continue;
            }
            count++;
        }
    }
    return count;
}

int cad_exec_files_open(void) {
    int fd = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK, O_RDONLY | O_LARGEFILE | O_CLOEXEC);
    if (fd < 0) return -1;
    // Every filesystem mounted now, once each (a bind mount of one, in any namespace, is of it).
    FILE *mounts = fopen("/proc/self/mountinfo", "re");
    if (!mounts) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    dev_t seen[256];
    int count = 0, marked = 0;
    char line[4096];
    while (fgets(line, sizeof line, mounts) && count < 256) {
        // id parent major:minor root mountpoint ...: the fifth field.
        char *field = line;
        for (int i = 0; i < 4 && field; i++) {
            field = strchr(field, ' ');
            if (field) field++;
        }
        if (!field) continue;
        char *end = strchr(field, ' ');
        if (!end) continue;
        *end = 0;
        if (strchr(field, '\\')) continue;  // an escaped name (a space in it): left out
        struct stat st;
        if (stat(field, &st) != 0) continue;
        int known = 0;
        for (int i = 0; i < count; i++) if (seen[i] == st.st_dev) known = 1;
        if (known) continue;
        seen[count++] = st.st_dev;
        if (fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN_EXEC, AT_FDCWD, field) == 0) marked++;
    }
    fclose(mounts);
    if (marked == 0) {
        close(fd);
        errno = ENOTSUP;
        return -1;
    }
    return fd;
}

int cad_exec_files_read(int fd, cad_exec_file *files, int max) {
    int count = 0;
    char buffer[4096] __attribute__((aligned(__alignof__(struct fanotify_event_metadata))));
    while (count < max) {
        ssize_t n = read(fd, buffer, sizeof buffer);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) break;
            return count > 0 ? count : -1;
        }
        if (n == 0) break;
        for (struct fanotify_event_metadata *event = (struct fanotify_event_metadata *)buffer; FAN_EVENT_OK(event, n);
             event = FAN_EVENT_NEXT(event, n)) {
            if (event->fd < 0) continue;
            if (count < max && event->vers == FANOTIFY_METADATA_VERSION && (event->mask & FAN_OPEN_EXEC)) {
                char link[64];
                snprintf(link, sizeof link, "/proc/self/fd/%d", event->fd);
                ssize_t length = readlink(link, files[count].path, sizeof files[count].path - 1);
                if (length > 0) {
                    files[count].path[length] = 0;
                    files[count].pid = event->pid;
                    count++;
                }
            }
            close(event->fd);
        }
    }
    return count;
}
