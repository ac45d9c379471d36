/* The loader, opened at run time so that the plugin itself needs no libvulkan. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vkrt_internal.h"

vkrt_fns vk;

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static int loaded;

int vkrt_load(char *err, size_t cap) {
    pthread_mutex_lock(&load_lock);
    const char *name = getenv("WAI_VULKAN_LOADER");
    if (!name || !*name) name = "libvulkan.so.1";
    /* Once loaded, the table stays; a different WAI_VULKAN_LOADER set later is still
     * opened, so that a missing one is reported the same way in a process that had one. */
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib && loaded) { pthread_mutex_unlock(&load_lock); return VKRT_OK; }
    if (!lib) {
        const char *why = dlerror();
        pthread_mutex_unlock(&load_lock);
        return vkrt_fail(err, cap, VKRT_NO_DEVICE, "no Vulkan loader: dlopen(%s) failed: %s (Debian: apt-get install libvulkan1 mesa-vulkan-drivers)",
                         name, why ? why : "unknown error");
    }
#define VKRT_LOAD(fn) \
    vk.fn = (PFN_##fn)dlsym(lib, #fn); \
    if (!vk.fn) { pthread_mutex_unlock(&load_lock); \
        return vkrt_fail(err, cap, VKRT_NO_DEVICE, "the Vulkan loader %s lacks %s (a Vulkan 1.1 loader is needed)", name, #fn); }
    VKRT_FUNCTIONS(VKRT_LOAD)
#undef VKRT_LOAD
    vk.vkEnumerateInstanceVersion = (PFN_vkEnumerateInstanceVersion)dlsym(lib, "vkEnumerateInstanceVersion");
    loaded = 1;
    pthread_mutex_unlock(&load_lock);
    return VKRT_OK;
}

int vkrt_fail(char *err, size_t cap, int status, const char *fmt, ...) {
    if (err && cap > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, cap, fmt, ap);
        va_end(ap);
    }
    return status;
}

const char *vkrt_result_name(VkResult r) {
    switch (r) {
    case VK_SUCCESS: return "VK_SUCCESS";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED: return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_TOO_MANY_OBJECTS: return "VK_ERROR_TOO_MANY_OBJECTS";
    case VK_ERROR_FRAGMENTED_POOL: return "VK_ERROR_FRAGMENTED_POOL";
    case VK_ERROR_OUT_OF_POOL_MEMORY: return "VK_ERROR_OUT_OF_POOL_MEMORY";
    case VK_ERROR_INVALID_SHADER_NV: return "VK_ERROR_INVALID_SHADER_NV";
    default: return "VkResult";
    }
}

int vkrt_result(char *err, size_t cap, VkResult r, const char *what) {
    int status;
    switch (r) {
    case VK_ERROR_OUT_OF_HOST_MEMORY: case VK_ERROR_OUT_OF_DEVICE_MEMORY: case VK_ERROR_TOO_MANY_OBJECTS:
    case VK_ERROR_FRAGMENTED_POOL: case VK_ERROR_OUT_OF_POOL_MEMORY:
        status = VKRT_OOM; break;
    case VK_ERROR_DEVICE_LOST: case VK_ERROR_INITIALIZATION_FAILED: case VK_ERROR_INCOMPATIBLE_DRIVER:
        status = VKRT_NO_DEVICE; break;
    case VK_ERROR_EXTENSION_NOT_PRESENT: case VK_ERROR_FEATURE_NOT_PRESENT:
        status = VKRT_UNSUPPORTED; break;
    default:
        status = VKRT_INTERNAL; break;
    }
    return vkrt_fail(err, cap, status, "%s failed: %s (%d)", what, vkrt_result_name(r), (int)r);
}
