/*
 * vkrt — the Vulkan side of the Vulkan backend, in C because Vulkan's structs are C's.
 * The Swift layer (Plugins/VulkanBackend/Plugin) reads and validates the graph and turns it
 * into buffers and dispatches; this runtime owns every Vulkan object.
 *
 * libvulkan is loaded with dlopen (libvulkan.so.1, or $WAI_VULKAN_LOADER), never linked, so
 * the plugin loads on a machine without a loader and says so from open.
 * Every fallible call returns a wai_status value (0 = ok) and writes a message into err.
 */
#ifndef VKRT_H
#define VKRT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vkrt_context vkrt_context;
typedef struct vkrt_graph vkrt_graph;

typedef struct vkrt_unit {
    uint32_t kind;            /* wai_unit_kind */
    uint32_t narrow;          /* 1: narrow tensors (storageBuffer16BitAccess and shaderInt64) */
    uint32_t uniform_range;   /* maxUniformBufferRange: the most a dispatch's uniform window spans */
    char device[128];
    char driver[128];
} vkrt_unit;

/* Loads the loader, creates an instance, lists the physical devices. Environment:
 * WAI_VULKAN_LOADER (library to dlopen), WAI_VULKAN_NARROW=0 (store narrow tensors as int32). */
int vkrt_open(vkrt_context **out, char *err, size_t err_cap);
void vkrt_close(vkrt_context *ctx);
uint32_t vkrt_unit_count(const vkrt_context *ctx);
int vkrt_unit_info(const vkrt_context *ctx, uint32_t unit, vkrt_unit *out, char *err, size_t err_cap);

typedef struct vkrt_kernel {
    const char *name;
    const uint32_t *code;     /* SPIR-V words */
    size_t words;
} vkrt_kernel;

typedef struct vkrt_buffer {
    uint64_t bytes;           /* > 0 */
    const void *initial;      /* uploaded once at create (weights, tables); NULL: none */
} vkrt_buffer;

#define VKRT_UNUSED 0xFFFFFFFFu

/* Binding 4 and the start of binding 2 are a window of bindings[2]'s buffer: binding 2 (storage)
 * from window_offset to the end, binding 4 (uniform) window_offset … + window_range. Offsets
 * are multiples of VKRT_WINDOW_ALIGN (the largest minimum offset alignment Vulkan allows). */
#define VKRT_WINDOW_ALIGN 256u

typedef struct vkrt_dispatch {
    uint32_t kernel;          /* index into the kernels array */
    uint32_t bindings[4];     /* buffer index per binding, VKRT_UNUSED where the kernel has none */
    uint32_t invocations;     /* also push[0] */
    int32_t push[16];
    int32_t spec[4];          /* specialization constants 0…3 (a pipeline per kernel and values) */
    uint64_t window_offset;   /* bytes; 0 for kernels without a window */
    uint64_t window_range;    /* bytes of binding 4; 0: binding 4 is unused */
} vkrt_dispatch;

typedef struct vkrt_transfer {
    uint32_t buffer;          /* buffer index */
    uint32_t bits;            /* 16 or 32: the buffer's element width */
    uint64_t count;           /* elements */
} vkrt_transfer;

/* Creates buffers (device-local), uploads the init data, builds pipelines (cached per
 * device), and records the one command buffer every run submits: host staging → inputs,
 * the dispatches in order with a barrier after each, outputs → host staging. */
int vkrt_graph_create(vkrt_context *ctx, uint32_t unit,
                      const vkrt_kernel *kernels, uint32_t n_kernels,
                      const vkrt_buffer *buffers, uint32_t n_buffers,
                      const vkrt_dispatch *dispatches, uint32_t n_dispatches,
                      const vkrt_transfer *inputs, uint32_t n_inputs,
                      const vkrt_transfer *outputs, uint32_t n_outputs,
                      vkrt_graph **out, char *err, size_t err_cap);

/* One submission. inputs[k]/outputs[k]: int32 host arrays of the transfer's count. */
int vkrt_graph_run(vkrt_graph *graph, const int32_t *const *inputs, int32_t *const *outputs,
                   char *err, size_t err_cap);
void vkrt_graph_destroy(vkrt_graph *graph);

#ifdef __cplusplus
}
#endif

#endif
