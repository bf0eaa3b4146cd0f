// Linux calls of the assessment-mode service that Swift cannot make directly (they need
// _GNU_SOURCE): the peer's credentials on a Unix socket, accept4, signalfd and the spawn
// action that closes every inherited descriptor. Plain C types only.
#ifndef CARREL_ASSESSMENTD_SHIM_H
#define CARREL_ASSESSMENTD_SHIM_H

/// SO_PEERCRED of a connected Unix socket: 0, or -1 with errno.
int cad_peer_credentials(int fd, int *pid, unsigned int *uid, unsigned int *gid);

/// accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK).
int cad_accept(int fd);

/// Blocks SIGTERM, SIGINT and SIGHUP for the process and returns a signalfd that reads them
/// (close-on-exec, non-blocking); -1 with errno.
int cad_stop_signals(void);

/// The signal number read from a cad_stop_signals descriptor, 0 when none is pending.
int cad_read_signal(int fd);

/// posix_spawn_file_actions_addclosefrom_np(actions, lowest) (`actions` is a
/// posix_spawn_file_actions_t *).
int cad_spawn_close_from(void *actions, int lowest);

/// pipe2(fds, O_CLOEXEC).
int cad_pipe(int fds[2]);

/// One of the kernel's process events (the netlink proc connector), as plain numbers.
/// `what`: 1 fork (a new process `pid` of parent `parent`; new threads are left out), 2 exec,
/// 3 user ids changed (`ruid`, `euid`), 4 exit, 5 the process renamed itself (`name`,
/// NUL-terminated; prctl PR_SET_NAME: an exec sends no such event; a thread's own name is left out).
typedef struct {
    int what;
    int pid;
    int parent;
    unsigned int ruid;
    unsigned int euid;
    char name[17];
} cad_proc_event;

/// A netlink socket subscribed to every process's fork, exec, uid change and exit
/// (close-on-exec, non-blocking, a large receive buffer); -1 with errno (EPERM outside the
/// machine's first PID namespace or without CAP_NET_ADMIN).
int cad_proc_events_open(void);

/// The events waiting on `fd`, at most `max`: their count; -1 with errno, ENOBUFS when the
/// kernel dropped some (the caller must look at the whole machine again).
int cad_proc_events_read(int fd, cad_proc_event *events, int max);

/// A file a process opened to run it (fanotify FAN_OPEN_EXEC): the process (`pid`, its
/// thread group) and the file's path as this process sees it (NUL-terminated, cut at 511 bytes).
typedef struct {
    int pid;
    char path[512];
} cad_exec_file;

/// A fanotify descriptor told of every file opened to be run on each filesystem mounted now
/// (close-on-exec, non-blocking); -1 with errno (EPERM without CAP_SYS_ADMIN).
int cad_exec_files_open(void);

/// The files run since the last call, at most `max`: their count (each event's descriptor is
/// closed); -1 with errno.
int cad_exec_files_read(int fd, cad_exec_file *files, int max);

#endif
