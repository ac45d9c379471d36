/*
 * oclrt — the OpenCL side of the OpenCL backend, in C because OpenCL's API is C's.
 * The Swift layer (Plugins/OpenCLBackend/Plugin) reads and validates the graph and turns it
 * into buffers and dispatches; this runtime owns every OpenCL object.
 *
 * libOpenCL (the ICD loader) is loaded with dlopen (libOpenCL.so.1, or $WAI_OPENCL_LOADER),
 * never linked, so the plugin loads on a machine without a loader and says so from open.
 * Every fallible call returns a wai_status value (0 = ok) and writes a message into err.
 */
#ifndef OCLRT_H
#define OCLRT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct oclrt_context oclrt_context;
typedef struct oclrt_graph oclrt_graph;

typedef struct oclrt_unit {
    uint32_t kind;            /* wai_unit_kind */
    uint32_t narrow;          /* 1: narrow tensors are stored as short */
    char device[128];
    char driver[128];
    uint64_t max_constant;    /* bytes of one __constant argument (CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE,
                                 lowered by WAI_OPENCL_CONSTANT_BYTES) */
} oclrt_unit;

/* Loads the ICD loader and lists every device of every platform. Environment:
 * WAI_OPENCL_LOADER (library to dlopen), WAI_OPENCL_NARROW=0 (store narrow tensors as int),
 * WAI_OPENCL_CONSTANT_BYTES=N (use at most N bytes of __constant memory per argument). */
int oclrt_open(oclrt_context **out, char *err, size_t err_cap);
void oclrt_close(oclrt_context *ctx);
uint32_t oclrt_unit_count(const oclrt_context *ctx);
int oclrt_unit_info(const oclrt_context *ctx, uint32_t unit, oclrt_unit *out, char *err, size_t err_cap);

typedef struct oclrt_buffer {
    uint64_t bytes;           /* > 0 */
    const void *initial;      /* uploaded once at create (weights, tables); NULL: none */
} oclrt_buffer;

#define OCLRT_UNUSED 0xFFFFFFFFu

/* Every kernel of the program has the same seven arguments: buffers 0–5 (a small dummy
 * where the kernel reads none) and an int16 of parameters; params[0] is the item count. */
#define OCLRT_BUFFER_ARGS 6
typedef struct oclrt_dispatch {
    const char *kernel;
    /* The program the kernel is in: NULL, the graph's source built with the base options;
     * else this source built with the base options and `options` (-D constants, e.g. a
     * convolution's taps: docs/gpu-kernels.md §5), each built once per device and cached. */
    const char *source;
    const char *options;
    uint32_t buffers[OCLRT_BUFFER_ARGS];
    uint64_t items;
    int32_t params[16];
} oclrt_dispatch;

typedef struct oclrt_transfer {
    uint32_t buffer;          /* buffer index */
    uint32_t bits;            /* 16 or 32: the buffer's element width */
    uint64_t count;           /* elements */
} oclrt_transfer;

/* Builds (or loads from the disk cache) the program of `source` on the unit's device once,
 * creates the buffers (uploading their initial data), an in-order queue and one kernel
 * object per dispatch with its arguments set. */
int oclrt_graph_create(oclrt_context *ctx, uint32_t unit, const char *source,
                       const oclrt_buffer *buffers, uint32_t n_buffers,
                       const oclrt_dispatch *dispatches, uint32_t n_dispatches,
                       const oclrt_transfer *inputs, uint32_t n_inputs,
                       const oclrt_transfer *outputs, uint32_t n_outputs,
                       oclrt_graph **out, char *err, size_t err_cap);

/* One submission: writes, every kernel in order, reads, one clFinish.
 * inputs[k]/outputs[k]: int32 host arrays of the transfer's count. */
int oclrt_graph_run(oclrt_graph *graph, const int32_t *const *inputs, int32_t *const *outputs,
                    char *err, size_t err_cap);
void oclrt_graph_destroy(oclrt_graph *graph);

/* The driver identity string (pure; tested alone): "PLATFORM PVERSION; device DVERSION;
 * driver VERSION" + pci suffix, within cap - 1 characters, cutting the platform's free text
 * first and keeping the device version, the driver version and the PCI identity whole. */
void oclrt_format_driver(char *out, size_t cap, const char *platform, const char *platform_version,
                         const char *device_version, const char *driver_version, const char *pci);

#ifdef __cplusplus
}
#endif

#endif
