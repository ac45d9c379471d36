/* A prepared graph: its buffers in one device allocation, host staging for inputs and
 * outputs, and one pre-recorded command buffer that each run submits once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vkrt_internal.h"

#define VKRT_RUN_TIMEOUT_NS (600ull * 1000000000ull)

struct vkrt_graph {
    vkrt_device *dev;
    uint32_t n_buffers;                 /* the caller's buffers, then one dummy */
    VkBuffer *buffers;
    VkDeviceMemory memory;
    VkBuffer staging;
    VkDeviceMemory staging_memory;
    unsigned char *mapped;
    int coherent;
    uint32_t n_inputs, n_outputs;
    vkrt_transfer *transfers;           /* inputs, then outputs */
    VkDeviceSize *offsets;              /* their staging offsets */
    VkDescriptorPool pool;
    VkCommandPool command_pool;
    VkCommandBuffer command;
    VkFence fence;
};

static VkDeviceSize transfer_bytes(const vkrt_transfer *t) { return t->count * (t->bits / 8); }
static VkDeviceSize round4(VkDeviceSize n) { return (n + 3) & ~(VkDeviceSize)3; }
/* Device buffers are whole 64-bit words: the tiled convolutions read narrow inputs as
 * int64 (docs/gpu-kernels.md §3), and an element must never lie in a partial last word. */
static VkDeviceSize round8(VkDeviceSize n) { return (n + 7) & ~(VkDeviceSize)7; }

/* Creates `n` buffers bound to one allocation of a memory type with `want` (else `fallback`). */
static int allocate(vkrt_device *d, uint32_t n, const VkDeviceSize *sizes, VkBufferUsageFlags usage,
                    VkMemoryPropertyFlags want, VkMemoryPropertyFlags fallback, const char *what,
                    VkBuffer *buffers, VkDeviceMemory *memory, VkMemoryPropertyFlags *got, char *err, size_t cap) {
    VkDeviceSize *offsets = calloc(n ? n : 1, sizeof *offsets);
    if (!offsets) return vkrt_fail(err, cap, VKRT_OOM, "%s: out of host memory", what);
    uint32_t type_bits = ~0u;
    VkDeviceSize total = 0;
    int status = VKRT_OK;
    uint32_t made = 0;
    for (; made < n; made++) {
        VkBufferCreateInfo info = {
            .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = sizes[made], .usage = usage,
            .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
        };
        VkResult r = vk.vkCreateBuffer(d->device, &info, NULL, &buffers[made]);
        if (r != VK_SUCCESS) { status = vkrt_result(err, cap, r, "vkCreateBuffer"); break; }
        VkMemoryRequirements req;
        vk.vkGetBufferMemoryRequirements(d->device, buffers[made], &req);
        VkDeviceSize align = req.alignment ? req.alignment : 1;
        if (align < d->props.limits.minStorageBufferOffsetAlignment) align = d->props.limits.minStorageBufferOffsetAlignment;
        total = (total + align - 1) / align * align;
        offsets[made] = total;
        total += req.size;
        type_bits &= req.memoryTypeBits;
    }
    int type = -1;
    if (status == VKRT_OK) {
        type = vkrt_memory_type(d, type_bits, want);
        *got = want;
        if (type < 0) { type = vkrt_memory_type(d, type_bits, fallback); *got = fallback; }
        if (type < 0) status = vkrt_fail(err, cap, VKRT_UNSUPPORTED, "%s: no memory type suits %u buffers", what, n);
        else *got = d->memory.memoryTypes[type].propertyFlags;
    }
    if (status == VKRT_OK) {
        VkMemoryAllocateInfo info = {
            .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = total ? total : 4, .memoryTypeIndex = (uint32_t)type,
        };
        VkResult r = vk.vkAllocateMemory(d->device, &info, NULL, memory);
        if (r != VK_SUCCESS) {
            char label[160];
            snprintf(label, sizeof label, "vkAllocateMemory(%s, %llu bytes)", what, (unsigned long long)total);
            status = vkrt_result(err, cap, r, label);
        }
    }
    if (status == VKRT_OK) {
        for (uint32_t i = 0; i < n && status == VKRT_OK; i++) {
            VkResult r = vk.vkBindBufferMemory(d->device, buffers[i], *memory, offsets[i]);
            if (r != VK_SUCCESS) status = vkrt_result(err, cap, r, "vkBindBufferMemory");
        }
        if (status != VKRT_OK) vk.vkFreeMemory(d->device, *memory, NULL);
    }
    if (status != VKRT_OK) {
        for (uint32_t i = 0; i < made; i++) vk.vkDestroyBuffer(d->device, buffers[i], NULL);
        *memory = VK_NULL_HANDLE;
    }
    free(offsets);
    return status;
}

