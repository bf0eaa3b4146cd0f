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

#endif
