/* The instance, its physical devices as units, and their logical devices and pipelines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vkrt_internal.h"

static uint32_t unit_kind(VkPhysicalDeviceType type) {
    switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 1; /* WAI_UNIT_GPU */
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 0;         /* WAI_UNIT_CPU, e.g. lavapipe */
    default: return 2;                                  /* WAI_UNIT_OTHER */
    }
}

static int has_extension(VkPhysicalDevice physical, const char *name) {
    uint32_t n = 0;
    if (vk.vkEnumerateDeviceExtensionProperties(physical, NULL, &n, NULL) != VK_SUCCESS || n == 0) return 0;
    VkExtensionProperties *all = calloc(n, sizeof *all);
    if (!all) return 0;
    int found = 0;
    VkResult r = vk.vkEnumerateDeviceExtensionProperties(physical, NULL, &n, all);
    if (r == VK_SUCCESS || r == VK_INCOMPLETE) {
        for (uint32_t i = 0; i < n && !found; i++) found = strcmp(all[i].extensionName, name) == 0;
    }
    free(all);
    return found;
}

/* " pci …" where the device reports its PCI address (VK_EXT_pci_bus_info) and libdrm lists
 * a device there; else "". */
static void pci_identity(const vkrt_device *d, const vkrt_pci_node *nodes, size_t n_nodes, char *out, size_t cap) {
    out[0] = 0;
    if (n_nodes == 0 || d->api < VK_API_VERSION_1_1 || !has_extension(d->physical, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME)) return;
    VkPhysicalDevicePCIBusInfoPropertiesEXT bus = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT };
    VkPhysicalDeviceProperties2 props2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &bus };
    vk.vkGetPhysicalDeviceProperties2(d->physical, &props2);
    vkrt_pci_suffix(nodes, n_nodes, bus.pciDomain, bus.pciBus, bus.pciDevice, bus.pciFunction, d->props.vendorID, out, cap);
}

/* Name, driver identity and 16-bit storage of one physical device. */
static void describe(vkrt_context *ctx, vkrt_device *d, const vkrt_pci_node *nodes, size_t n_nodes) {
    vk.vkGetPhysicalDeviceProperties(d->physical, &d->props);
    vk.vkGetPhysicalDeviceMemoryProperties(d->physical, &d->memory);
    d->api = d->props.apiVersion;
    d->info.kind = unit_kind(d->props.deviceType);
    d->info.uniform_range = d->props.limits.maxUniformBufferRange;
    snprintf(d->info.device, sizeof d->info.device, "%s", d->props.deviceName);
    char api[32];
    snprintf(api, sizeof api, "%u.%u.%u", VK_API_VERSION_MAJOR(d->api), VK_API_VERSION_MINOR(d->api),
             VK_API_VERSION_PATCH(d->api));
    char pci[96];
    pci_identity(d, nodes, n_nodes, pci, sizeof pci);
    if (d->api >= VK_API_VERSION_1_2) {
        VkPhysicalDeviceDriverProperties driver = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES };
        VkPhysicalDeviceProperties2 props2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &driver };
        vk.vkGetPhysicalDeviceProperties2(d->physical, &props2);
        vkrt_format_driver(d->info.driver, sizeof d->info.driver, driver.driverName, driver.driverInfo,
                           d->props.driverVersion, api, pci);
    } else {
        char name[64];
        snprintf(name, sizeof name, "vendor 0x%x device 0x%x", d->props.vendorID, d->props.deviceID);
        vkrt_format_driver(d->info.driver, sizeof d->info.driver, name, "", d->props.driverVersion, api, pci);
    }
    d->narrow_supported = 0;
    if (d->api >= VK_API_VERSION_1_1) {
        VkPhysicalDevice16BitStorageFeatures s16 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES };
        VkPhysicalDeviceFeatures2 f2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &s16 };
        vk.vkGetPhysicalDeviceFeatures2(d->physical, &f2);
        /* The narrow convolutions read their inputs as 64-bit words (docs/gpu-kernels.md §3). */
        d->narrow_supported = s16.storageBuffer16BitAccess == VK_TRUE && f2.features.shaderInt64 == VK_TRUE;
    }
    d->info.narrow = (uint32_t)(d->narrow_supported && ctx->allow_narrow);
}

