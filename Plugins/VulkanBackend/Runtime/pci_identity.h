/* Where libdrm sees a Vulkan device: its PCI ids and render node, matched by PCI address.
 * Pure functions (no Vulkan, no libdrm calls), so a test compiles pci_identity.c alone. */
#ifndef VKRT_PCI_IDENTITY_H
#define VKRT_PCI_IDENTITY_H

#include <stddef.h>
#include <stdint.h>

/* libdrm's drmDevice and the PCI parts of it, mirrored from xf86drm.h (libdrm.so.2's ABI),
 * because libdrm is dlopen'ed: the build needs neither its headers' include path nor the
 * library. Tests/WaiHostTests/VulkanPCIIdentityTests.swift checks the mirror against the
 * real header. */
typedef struct vkrt_drm_pci_bus { uint16_t domain; uint8_t bus, dev, func; } vkrt_drm_pci_bus;
typedef struct vkrt_drm_pci_device {
    uint16_t vendor_id, device_id, subvendor_id, subdevice_id;
    uint8_t revision_id;
} vkrt_drm_pci_device;
typedef struct vkrt_drm_device {
    char **nodes;             /* VKRT_DRM_NODE_MAX entries */
    int available_nodes;      /* bit (1 << VKRT_DRM_NODE_*) per present node */
    int bustype;
    union { vkrt_drm_pci_bus *pci; void *other; } businfo;
    union { vkrt_drm_pci_device *pci; void *other; } deviceinfo;
} vkrt_drm_device;
enum { VKRT_DRM_NODE_RENDER = 2, VKRT_DRM_NODE_MAX = 3, VKRT_DRM_BUS_PCI = 0 };

/* One PCI device that libdrm lists. render is "" where it has no render node. */
typedef struct vkrt_pci_node {
    uint16_t domain;
    uint8_t bus, dev, func;
    uint16_t vendor, device;
    char render[64];
} vkrt_pci_node;

/* At most this many libdrm devices are asked for. */
#define VKRT_DRM_MAX_DEVICES 64

/* libdrm's PCI devices with their render nodes, at most `cap` (drm.c: libdrm.so.2 is
 * dlopen'ed; without it, or without /dev/dri, none). Shared by the Vulkan and OpenCL
 * runtimes. */
size_t vkrt_drm_pci_nodes(vkrt_pci_node *out, size_t cap);

/* The PCI devices among libdrm's `n` devices, at most `cap` of them, in libdrm's order. */
size_t vkrt_pci_nodes_from_drm(vkrt_drm_device *const *devices, int n, vkrt_pci_node *out, size_t cap);

/* " pci VVVV:DDDD (DDDD:BB:DD.F) /dev/dri/renderDN" (without the node where there is none)
 * for the node at the Vulkan device's PCI address, whose PCI vendor must be the low 16 bits
 * of Vulkan's vendorID (the spec's rule for PCI vendors). Returns 1 and writes `out` on a
 * match, else 0 and out = "". */
int vkrt_pci_suffix(const vkrt_pci_node *nodes, size_t n, uint32_t domain, uint32_t bus, uint32_t dev,
                    uint32_t func, uint32_t vk_vendor, char *out, size_t cap);

/* "NAME INFO; driver version 0xV; Vulkan API" + suffix ("NAME; driver …" for an empty INFO)
 * within cap - 1 characters. Where it does not fit, INFO (free text) is cut: the version, the
 * API and the PCI suffix are what tell one unit from another, so they are kept whole. */
void vkrt_format_driver(char *out, size_t cap, const char *name, const char *info, uint32_t version,
                        const char *api, const char *suffix);

#endif