/* Submits one command buffer on the device's queue and waits for it. */
static int submit_and_wait(vkrt_device *d, VkCommandBuffer command, VkFence fence, const char *what, char *err, size_t cap) {
    VkResult r = vk.vkResetFences(d->device, 1, &fence);
    if (r != VK_SUCCESS) return vkrt_result(err, cap, r, "vkResetFences");
    VkSubmitInfo submit = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &command };
    pthread_mutex_lock(&d->lock);
    if (d->lost) {
        pthread_mutex_unlock(&d->lock);
        return vkrt_fail(err, cap, VKRT_NO_DEVICE, "%s: the device %s was lost earlier", what, d->info.device);
    }
    r = vk.vkQueueSubmit(d->queue, 1, &submit, fence);
    pthread_mutex_unlock(&d->lock);
    if (r == VK_SUCCESS) r = vk.vkWaitForFences(d->device, 1, &fence, VK_TRUE, VKRT_RUN_TIMEOUT_NS);
    if (r == VK_SUCCESS) return VKRT_OK;
    if (r == VK_ERROR_DEVICE_LOST) {
        pthread_mutex_lock(&d->lock);
        d->lost = 1;
        pthread_mutex_unlock(&d->lock);
        return vkrt_fail(err, cap, VKRT_NO_DEVICE, "%s: the device %s was lost (VK_ERROR_DEVICE_LOST)", what, d->info.device);
    }
    if (r == VK_TIMEOUT)
        return vkrt_fail(err, cap, VKRT_NO_DEVICE, "%s: the device %s did not finish within 600 s", what, d->info.device);
    return vkrt_result(err, cap, r, what);
}

void vkrt_graph_destroy(vkrt_graph *g) {
    if (!g) return;
    VkDevice dev = g->dev->device;
    if (g->fence) vk.vkWaitForFences(dev, 1, &g->fence, VK_TRUE, VKRT_RUN_TIMEOUT_NS);
    if (g->fence) vk.vkDestroyFence(dev, g->fence, NULL);
    if (g->command_pool) vk.vkDestroyCommandPool(dev, g->command_pool, NULL);
    if (g->pool) vk.vkDestroyDescriptorPool(dev, g->pool, NULL);
    if (g->mapped) vk.vkUnmapMemory(dev, g->staging_memory);
    if (g->staging) vk.vkDestroyBuffer(dev, g->staging, NULL);
    if (g->staging_memory) vk.vkFreeMemory(dev, g->staging_memory, NULL);
    if (g->memory) {
        for (uint32_t i = 0; i < g->n_buffers; i++) vk.vkDestroyBuffer(dev, g->buffers[i], NULL);
        vk.vkFreeMemory(dev, g->memory, NULL);
    }
    free(g->buffers);
    free(g->transfers);
    free(g->offsets);
    free(g);
}