int vkrt_open(vkrt_context **out, char *err, size_t cap) {
    int status = vkrt_load(err, cap);
    if (status) return status;
    uint32_t loader_api = VK_API_VERSION_1_0;
    if (vk.vkEnumerateInstanceVersion) vk.vkEnumerateInstanceVersion(&loader_api);
    if (loader_api < VK_API_VERSION_1_1) {
        return vkrt_fail(err, cap, VKRT_NO_DEVICE, "the Vulkan loader offers only Vulkan %u.%u; the backend needs 1.1",
                         VK_API_VERSION_MAJOR(loader_api), VK_API_VERSION_MINOR(loader_api));
    }
    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "waihost", .pEngineName = "waihost-vulkan",
        .apiVersion = loader_api >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : loader_api,
    };
    VkInstanceCreateInfo info = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app };
    VkInstance instance;
    VkResult r = vk.vkCreateInstance(&info, NULL, &instance);
    if (r != VK_SUCCESS) {
        if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
            return vkrt_fail(err, cap, VKRT_NO_DEVICE, "no Vulkan driver: vkCreateInstance found no ICD (VK_ERROR_INCOMPATIBLE_DRIVER)");
        return vkrt_result(err, cap, r, "vkCreateInstance");
    }
    uint32_t n = 0;
    r = vk.vkEnumeratePhysicalDevices(instance, &n, NULL);
    if (r != VK_SUCCESS) { vk.vkDestroyInstance(instance, NULL); return vkrt_result(err, cap, r, "vkEnumeratePhysicalDevices"); }
    if (n == 0) {
        vk.vkDestroyInstance(instance, NULL);
        return vkrt_fail(err, cap, VKRT_NO_DEVICE, "no Vulkan device: the loader lists no physical device (is a driver such as mesa-vulkan-drivers installed?)");
    }
    if (n > VKRT_MAX_DEVICES) n = VKRT_MAX_DEVICES;
    VkPhysicalDevice physical[VKRT_MAX_DEVICES];
    r = vk.vkEnumeratePhysicalDevices(instance, &n, physical);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) { vk.vkDestroyInstance(instance, NULL); return vkrt_result(err, cap, r, "vkEnumeratePhysicalDevices"); }

    vkrt_context *ctx = calloc(1, sizeof *ctx);
    vkrt_device *devices = calloc(n, sizeof *devices);
    if (!ctx || !devices) {
        free(ctx); free(devices); vk.vkDestroyInstance(instance, NULL);
        return vkrt_fail(err, cap, VKRT_OOM, "open: out of host memory");
    }
    const char *narrow = getenv("WAI_VULKAN_NARROW");
    ctx->allow_narrow = !(narrow && strcmp(narrow, "0") == 0);
    ctx->instance = instance;
    ctx->n_devices = n;
    ctx->devices = devices;
    vkrt_pci_node nodes[VKRT_MAX_DEVICES];
    size_t n_nodes = vkrt_drm_pci_nodes(nodes, VKRT_MAX_DEVICES);
    for (uint32_t i = 0; i < n; i++) {
        devices[i].physical = physical[i];
        pthread_mutex_init(&devices[i].lock, NULL);
        describe(ctx, &devices[i], nodes, n_nodes);
    }
    *out = ctx;
    return VKRT_OK;
}

