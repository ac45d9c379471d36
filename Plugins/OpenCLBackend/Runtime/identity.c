/* The unit's driver identity string (oclrt.h). Pure C without OpenCL, so a test compiles
 * it alone (Tests/WaiHostTests/OpenCLDriverIdentityTests.swift). */
#include <stdio.h>
#include <string.h>
#include "oclrt.h"

void oclrt_format_driver(char *out, size_t cap, const char *platform, const char *platform_version,
                         const char *device_version, const char *driver_version, const char *pci) {
    if (cap == 0) return;
    char tail[320];
    snprintf(tail, sizeof tail, "; device %s; driver %s%s", device_version, driver_version, pci);
    char head[400];
    snprintf(head, sizeof head, "%s%s%s", platform, platform_version[0] ? " " : "", platform_version);
    size_t fixed = strlen(tail);
    size_t room = fixed < cap - 1 ? cap - 1 - fixed : 0;
    /* Trailing blanks of a cut are dropped: they would only pad the key. */
    size_t keep = strlen(head) < room ? strlen(head) : room;
    while (keep > 0 && head[keep - 1] == ' ') keep--;
    snprintf(out, cap, "%.*s%s", (int)keep, head, tail);
}