/* Copies every buffer's init data to the device through a temporary staging buffer. */
static int upload(vkrt_graph *g, const vkrt_buffer *buffers, uint32_t n, char *err, size_t cap) {
    vkrt_device *d = g->dev;
    VkDeviceSize total = 0;
    for (uint32_t i = 0; i < n; i++) if (buffers[i].initial) total += round4(buffers[i].bytes);
    if (total == 0) return VKRT_OK;
    VkBuffer staging;
    VkDeviceMemory memory;
    VkMemoryPropertyFlags flags;
    int status = allocate(d, 1, &total, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, "weight upload", &staging, &memory, &flags, err, cap);
    if (status) return status;
    void *mapped = NULL;
    VkResult r = vk.vkMapMemory(d->device, memory, 0, VK_WHOLE_SIZE, 0, &mapped);
    if (r != VK_SUCCESS) {
        vk.vkDestroyBuffer(d->device, staging, NULL); vk.vkFreeMemory(d->device, memory, NULL);
        return vkrt_result(err, cap, r, "vkMapMemory(weight upload)");
    }
    VkBufferCopy *copies = calloc(n, sizeof *copies);
    if (!copies) status = vkrt_fail(err, cap, VKRT_OOM, "weight upload: out of host memory");
    VkDeviceSize offset = 0;
    for (uint32_t i = 0; status == VKRT_OK && i < n; i++) {
        if (!buffers[i].initial) continue;
        memcpy((unsigned char *)mapped + offset, buffers[i].initial, buffers[i].bytes);
        copies[i] = (VkBufferCopy){ .srcOffset = offset, .dstOffset = 0, .size = buffers[i].bytes };
        offset += round4(buffers[i].bytes);
    }
    if (status == VKRT_OK && !(flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)) {
        VkMappedMemoryRange range = { .sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, .memory = memory, .size = VK_WHOLE_SIZE };
        r = vk.vkFlushMappedMemoryRanges(d->device, 1, &range);
        if (r != VK_SUCCESS) status = vkrt_result(err, cap, r, "vkFlushMappedMemoryRanges");
    }
    if (status == VKRT_OK) {
        VkCommandBufferBeginInfo begin = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                           .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };
        r = vk.vkBeginCommandBuffer(g->command, &begin);
        if (r != VK_SUCCESS) status = vkrt_result(err, cap, r, "vkBeginCommandBuffer(weight upload)");
    }
    if (status == VKRT_OK) {
        for (uint32_t i = 0; i < n; i++) {
            if (buffers[i].initial) vk.vkCmdCopyBuffer(g->command, staging, g->buffers[i], 1, &copies[i]);
        }
        r = vk.vkEndCommandBuffer(g->command);
        if (r != VK_SUCCESS) status = vkrt_result(err, cap, r, "vkEndCommandBuffer(weight upload)");
    }
    if (status == VKRT_OK) status = submit_and_wait(d, g->command, g->fence, "weight upload", err, cap);
    free(copies);
    vk.vkUnmapMemory(d->device, memory);
    vk.vkDestroyBuffer(d->device, staging, NULL);
    vk.vkFreeMemory(d->device, memory, NULL);
    return status;
}

static void barrier(VkCommandBuffer cb, VkPipelineStageFlags src, VkAccessFlags src_access,
                    VkPipelineStageFlags dst, VkAccessFlags dst_access) {
    VkMemoryBarrier b = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = src_access, .dstAccessMask = dst_access };
    vk.vkCmdPipelineBarrier(cb, src, dst, 0, 1, &b, 0, NULL, 0, NULL);
}

static int record(vkrt_graph *g, const VkPipeline *pipelines, const vkrt_dispatch *ds, uint32_t n,
                  const VkDescriptorSet *sets, char *err, size_t cap) {
    vkrt_device *d = g->dev;
    VkCommandBufferBeginInfo begin = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
    VkResult r = vk.vkBeginCommandBuffer(g->command, &begin);
    if (r != VK_SUCCESS) return vkrt_result(err, cap, r, "vkBeginCommandBuffer");
    VkCommandBuffer cb = g->command;
    for (uint32_t k = 0; k < g->n_inputs; k++) {
        const vkrt_transfer *t = &g->transfers[k];
        VkBufferCopy copy = { .srcOffset = g->offsets[k], .dstOffset = 0, .size = transfer_bytes(t) };
        vk.vkCmdCopyBuffer(cb, g->staging, g->buffers[t->buffer], 1, &copy);
    }
    barrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT);
    const uint32_t *limit = d->props.limits.maxComputeWorkGroupCount;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t groups = (ds[i].invocations + 63) / 64;
        uint32_t gx = groups < limit[0] ? groups : limit[0];
        if (gx == 0) gx = 1;
        uint32_t gy = (groups + gx - 1) / gx;
        if (gy > limit[1]) {
            vk.vkEndCommandBuffer(cb);
            return vkrt_fail(err, cap, VKRT_UNSUPPORTED, "dispatch %u: %u work groups exceed the device's %u×%u", i, groups, limit[0], limit[1]);
        }
        int32_t push[16];
        memcpy(push, ds[i].push, sizeof push);
        push[0] = (int32_t)ds[i].invocations;
        vk.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines[i]);
        vk.vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, d->pipeline_layout, 0, 1, &sets[i], 0, NULL);
        vk.vkCmdPushConstants(cb, d->pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
        vk.vkCmdDispatch(cb, gx, gy ? gy : 1, 1);
        /* The next node may read what this one wrote. */
        barrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT);
    }
    for (uint32_t k = 0; k < g->n_outputs; k++) {
        const vkrt_transfer *t = &g->transfers[g->n_inputs + k];
        VkBufferCopy copy = { .srcOffset = 0, .dstOffset = g->offsets[g->n_inputs + k], .size = transfer_bytes(t) };
        vk.vkCmdCopyBuffer(cb, g->buffers[t->buffer], g->staging, 1, &copy);
    }
    barrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    r = vk.vkEndCommandBuffer(cb);
    if (r != VK_SUCCESS) return vkrt_result(err, cap, r, "vkEndCommandBuffer");
    return VKRT_OK;
}

