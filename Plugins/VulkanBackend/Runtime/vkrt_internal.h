/* Internal to the Vulkan runtime: the dlopen'ed function table, the context and devices. */
#ifndef VKRT_INTERNAL_H
#define VKRT_INTERNAL_H

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>
#include <pthread.h>
#include <stdarg.h>
#include "vkrt.h"
#include "pci_identity.h"

#define VKRT_MAX_DEVICES 64

/* wai_status values (Sources/BackendABI/include/wai_backend.h). */
enum { VKRT_OK = 0, VKRT_INVALID = 2, VKRT_UNSUPPORTED = 3, VKRT_NO_DEVICE = 4, VKRT_OOM = 5, VKRT_INTERNAL = 6 };

#define VKRT_FUNCTIONS(X) \
    X(vkCreateInstance) X(vkDestroyInstance) X(vkEnumeratePhysicalDevices) \
    X(vkGetPhysicalDeviceProperties) X(vkGetPhysicalDeviceProperties2) X(vkGetPhysicalDeviceFeatures2) \
    X(vkGetPhysicalDeviceQueueFamilyProperties) X(vkGetPhysicalDeviceMemoryProperties) \
    X(vkEnumerateDeviceExtensionProperties) \
    X(vkCreateDevice) X(vkDestroyDevice) X(vkGetDeviceQueue) X(vkDeviceWaitIdle) \
    X(vkCreateBuffer) X(vkDestroyBuffer) X(vkGetBufferMemoryRequirements) X(vkAllocateMemory) \
    X(vkFreeMemory) X(vkBindBufferMemory) X(vkMapMemory) X(vkUnmapMemory) \
    X(vkInvalidateMappedMemoryRanges) X(vkFlushMappedMemoryRanges) \
    X(vkCreateShaderModule) X(vkDestroyShaderModule) X(vkCreateDescriptorSetLayout) \
    X(vkDestroyDescriptorSetLayout) X(vkCreatePipelineLayout) X(vkDestroyPipelineLayout) \
    X(vkCreateComputePipelines) X(vkDestroyPipeline) X(vkCreateDescriptorPool) \
    X(vkDestroyDescriptorPool) X(vkAllocateDescriptorSets) X(vkUpdateDescriptorSets) \
    X(vkCreateCommandPool) X(vkDestroyCommandPool) X(vkAllocateCommandBuffers) \
    X(vkBeginCommandBuffer) X(vkEndCommandBuffer) X(vkCmdBindPipeline) X(vkCmdBindDescriptorSets) \
    X(vkCmdPushConstants) X(vkCmdDispatch) X(vkCmdPipelineBarrier) X(vkCmdCopyBuffer) \
    X(vkCreateFence) X(vkDestroyFence) X(vkResetFences) X(vkWaitForFences) X(vkQueueSubmit)

typedef struct vkrt_fns {
#define VKRT_MEMBER(name) PFN_##name name;
    VKRT_FUNCTIONS(VKRT_MEMBER)
#undef VKRT_MEMBER
    PFN_vkEnumerateInstanceVersion vkEnumerateInstanceVersion; /* absent in 1.0 loaders */
} vkrt_fns;

extern vkrt_fns vk;

/* dlopen + dlsym of every function; once per process (the library is never closed). */
int vkrt_load(char *err, size_t cap);

/* libdrm's PCI devices (drm.c): 0 without libdrm.so.2 or without DRM devices. */

typedef struct vkrt_pipeline {
    char name[64];
    int32_t spec[4];
    VkPipeline pipeline;
} vkrt_pipeline;

/* A logical device, created at the first graph_prepare on its unit. */
typedef struct vkrt_device {
    VkPhysicalDevice physical;
    VkPhysicalDeviceProperties props;
    VkPhysicalDeviceMemoryProperties memory;
    uint32_t api;
    int narrow_supported;
    vkrt_unit info;

    pthread_mutex_t lock;          /* creation, the pipeline cache and the queue */
    int created, lost;
    VkDevice device;
    VkQueue queue;
    uint32_t family;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout pipeline_layout;
    vkrt_pipeline *pipelines;
    uint32_t n_pipelines, cap_pipelines;
} vkrt_device;

struct vkrt_context {
    VkInstance instance;
    uint32_t n_devices;
    vkrt_device *devices;
    int allow_narrow;
};

int vkrt_fail(char *err, size_t cap, int status, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* A VkResult as the status it means: memory → out_of_memory, lost/absent → no_device. */
int vkrt_result(char *err, size_t cap, VkResult r, const char *what);
const char *vkrt_result_name(VkResult r);

int vkrt_device_ready(vkrt_device *d, char *err, size_t cap);
/* Pipeline of a kernel, created on first use; caller holds d->lock. */
int vkrt_pipeline_get(vkrt_device *d, const vkrt_kernel *k, const int32_t spec[4], VkPipeline *out, char *err, size_t cap);
/* A memory type in `bits` with all of `want`, else -1. */
int vkrt_memory_type(const vkrt_device *d, uint32_t bits, VkMemoryPropertyFlags want);

#endif
