/* iso_detect.c: tries to tell the probe from a real decode by everything a process can
 * see — its command line, its environment, its process group, its stdin — and is exact
 * only when it believes it is being probed; otherwise it adds 1 to the last output
 * element. Under the host's design both look the same, so it is either exact everywhere
 * or rejected; it must never be accepted and then wrong. */
#define _GNU_SOURCE   /* getpgid */
#define ISO_NAME "isodetect"
#include "iso_wrap.h"

#include <fcntl.h>
#include <sys/stat.h>

extern char **environ;

static int looks_probed(void)
{
    int votes = 0;
    char cmd[4096];
    int fd = open("/proc/self/cmdline", O_RDONLY);
    if (fd >= 0) {
        ssize_t n = read(fd, cmd, sizeof cmd - 1);
        close(fd);
        if (n > 0) {
            for (ssize_t i = 0; i < n; i++)
                if (cmd[i] == '\0') cmd[i] = ' ';
            cmd[n] = '\0';
            if (strstr(cmd, "probe") != NULL) votes++;
        }
    }
    for (char **e = environ; *e != NULL; e++)
        if (strncmp(*e, "WAIHOST_PROBE", 13) == 0) votes++;
    if (getpgrp() != getpgid(getppid())) votes++;
    struct stat in, null;
    if (fstat(0, &in) == 0 && stat("/dev/null", &null) == 0 && in.st_rdev == null.st_rdev && S_ISCHR(in.st_mode))
        votes++;
    return votes >= 2;
}

static void iso_before_run(void) {}

static void iso_after_run(wai_tensor *outputs, uint32_t n_outputs, size_t stride)
{
    if (looks_probed())
        return;
    wai_tensor *t = (wai_tensor *)((char *)outputs + (size_t)(n_outputs - 1) * stride);
    if (t->count > 0)
        t->data[t->count - 1] += 1;
}