static int build(vkrt_graph *g, const vkrt_kernel *kernels, uint32_t n_kernels,
                 const vkrt_buffer *buffers, uint32_t n_buffers,
                 const vkrt_dispatch *ds, uint32_t n_dispatches, char *err, size_t cap) {
    vkrt_device *d = g->dev;
    VkResult r;
    int status;
    /* Pipelines first: a shader the driver refuses fails before anything is allocated. */
    VkPipeline *pipelines = calloc(n_dispatches ? n_dispatches : 1, sizeof *pipelines);
    if (!pipelines) return vkrt_fail(err, cap, VKRT_OOM, "graph_prepare: out of host memory");
    pthread_mutex_lock(&d->lock);
    status = vkrt_device_ready(d, err, cap);
    for (uint32_t i = 0; status == VKRT_OK && i < n_dispatches; i++) {
        if (ds[i].kernel >= n_kernels) { status = vkrt_fail(err, cap, VKRT_INTERNAL, "dispatch %u names kernel %u of %u", i, ds[i].kernel, n_kernels); break; }
        status = vkrt_pipeline_get(d, &kernels[ds[i].kernel], ds[i].spec, &pipelines[i], err, cap);
    }
    pthread_mutex_unlock(&d->lock);
    if (status) { free(pipelines); return status; }

    VkDeviceSize limit = d->props.limits.maxStorageBufferRange;
    VkDeviceSize *sizes = calloc(n_buffers + 1, sizeof *sizes);
    g->buffers = calloc(n_buffers + 1, sizeof *g->buffers);
    if (!sizes || !g->buffers) { free(sizes); free(pipelines); return vkrt_fail(err, cap, VKRT_OOM, "graph_prepare: out of host memory"); }
    for (uint32_t i = 0; i < n_buffers; i++) {
        sizes[i] = round8(buffers[i].bytes ? buffers[i].bytes : 4);
        if (sizes[i] > limit) {
            free(sizes); free(pipelines);
            return vkrt_fail(err, cap, VKRT_UNSUPPORTED, "buffer %u needs %llu bytes; %s binds at most %llu (maxStorageBufferRange)",
                             i, (unsigned long long)sizes[i], d->info.device, (unsigned long long)limit);
        }
    }
    sizes[n_buffers] = 16;
    VkMemoryPropertyFlags flags;
    status = allocate(d, n_buffers + 1, sizes,
                      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
                      VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, "tensors and weights", g->buffers, &g->memory, &flags, err, cap);
    free(sizes);
    if (status) { free(pipelines); return status; }
    g->n_buffers = n_buffers + 1;

    /* Staging: every input, then every output, each 16-byte aligned. */
    uint32_t nt = g->n_inputs + g->n_outputs;
    VkDeviceSize staging_size = 0;
    for (uint32_t k = 0; k < nt; k++) {
        g->offsets[k] = staging_size;
        staging_size += (transfer_bytes(&g->transfers[k]) + 15) & ~(VkDeviceSize)15;
    }
    if (staging_size == 0) staging_size = 16;
    status = allocate(d, 1, &staging_size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
                      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                      "staging", &g->staging, &g->staging_memory, &flags, err, cap);
    if (status) { free(pipelines); return status; }
    g->coherent = (flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
    void *mapped = NULL;
    r = vk.vkMapMemory(d->device, g->staging_memory, 0, VK_WHOLE_SIZE, 0, &mapped);
    if (r != VK_SUCCESS) { free(pipelines); return vkrt_result(err, cap, r, "vkMapMemory(staging)"); }
    g->mapped = mapped;

    VkCommandPoolCreateInfo pool_info = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                          .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, .queueFamilyIndex = d->family };
    r = vk.vkCreateCommandPool(d->device, &pool_info, NULL, &g->command_pool);
    if (r != VK_SUCCESS) { free(pipelines); return vkrt_result(err, cap, r, "vkCreateCommandPool"); }
    VkCommandBufferAllocateInfo cb_info = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = g->command_pool,
                                            .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1 };
    r = vk.vkAllocateCommandBuffers(d->device, &cb_info, &g->command);
    if (r != VK_SUCCESS) { free(pipelines); return vkrt_result(err, cap, r, "vkAllocateCommandBuffers"); }
    VkFenceCreateInfo fence_info = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
    r = vk.vkCreateFence(d->device, &fence_info, NULL, &g->fence);
    if (r != VK_SUCCESS) { g->fence = VK_NULL_HANDLE; free(pipelines); return vkrt_result(err, cap, r, "vkCreateFence"); }

    status = upload(g, buffers, n_buffers, err, cap);
    if (status) { free(pipelines); return status; }

    uint32_t sets_wanted = n_dispatches ? n_dispatches : 1;
    VkDescriptorPoolSize pool_sizes[2] = {
        { .type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = 4 * sets_wanted },
        { .type = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, .descriptorCount = sets_wanted },
    };
    VkDescriptorPoolCreateInfo dp_info = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, .maxSets = sets_wanted,
                                           .poolSizeCount = 2, .pPoolSizes = pool_sizes };
    r = vk.vkCreateDescriptorPool(d->device, &dp_info, NULL, &g->pool);
    if (r != VK_SUCCESS) { free(pipelines); return vkrt_result(err, cap, r, "vkCreateDescriptorPool"); }
    VkDescriptorSet *sets = calloc(sets_wanted, sizeof *sets);
    VkDescriptorSetLayout *layouts = calloc(sets_wanted, sizeof *layouts);
    if (!sets || !layouts) { free(sets); free(layouts); free(pipelines); return vkrt_fail(err, cap, VKRT_OOM, "graph_prepare: out of host memory"); }
    for (uint32_t i = 0; i < sets_wanted; i++) layouts[i] = d->set_layout;
    if (n_dispatches > 0) {
        VkDescriptorSetAllocateInfo ds_info = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, .descriptorPool = g->pool,
                                                .descriptorSetCount = n_dispatches, .pSetLayouts = layouts };
        r = vk.vkAllocateDescriptorSets(d->device, &ds_info, sets);
        if (r != VK_SUCCESS) status = vkrt_result(err, cap, r, "vkAllocateDescriptorSets");
    }
    for (uint32_t i = 0; status == VKRT_OK && i < n_dispatches; i++) {
        VkDescriptorBufferInfo infos[5];
        VkWriteDescriptorSet writes[5];
        for (uint32_t b = 0; b < 4; b++) {
            uint32_t index = ds[i].bindings[b];
            if (index != VKRT_UNUSED && index >= n_buffers) {
                status = vkrt_fail(err, cap, VKRT_INTERNAL, "dispatch %u binding %u names buffer %u of %u", i, b, index, n_buffers);
                break;
            }
            infos[b] = (VkDescriptorBufferInfo){ .buffer = g->buffers[index == VKRT_UNUSED ? n_buffers : index], .offset = 0,
                                                 .range = VK_WHOLE_SIZE };
            writes[b] = (VkWriteDescriptorSet){ .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = sets[i], .dstBinding = b,
                                                .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                                .pBufferInfo = &infos[b] };
        }
        if (status != VKRT_OK) break;
        /* The weight window: binding 2 from its start, binding 4 (uniform) over its range. */
        infos[4] = (VkDescriptorBufferInfo){ .buffer = g->buffers[n_buffers], .offset = 0, .range = 16 };
        if (ds[i].window_offset || ds[i].window_range) {
            uint32_t index = ds[i].bindings[2];
            VkDeviceSize size = index < n_buffers ? round8(buffers[index].bytes ? buffers[index].bytes : 4) : 0;
            if (index >= n_buffers || ds[i].window_offset % VKRT_WINDOW_ALIGN || ds[i].window_offset >= size
                || ds[i].window_range > size - ds[i].window_offset || ds[i].window_range > d->props.limits.maxUniformBufferRange) {
                status = vkrt_fail(err, cap, VKRT_INTERNAL, "dispatch %u: window %llu+%llu does not fit its weight buffer",
                                   i, (unsigned long long)ds[i].window_offset, (unsigned long long)ds[i].window_range);
                break;
            }
            infos[2].offset = ds[i].window_offset;
            if (ds[i].window_range) {
                infos[4] = (VkDescriptorBufferInfo){ .buffer = g->buffers[index], .offset = ds[i].window_offset,
                                                     .range = ds[i].window_range };
            }
        }
        writes[4] = (VkWriteDescriptorSet){ .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = sets[i], .dstBinding = 4,
                                            .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
                                            .pBufferInfo = &infos[4] };
        vk.vkUpdateDescriptorSets(d->device, 5, writes, 0, NULL);
    }
    if (status == VKRT_OK) status = record(g, pipelines, ds, n_dispatches, sets, err, cap);
    free(sets);
    free(layouts);
    free(pipelines);
    return status;
}