void vkrt_close(vkrt_context *ctx) {
    if (!ctx) return;
    for (uint32_t i = 0; i < ctx->n_devices; i++) {
        vkrt_device *d = &ctx->devices[i];
        if (d->created) {
            vk.vkDeviceWaitIdle(d->device);
            for (uint32_t k = 0; k < d->n_pipelines; k++) vk.vkDestroyPipeline(d->device, d->pipelines[k].pipeline, NULL);
            vk.vkDestroyPipelineLayout(d->device, d->pipeline_layout, NULL);
            vk.vkDestroyDescriptorSetLayout(d->device, d->set_layout, NULL);
            vk.vkDestroyDevice(d->device, NULL);
        }
        free(d->pipelines);
        pthread_mutex_destroy(&d->lock);
    }
    vk.vkDestroyInstance(ctx->instance, NULL);
    free(ctx->devices);
    free(ctx);
}

uint32_t vkrt_unit_count(const vkrt_context *ctx) { return ctx->n_devices; }

int vkrt_unit_info(const vkrt_context *ctx, uint32_t unit, vkrt_unit *out, char *err, size_t cap) {
    if (unit >= ctx->n_devices)
        return vkrt_fail(err, cap, VKRT_INVALID, "unit %u does not exist (the vulkan backend has %u units)", unit, ctx->n_devices);
    *out = ctx->devices[unit].info;
    return VKRT_OK;
}

/* Creates the logical device once: a compute queue, 16-bit storage where used, and the
 * one descriptor-set layout every kernel shares (four storage buffers, one uniform buffer —
 * the convolutions' weight window — and 64 bytes of push constants). Caller holds d->lock. */
int vkrt_device_ready(vkrt_device *d, char *err, size_t cap) {
    if (d->lost) return vkrt_fail(err, cap, VKRT_NO_DEVICE, "%s: the device was lost earlier", d->info.device);
    if (d->created) return VKRT_OK;
    if (d->api < VK_API_VERSION_1_1)
        return vkrt_fail(err, cap, VKRT_UNSUPPORTED, "%s offers Vulkan %u.%u; the backend's SPIR-V needs 1.1",
                         d->info.device, VK_API_VERSION_MAJOR(d->api), VK_API_VERSION_MINOR(d->api));
    uint32_t nf = 0;
    vk.vkGetPhysicalDeviceQueueFamilyProperties(d->physical, &nf, NULL);
    VkQueueFamilyProperties families[32];
    if (nf > 32) nf = 32;
    vk.vkGetPhysicalDeviceQueueFamilyProperties(d->physical, &nf, families);
    uint32_t family = UINT32_MAX;
    for (uint32_t i = 0; i < nf; i++) {
        if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) { family = i; break; }
    }
    if (family == UINT32_MAX) return vkrt_fail(err, cap, VKRT_UNSUPPORTED, "%s has no compute queue", d->info.device);
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = family, .queueCount = 1,
        .pQueuePriorities = &priority,
    };
    VkPhysicalDevice16BitStorageFeatures s16 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
        .storageBuffer16BitAccess = d->info.narrow ? VK_TRUE : VK_FALSE,
    };
    VkPhysicalDeviceFeatures enabled = { .shaderInt64 = d->info.narrow ? VK_TRUE : VK_FALSE };
    VkDeviceCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &s16, .queueCreateInfoCount = 1, .pQueueCreateInfos = &queue,
        .pEnabledFeatures = &enabled,
    };
    VkResult r = vk.vkCreateDevice(d->physical, &info, NULL, &d->device);
    if (r != VK_SUCCESS) return vkrt_result(err, cap, r, "vkCreateDevice");
    vk.vkGetDeviceQueue(d->device, family, 0, &d->queue);
    d->family = family;

    VkDescriptorSetLayoutBinding bindings[5];
    for (uint32_t b = 0; b < 5; b++) {
        bindings[b] = (VkDescriptorSetLayoutBinding){
            .binding = b, .descriptorType = b < 4 ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER : VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
            .descriptorCount = 1, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
        };
    }
    VkDescriptorSetLayoutCreateInfo set_info = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = 5, .pBindings = bindings,
    };
    r = vk.vkCreateDescriptorSetLayout(d->device, &set_info, NULL, &d->set_layout);
    if (r != VK_SUCCESS) { vk.vkDestroyDevice(d->device, NULL); return vkrt_result(err, cap, r, "vkCreateDescriptorSetLayout"); }
    VkPushConstantRange range = { .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .offset = 0, .size = 64 };
    VkPipelineLayoutCreateInfo layout_info = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1, .pSetLayouts = &d->set_layout,
        .pushConstantRangeCount = 1, .pPushConstantRanges = &range,
    };
    r = vk.vkCreatePipelineLayout(d->device, &layout_info, NULL, &d->pipeline_layout);
    if (r != VK_SUCCESS) {
        vk.vkDestroyDescriptorSetLayout(d->device, d->set_layout, NULL);
        vk.vkDestroyDevice(d->device, NULL);
        return vkrt_result(err, cap, r, "vkCreatePipelineLayout");
    }
    d->created = 1;
    return VKRT_OK;
}

