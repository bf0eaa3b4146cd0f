#ifndef CKEYSIGN_H
#define CKEYSIGN_H
#include <sys/types.h>

/// The descriptor the launched Carrel finds its end of the helper's socket on.
#define CKEYSIGN_SOCKET_FD 3

/// Forks the seat's Carrel from the executable open at `exe` (the file the helper hashed):
/// the child gives up root for good (groups, gid, uid: `uid`/`gid`, checked that root cannot
/// be taken back; its effective group another, unused one, so that the kernel makes it
/// non-dumpable from the exec, until Carrel takes its own group back), asks to be traced by the helper (so nobody else can attach before Carrel
/// makes itself non-dumpable), keeps only 0, 1, 2 and `sock` (as CKEYSIGN_SOCKET_FD) and
/// runs that same open file with `argv` and `envp` (fexecve: no path is looked up again).
/// It is killed if the helper ends (PR_SET_PDEATHSIG).
/// Returns the child's pid, or -1.
pid_t ckeysign_launch(int exe, int sock, uid_t uid, gid_t gid, char *const argv[], char *const envp[]);

/// ptrace requests the helper makes of its own child (ptrace is variadic in C).
long ckeysign_cont(pid_t pid, int sig);
long ckeysign_detach(pid_t pid);
long ckeysign_exitkill(pid_t pid);
#endif