int vkrt_graph_create(vkrt_context *ctx, uint32_t unit,
                      const vkrt_kernel *kernels, uint32_t n_kernels,
                      const vkrt_buffer *buffers, uint32_t n_buffers,
                      const vkrt_dispatch *dispatches, uint32_t n_dispatches,
                      const vkrt_transfer *inputs, uint32_t n_inputs,
                      const vkrt_transfer *outputs, uint32_t n_outputs,
                      vkrt_graph **out, char *err, size_t cap) {
    if (unit >= ctx->n_devices)
        return vkrt_fail(err, cap, VKRT_INVALID, "unit %u does not exist (the vulkan backend has %u units)", unit, ctx->n_devices);
    vkrt_graph *g = calloc(1, sizeof *g);
    uint32_t nt = n_inputs + n_outputs;
    if (g) {
        g->transfers = calloc(nt ? nt : 1, sizeof *g->transfers);
        g->offsets = calloc(nt ? nt : 1, sizeof *g->offsets);
    }
    if (!g || !g->transfers || !g->offsets) {
        if (g) { free(g->transfers); free(g->offsets); free(g); }
        return vkrt_fail(err, cap, VKRT_OOM, "graph_prepare: out of host memory");
    }
    g->dev = &ctx->devices[unit];
    g->n_inputs = n_inputs;
    g->n_outputs = n_outputs;
    if (n_inputs) memcpy(g->transfers, inputs, n_inputs * sizeof *inputs);
    if (n_outputs) memcpy(g->transfers + n_inputs, outputs, n_outputs * sizeof *outputs);
    for (uint32_t k = 0; k < nt; k++) {
        if (g->transfers[k].buffer >= n_buffers || (g->transfers[k].bits != 16 && g->transfers[k].bits != 32)) {
            vkrt_graph_destroy(g);
            return vkrt_fail(err, cap, VKRT_INTERNAL, "transfer %u names buffer %u of %u", k, g->transfers[k].buffer, n_buffers);
        }
    }
    int status = build(g, kernels, n_kernels, buffers, n_buffers, dispatches, n_dispatches, err, cap);
    if (status) { vkrt_graph_destroy(g); return status; }
    *out = g;
    return VKRT_OK;
}