int vkrt_pipeline_get(vkrt_device *d, const vkrt_kernel *k, const int32_t spec[4], VkPipeline *out, char *err, size_t cap) {
    for (uint32_t i = 0; i < d->n_pipelines; i++) {
        if (strcmp(d->pipelines[i].name, k->name) == 0 && memcmp(d->pipelines[i].spec, spec, sizeof d->pipelines[i].spec) == 0) {
            *out = d->pipelines[i].pipeline;
            return VKRT_OK;
        }
    }
    if (strlen(k->name) >= sizeof d->pipelines[0].name)
        return vkrt_fail(err, cap, VKRT_INTERNAL, "kernel name %s too long", k->name);
    if (d->n_pipelines == d->cap_pipelines) {
        uint32_t grown = d->cap_pipelines ? d->cap_pipelines * 2 : 16;
        vkrt_pipeline *p = realloc(d->pipelines, grown * sizeof *p);
        if (!p) return vkrt_fail(err, cap, VKRT_OOM, "pipeline cache: out of host memory");
        d->pipelines = p;
        d->cap_pipelines = grown;
    }
    VkShaderModuleCreateInfo module_info = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = k->words * 4, .pCode = k->code,
    };
    VkShaderModule module;
    char what[128];
    snprintf(what, sizeof what, "vkCreateShaderModule(%s)", k->name);
    VkResult r = vk.vkCreateShaderModule(d->device, &module_info, NULL, &module);
    if (r != VK_SUCCESS) return vkrt_result(err, cap, r, what);
    /* Constants 0…3 (kernels that declare none ignore them). */
    VkSpecializationMapEntry entries[4];
    for (uint32_t c = 0; c < 4; c++) entries[c] = (VkSpecializationMapEntry){ .constantID = c, .offset = c * 4, .size = 4 };
    VkSpecializationInfo specialization = { .mapEntryCount = 4, .pMapEntries = entries, .dataSize = 16, .pData = spec };
    VkComputePipelineCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = { .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                   .module = module, .pName = "main", .pSpecializationInfo = &specialization },
        .layout = d->pipeline_layout,
    };
    VkPipeline pipeline;
    r = vk.vkCreateComputePipelines(d->device, VK_NULL_HANDLE, 1, &info, NULL, &pipeline);
    vk.vkDestroyShaderModule(d->device, module, NULL);
    snprintf(what, sizeof what, "vkCreateComputePipelines(%s)", k->name);
    if (r != VK_SUCCESS) return vkrt_result(err, cap, r, what);
    vkrt_pipeline *slot = &d->pipelines[d->n_pipelines++];
    snprintf(slot->name, sizeof slot->name, "%s", k->name);
    memcpy(slot->spec, spec, sizeof slot->spec);
    slot->pipeline = pipeline;
    *out = pipeline;
    return VKRT_OK;
}

int vkrt_memory_type(const vkrt_device *d, uint32_t bits, VkMemoryPropertyFlags want) {
    for (uint32_t i = 0; i < d->memory.memoryTypeCount; i++) {
        if ((bits & (1u << i)) && (d->memory.memoryTypes[i].propertyFlags & want) == want) return (int)i;
    }
    return -1;
}
