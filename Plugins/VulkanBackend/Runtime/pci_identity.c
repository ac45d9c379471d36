/* PCI address matching and the driver identity string (pci_identity.h). */
#include <stdio.h>
#include <string.h>
#include "pci_identity.h"

size_t vkrt_pci_nodes_from_drm(vkrt_drm_device *const *devices, int n, vkrt_pci_node *out, size_t cap) {
    size_t count = 0;
    for (int i = 0; i < n && count < cap; i++) {
        const vkrt_drm_device *d = devices[i];
        if (!d || d->bustype != VKRT_DRM_BUS_PCI || !d->businfo.pci || !d->deviceinfo.pci) continue;
        vkrt_pci_node *node = &out[count++];
        node->domain = d->businfo.pci->domain;
        node->bus = d->businfo.pci->bus;
        node->dev = d->businfo.pci->dev;
        node->func = d->businfo.pci->func;
        node->vendor = d->deviceinfo.pci->vendor_id;
        node->device = d->deviceinfo.pci->device_id;
        node->render[0] = 0;
        const char *render = (d->available_nodes & (1 << VKRT_DRM_NODE_RENDER)) && d->nodes
            ? d->nodes[VKRT_DRM_NODE_RENDER] : NULL;
        /* A path that does not fit is left out rather than cut: a cut path names nothing. */
        if (render && strlen(render) < sizeof node->render) snprintf(node->render, sizeof node->render, "%s", render);
    }
    return count;
}

int vkrt_pci_suffix(const vkrt_pci_node *nodes, size_t n, uint32_t domain, uint32_t bus, uint32_t dev,
                    uint32_t func, uint32_t vk_vendor, char *out, size_t cap) {
    if (cap > 0) out[0] = 0;
    for (size_t i = 0; i < n; i++) {
        const vkrt_pci_node *p = &nodes[i];
        if (p->domain != domain || p->bus != bus || p->dev != dev || p->func != func) continue;
        if (p->vendor != (vk_vendor & 0xFFFFu)) return 0;
        int w = snprintf(out, cap, " pci %04x:%04x (%04x:%02x:%02x.%x)%s%s", p->vendor, p->device, p->domain,
                         p->bus, p->dev, p->func, p->render[0] ? " " : "", p->render);
        if (w < 0 || (size_t)w >= cap) { if (cap > 0) out[0] = 0; return 0; }
        return 1;
    }
    return 0;
}

void vkrt_format_driver(char *out, size_t cap, const char *name, const char *info, uint32_t version,
                        const char *api, const char *suffix) {
    if (cap == 0) return;
    char tail[160];
    snprintf(tail, sizeof tail, "; driver version 0x%x; Vulkan %s%s", version, api, suffix);
    const char *sep = info[0] ? " " : "";
    size_t fixed = strlen(name) + strlen(sep) + strlen(tail);
    size_t room = fixed < cap - 1 ? cap - 1 - fixed : 0;
    snprintf(out, cap, "%s%s%.*s%s", name, sep, (int)(strlen(info) < room ? strlen(info) : room), info, tail);
}
