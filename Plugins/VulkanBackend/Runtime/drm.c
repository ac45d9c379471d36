/* libdrm's list of PCI devices with their render nodes. libdrm.so.2 is dlopen'ed like the
 * Vulkan and OpenCL loaders: without it (or without /dev/dri) the list is empty and units
 * carry no PCI identity; the plugins themselves never need it. The OpenCL runtime compiles
 * this file too (its pci_identity_shared.c). */
#include <dlfcn.h>
#include <pthread.h>
#include "pci_identity.h"

typedef int (*drm_get_devices2_fn)(uint32_t flags, vkrt_drm_device **devices, int max);
typedef void (*drm_free_devices_fn)(vkrt_drm_device **devices, int count);

static pthread_mutex_t drm_lock = PTHREAD_MUTEX_INITIALIZER;
static int drm_tried;
static drm_get_devices2_fn get_devices2;
static drm_free_devices_fn free_devices;

size_t vkrt_drm_pci_nodes(vkrt_pci_node *out, size_t cap) {
    pthread_mutex_lock(&drm_lock);
    if (!drm_tried) {
        drm_tried = 1;
        void *lib = dlopen("libdrm.so.2", RTLD_NOW | RTLD_LOCAL);
        if (lib) {
            get_devices2 = (drm_get_devices2_fn)dlsym(lib, "drmGetDevices2");
            free_devices = (drm_free_devices_fn)dlsym(lib, "drmFreeDevices");
            if (!get_devices2 || !free_devices) get_devices2 = NULL;
        }
    }
    pthread_mutex_unlock(&drm_lock);
    if (!get_devices2) return 0;
    vkrt_drm_device *devices[VKRT_DRM_MAX_DEVICES];
    /* flags 0: no DRM_DEVICE_GET_PCI_REVISION, which would wake sleeping GPUs to read it. */
    int n = get_devices2(0, devices, VKRT_DRM_MAX_DEVICES);
    if (n <= 0) return 0;
    if (n > VKRT_DRM_MAX_DEVICES) n = VKRT_DRM_MAX_DEVICES;
    size_t count = vkrt_pci_nodes_from_drm(devices, n, out, cap);
    free_devices(devices, n);
    return count;
}
