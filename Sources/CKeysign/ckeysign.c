#define _GNU_SOURCE
#include "ckeysign.h"
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

/// Everything from `low` up closed (close_range when the kernel has it).
static void close_from(int low) {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)low, ~0U, 0) == 0) return;
#endif
    long max = sysconf(_SC_OPEN_MAX);
    if (max < 0 || max > 65536) max = 65536;
    for (int fd = low; fd < max; fd++) close(fd);
}

pid_t ckeysign_launch(int exe, int sock, uid_t uid, gid_t gid, char *const argv[], char *const envp[]) {
    pid_t helper = getpid();
    pid_t pid = fork();
    if (pid != 0) return pid;
    /* The child: only async-signal-safe calls from here to the exec. */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, 0);
    if (uid != 0 && setgroups(0, 0) != 0) _exit(126);
    /* The effective group is another, unused one until Carrel drops it: a process whose
       effective and real ids differ at exec is made non-dumpable by the kernel from the exec
       itself, so no one (pidfd_getfd, process_vm_writev, ptrace) can reach it while the
       runtime loads, before Carrel makes itself non-dumpable. The saved group is the real one,
       which Carrel takes back at once (a change of ids keeps it non-dumpable). */
    gid_t other = gid == 65534 ? 65533 : 65534;
    if (setresgid(gid, other, gid) != 0 || setresuid(uid, uid, uid) != 0) _exit(126);
    if (getuid() != uid || geteuid() != uid || getgid() != gid || getegid() != other) _exit(126);
    if (uid != 0 && (setuid(0) == 0 || seteuid(0) == 0)) _exit(126);
    /* Carrel ends with its helper (set after the ids changed, which clear it). */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != helper) _exit(126);
    /* The socket on its fixed number, the executable above it (closed by the exec). */
    int s = fcntl(sock, F_DUPFD, 10), e = fcntl(exe, F_DUPFD_CLOEXEC, 10);
    if (s < 0 || e < 0 || dup2(s, CKEYSIGN_SOCKET_FD) != CKEYSIGN_SOCKET_FD) _exit(126);
    if (dup2(e, CKEYSIGN_SOCKET_FD + 1) != CKEYSIGN_SOCKET_FD + 1) _exit(126);
    if (fcntl(CKEYSIGN_SOCKET_FD + 1, F_SETFD, FD_CLOEXEC) != 0) _exit(126);
    close_from(CKEYSIGN_SOCKET_FD + 2);
    if (ptrace(PTRACE_TRACEME, 0, 0, 0) != 0) _exit(126);
    fexecve(CKEYSIGN_SOCKET_FD + 1, argv, envp);
    _exit(127);
}

long ckeysign_cont(pid_t pid, int sig) { return ptrace(PTRACE_CONT, pid, 0, (void *)(long)sig); }
long ckeysign_detach(pid_t pid) { return ptrace(PTRACE_DETACH, pid, 0, 0); }
long ckeysign_exitkill(pid_t pid) { return ptrace(PTRACE_SETOPTIONS, pid, 0, (void *)(long)PTRACE_O_EXITKILL); }
