/* The host asks libdrm what the Vulkan and OpenCL runtimes ask it (their drm.c, compiled in
 * here so both sides read libdrm the same way). Hidden, so that the copy linked into a host
 * program can never stand in for a plugin's own symbols in a unit worker. */
/* The system headers first: their declarations must keep default visibility. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "machine_identity.h"

#pragma GCC visibility push(hidden)
#include "../../Plugins/VulkanBackend/Runtime/pci_identity.c"
#include "../../Plugins/VulkanBackend/Runtime/drm.c"
#pragma GCC visibility pop

size_t waihost_drm_identity(char *out, size_t cap) {
    if (cap == 0) return 0;
    out[0] = 0;
    vkrt_pci_node nodes[VKRT_DRM_MAX_DEVICES];
    size_t n = vkrt_drm_pci_nodes(nodes, VKRT_DRM_MAX_DEVICES);
    size_t used = 0;
    for (size_t i = 0; i < n && used < cap; i++) {
        int k = snprintf(out + used, cap - used, "pci %04x:%02x:%02x.%x %04x:%04x %s\n", nodes[i].domain,
                         nodes[i].bus, nodes[i].dev, nodes[i].func, nodes[i].vendor, nodes[i].device,
                         nodes[i].render[0] ? nodes[i].render : "-");
        if (k < 0) break;
        used += (size_t)k;
    }
    return n;
}

size_t waihost_cpu_affinity(char *out, size_t cap) {
    if (cap == 0) return 0;
    out[0] = 0;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    size_t used = 0, count = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && used < cap; cpu++) {
        if (!CPU_ISSET(cpu, &set)) continue;
        int k = snprintf(out + used, cap - used, count ? ",%d" : "%d", cpu);
        if (k < 0) break;
        used += (size_t)k;
        count++;
    }
    return count;
}
