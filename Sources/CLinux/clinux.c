#include "clinux.h"
#ifdef __linux__
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <link.h>
#include <stddef.h>
#include <sys/auxv.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <unistd.h>
#include <spawn.h>

int carrel_set_dumpable(int dumpable) { return prctl(PR_SET_DUMPABLE, dumpable, 0, 0, 0); }
int carrel_get_dumpable(void) { return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0); }
int carrel_die_with_parent(void) { return prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0); }
unsigned long carrel_loader_base(void) { return getauxval(AT_BASE); }
int carrel_pipe_cloexec_nonblocking(int fds[2]) { return pipe2(fds, O_CLOEXEC | O_NONBLOCK); }
int carrel_spawn_actions_close_from(void *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np((posix_spawn_file_actions_t *)actions, lowest);
}

static int carrel_link_tally_one(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct carrel_link_tally *tally = (struct carrel_link_tally *)data;
    tally->listed += 1;
    tally->adds = info->dlpi_adds;
    tally->subs = info->dlpi_subs;
    return 0;
}

struct carrel_link_tally carrel_link_tally(void) {
    struct carrel_link_tally tally = {0, 0, 0};
    dl_iterate_phdr(carrel_link_tally_one, &tally);
    return tally;
}
int carrel_take_back_group(unsigned int gid) {
    return setresgid(gid, gid, (gid_t)-1);
}
int carrel_peer_uid(int fd, unsigned int *uid) {
    struct ucred cred;
    socklen_t length = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) != 0 || length != sizeof cred) return -1;
    *uid = cred.uid;
    return 0;
}
int carrel_peer_pid(int fd, int *pid) {
    struct ucred cred;
    socklen_t length = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) != 0 || length != sizeof cred) return -1;
    *pid = cred.pid;
    return 0;
}
#else
int carrel_set_dumpable(int dumpable) { (void)dumpable; return 0; }
int carrel_get_dumpable(void) { return 1; }
int carrel_peer_uid(int fd, unsigned int *uid) { (void)fd; (void)uid; return -1; }
int carrel_peer_pid(int fd, int *pid) { (void)fd; (void)pid; return -1; }
int carrel_take_back_group(unsigned int gid) { return setregid(gid, gid); }
unsigned long carrel_loader_base(void) { return 0; }
struct carrel_link_tally carrel_link_tally(void) { struct carrel_link_tally t = {0, 0, 0}; return t; }
#include <fcntl.h>
#include <unistd.h>
int carrel_spawn_actions_close_from(void *actions, int lowest) { (void)actions; (void)lowest; return 0; }
int carrel_pipe_cloexec_nonblocking(int fds[2]) {
    if (pipe(fds) != 0) return -1;
    for (int i = 0; i < 2; i++) {
        fcntl(fds[i], F_SETFD, FD_CLOEXEC);
        fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
    }
    return 0;
}
#endif
