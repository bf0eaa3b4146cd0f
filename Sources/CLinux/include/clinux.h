// Linux calls Swift cannot make directly: prctl is variadic, and the loader's link map and
// auxiliary vector are not part of the Glibc module. The system headers they need stay in
// clinux.c, so this header exposes plain C types only.
#ifndef CARREL_LINUX_SHIM_H
#define CARREL_LINUX_SHIM_H

/// PR_SET_DUMPABLE: 0 forbids ptrace attach by the same user, /proc/PID/mem and core dumps.
int carrel_set_dumpable(int dumpable);
/// SIGKILL when the parent ends (PR_SET_PDEATHSIG).
int carrel_die_with_parent(void);
int carrel_get_dumpable(void);

/// setresgid(gid, gid, unchanged): the real and effective group back to `gid`, the saved one
/// kept (a setgid start leaves its group there, which the assessment-mode service checks).
int carrel_take_back_group(unsigned int gid);

/// The user id of the process at the other end of a connected Unix socket (SO_PEERCRED, as the
/// kernel recorded it at connect): 0, or -1 with errno.
int carrel_peer_uid(int fd, unsigned int *uid);

/// The process at the other end of a connected Unix socket (SO_PEERCRED): 0, or -1 with errno.
int carrel_peer_pid(int fd, int *pid);

/// Where the dynamic loader is mapped (0 for a static executable).
unsigned long carrel_loader_base(void);

/// The objects dl_iterate_phdr lists (the main namespace only) and the loader's global
/// counters of objects ever added and removed (every namespace).
struct carrel_link_tally { unsigned long listed; unsigned long long adds; unsigned long long subs; };
struct carrel_link_tally carrel_link_tally(void);

/// pipe2(fds, O_CLOEXEC | O_NONBLOCK): both ends close-on-exec from the moment they exist.
int carrel_pipe_cloexec_nonblocking(int fds[2]);

/// posix_spawn_file_actions_addclosefrom_np(actions, lowest): the child closes every
/// descriptor from `lowest` up (`actions` is a posix_spawn_file_actions_t *).
int carrel_spawn_actions_close_from(void *actions, int lowest);

#endif
