/* Parts of the probe cache's listing identity (docs/probe.md §5, "Listing") that only C can
 * ask for: libdrm's GPUs and the CPUs this process may run on. */
#ifndef WAIHOST_MACHINE_IDENTITY_H
#define WAIHOST_MACHINE_IDENTITY_H

#include <stddef.h>

/* "pci DDDD:BB:DD.F VVVV:DDDD NODE\n" per PCI device libdrm lists (NODE: its render node or
 * "-"), in libdrm's order, NUL-terminated within cap. Returns the number of devices; 0
 * without libdrm.so.2 or without /dev/dri. */
size_t waihost_drm_identity(char *out, size_t cap);

/* The CPUs of this process's affinity mask as "0,1,2"; returns how many, 0 when unknown. */
size_t waihost_cpu_affinity(char *out, size_t cap);

#endif
