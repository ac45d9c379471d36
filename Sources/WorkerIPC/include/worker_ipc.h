/*
 * worker_ipc.h — the kernel-facing pieces of the unit worker channel (docs/probe.md §3):
 * private socket pairs, file descriptors passed with SCM_RIGHTS, memfd shared memory,
 * the fixed-argv spawn of the worker, and the worker's fatal-signal backtrace. Macros such
 * as CMSG_* and variadic calls have no Swift form, hence C.
 */
#ifndef WAIHOST_WORKER_IPC_H
#define WAIHOST_WORKER_IPC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A connected AF_UNIX stream pair, both ends close-on-exec. 0 or -errno. */
int wipc_socketpair(int fds[2]);
/* A close-on-exec pipe. 0 or -errno. */
int wipc_pipe(int fds[2]);
/* An anonymous shared-memory file of `size` bytes (memfd, close-on-exec). fd or -errno. */
int wipc_memfd(const char *name, size_t size);

/* Writes all of buf; when fd >= 0 it travels with the first byte (SCM_RIGHTS).
 * MSG_NOSIGNAL: a dead peer is an error, never SIGPIPE. 0 or -errno. */
int wipc_send(int sock, const void *buf, size_t len, int fd);
/* Reads up to len bytes; a descriptor that came with them is stored in *fd (else -1;
 * close-on-exec). Bytes read, 0 at end of stream, or -errno. */
ssize_t wipc_recv(int sock, void *buf, size_t len, int *fd);

/* Spawns `exe` with argv = { exe } only, the host's environment less its WAIHOST_*
 * variables, stdin from /dev/null, stdout and stderr on log_fd, the channel on fd 3 and
 * no other descriptor, its own process group, default signal dispositions and an empty
 * signal mask. pid, or -errno. */
pid_t wipc_spawn(const char *exe, int channel_fd, int log_fd);

/* Worker side: on SIGSEGV, SIGBUS, SIGILL, SIGFPE or SIGABRT write the signal and a
 * backtrace to fd 2 (the captured log), then die of the same signal. */
void wipc_install_crash_log(void);

/* The file of the loaded object that contains this code (the program, or a shared
 * library WaiHost was linked into), or NULL. Static storage; do not free. */
const char *wipc_module_path(void);

#endif
