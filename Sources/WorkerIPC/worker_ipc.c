#define _GNU_SOURCE
#include "worker_ipc.h"

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

extern char **environ;

int wipc_socketpair(int fds[2])
{
    return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0 ? 0 : -errno;
}

int wipc_pipe(int fds[2])
{
    return pipe2(fds, O_CLOEXEC) == 0 ? 0 : -errno;
}

int wipc_memfd(const char *name, size_t size)
{
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0)
        return -errno;
    if (ftruncate(fd, (off_t)size) != 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    return fd;
}

int wipc_send(int sock, const void *buf, size_t len, int fd)
{
    const char *p = buf;
    size_t done = 0;
    int first = 1;
    while (done < len || (first && fd >= 0)) {
        struct iovec iov = { .iov_base = (void *)(p + done), .iov_len = len - done };
        struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
        union { char buf[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } control;
        if (first && fd >= 0) {
            memset(&control, 0, sizeof control);
            msg.msg_control = control.buf;
            msg.msg_controllen = sizeof control.buf;
            struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN(sizeof(int));
            memcpy(CMSG_DATA(c), &fd, sizeof(int));
        }
        ssize_t n = sendmsg(sock, &msg, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        first = 0;
        done += (size_t)n;
    }
    return 0;
}

ssize_t wipc_recv(int sock, void *buf, size_t len, int *fd)
{
    *fd = -1;
    for (;;) {
        struct iovec iov = { .iov_base = buf, .iov_len = len };
        union { char buf[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } control;
        struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
                              .msg_control = control.buf, .msg_controllen = sizeof control.buf };
        ssize_t n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                int fds[8];
                if (count > 8)
                    count = 8;
                memcpy(fds, CMSG_DATA(c), count * sizeof(int));
                for (size_t i = 0; i < count; i++) {
                    if (*fd < 0)
                        *fd = fds[i];
                    else
                        close(fds[i]);   /* one descriptor per message; extras are not kept */
                }
            }
        }
        return n;
    }
}

pid_t wipc_spawn(const char *exe, int channel_fd, int log_fd)
{
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, log_fd, 1);
    posix_spawn_file_actions_adddup2(&actions, log_fd, 2);
    posix_spawn_file_actions_adddup2(&actions, channel_fd, 3);

    sigset_t defaults, none;
    sigemptyset(&defaults);
    int sigs[] = { SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE, SIGCHLD };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaddset(&defaults, sigs[i]);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

    /* Nothing of the host's but fds 0-3 reaches the plugin, even descriptors some library
     * opened without close-on-exec. */
    posix_spawn_file_actions_addclosefrom_np(&actions, 4);

    /* The host's environment without the host's own settings (WAIHOST_*): the worker needs
     * none of them, and a plugin must not see how this host was configured — a probe and a
     * decode look the same to it. */
    size_t n = 0;
    while (environ[n] != NULL)
        n++;
    char **envp = calloc(n + 1, sizeof *envp);
    if (envp == NULL) {
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attr);
        return -ENOMEM;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "WAIHOST_", 8) != 0)
            envp[k++] = environ[i];
    envp[k] = NULL;

    char *argv[] = { (char *)exe, NULL };
    pid_t pid = 0;
    int rc = posix_spawn(&pid, exe, &actions, &attr, argv, envp);
    free(envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    return rc == 0 ? pid : -rc;
}

static char alt_stack[64 * 1024];

static void write_all(const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(2, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

static void on_fatal(int sig)
{
    /* Only async-signal-safe calls, except backtrace(), whose first call may allocate:
     * it is called once at install time so the unwinder is already loaded here. */
    char line[96];
    int n = snprintf(line, sizeof line, "waihost-unit-worker: fatal signal %d (%s); backtrace:\n", sig, strsignal(sig));
    if (n > 0)
        write_all(line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    void *frames[48];
    int count = backtrace(frames, 48);
    backtrace_symbols_fd(frames, count, 2);
    signal(sig, SIG_DFL);
    raise(sig);
}

void wipc_install_crash_log(void)
{
    void *warm[2];
    (void)backtrace(warm, 2);
    stack_t ss = { .ss_sp = alt_stack, .ss_size = sizeof alt_stack, .ss_flags = 0 };
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal;
    sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
}

const char *wipc_module_path(void)
{
    static char path[4096];
    Dl_info info;
    if (dladdr((void *)&wipc_module_path, &info) == 0 || info.dli_fname == NULL)
        return NULL;
    if (realpath(info.dli_fname, path) == NULL)
        return NULL;
    return path;
}