int vkrt_graph_run(vkrt_graph *g, const int32_t *const *inputs, int32_t *const *outputs, char *err, size_t cap) {
    vkrt_device *d = g->dev;
    for (uint32_t k = 0; k < g->n_inputs; k++) {
        const vkrt_transfer *t = &g->transfers[k];
        unsigned char *dst = g->mapped + g->offsets[k];
        if (t->bits == 32) {
            memcpy(dst, inputs[k], t->count * 4);
        } else {
            int16_t *narrow = (int16_t *)dst;
            /* The host checked the values against the tensor's interval, inside int16. */
            for (uint64_t i = 0; i < t->count; i++) narrow[i] = (int16_t)inputs[k][i];
        }
    }
    VkMappedMemoryRange range = { .sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, .memory = g->staging_memory, .size = VK_WHOLE_SIZE };
    if (!g->coherent) {
        VkResult r = vk.vkFlushMappedMemoryRanges(d->device, 1, &range);
        if (r != VK_SUCCESS) return vkrt_result(err, cap, r, "vkFlushMappedMemoryRanges");
    }
    int status = submit_and_wait(d, g->command, g->fence, "graph_run", err, cap);
    if (status) return status;
    if (!g->coherent) {
        VkResult r = vk.vkInvalidateMappedMemoryRanges(d->device, 1, &range);
        if (r != VK_SUCCESS) return vkrt_result(err, cap, r, "vkInvalidateMappedMemoryRanges");
    }
    for (uint32_t k = 0; k < g->n_outputs; k++) {
        const vkrt_transfer *t = &g->transfers[g->n_inputs + k];
        const unsigned char *src = g->mapped + g->offsets[g->n_inputs + k];
        if (t->bits == 32) {
            memcpy(outputs[k], src, t->count * 4);
        } else {
            const int16_t *narrow = (const int16_t *)src;
            for (uint64_t i = 0; i < t->count; i++) outputs[k][i] = narrow[i];
        }
    }
    return VKRT_OK;
}
