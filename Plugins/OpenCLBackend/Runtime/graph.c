/* A prepared graph: its buffers (weights uploaded at creation), an in-order queue of its
 * own, and one kernel object per dispatch with its arguments set once. A run enqueues the
 * input writes, every kernel and the output reads, and waits once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "oclrt_internal.h"

#define OCLRT_LOCAL 64

struct oclrt_graph {
    oclrt_device *dev;
    cl_command_queue queue;
    uint32_t n_buffers;                 /* the caller's buffers, then one dummy */
    cl_mem *buffers;
    uint32_t n_kernels;
    cl_kernel *kernels;
    size_t *global, *local;
    uint32_t n_inputs, n_outputs;
    oclrt_transfer *transfers;          /* inputs, then outputs */
    int16_t **narrow;                   /* host staging of each 16-bit transfer, else NULL */
};

static uint64_t transfer_bytes(const oclrt_transfer *t) { return t->count * (t->bits / 8); }

void oclrt_graph_destroy(oclrt_graph *g) {
    if (!g) return;
    if (g->queue) cl.clFinish(g->queue);
    for (uint32_t i = 0; g->kernels && i < g->n_kernels; i++) if (g->kernels[i]) cl.clReleaseKernel(g->kernels[i]);
    for (uint32_t i = 0; g->buffers && i < g->n_buffers; i++) if (g->buffers[i]) cl.clReleaseMemObject(g->buffers[i]);
    if (g->queue) cl.clReleaseCommandQueue(g->queue);
    for (uint32_t k = 0; g->narrow && k < g->n_inputs + g->n_outputs; k++) free(g->narrow[k]);
    free(g->narrow);
    free(g->kernels);
    free(g->global);
    free(g->local);
    free(g->buffers);
    free(g->transfers);
    free(g);
}

/* A failure that means the device is gone: it is refused from now on. */
static int device_error(oclrt_device *d, char *err, size_t cap, cl_int r, const char *what) {
    int status = oclrt_error(err, cap, r, what);
    if (status == OCLRT_NO_DEVICE) {
        pthread_mutex_lock(&d->lock);
        d->lost = 1;
        pthread_mutex_unlock(&d->lock);
    }
    return status;
}

static int build_objects(oclrt_graph *g, cl_program *programs, const oclrt_buffer *buffers, uint32_t n_buffers,
                         const oclrt_dispatch *ds, uint32_t n_dispatches, char *err, size_t cap);

static int build(oclrt_graph *g, const char *source, const oclrt_buffer *buffers, uint32_t n_buffers,
                 const oclrt_dispatch *ds, uint32_t n_dispatches, char *err, size_t cap) {
    oclrt_device *d = g->dev;
    for (uint32_t i = 0; i < n_buffers; i++) {
        if (buffers[i].bytes > d->max_alloc)
            return oclrt_fail(err, cap, OCLRT_UNSUPPORTED,
                              "buffer %u needs %llu bytes; %s allocates at most %llu per buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                              i, (unsigned long long)buffers[i].bytes, d->info.device, (unsigned long long)d->max_alloc);
    }
    /* The programs first (the graph's source, then each dispatch's own): a kernel the
     * compiler refuses fails before anything is allocated. Each is retained under the lock:
     * another graph's build may evict it from the device's table. */
    cl_program *programs = calloc(n_dispatches + 1, sizeof *programs);
    if (!programs) return oclrt_fail(err, cap, OCLRT_OOM, "graph_prepare: out of host memory");
    pthread_mutex_lock(&d->lock);
    int status = oclrt_program(d, source, NULL, &programs[n_dispatches], err, cap);
    if (status == OCLRT_OK) cl.clRetainProgram(programs[n_dispatches]);
    for (uint32_t i = 0; status == OCLRT_OK && i < n_dispatches; i++) {
        if (!ds[i].source) { programs[i] = programs[n_dispatches]; cl.clRetainProgram(programs[i]); continue; }
        status = oclrt_program(d, ds[i].source, ds[i].options, &programs[i], err, cap);
        if (status == OCLRT_OK) cl.clRetainProgram(programs[i]);
    }
    pthread_mutex_unlock(&d->lock);
    if (status == OCLRT_OK) status = build_objects(g, programs, buffers, n_buffers, ds, n_dispatches, err, cap);
    for (uint32_t i = 0; i <= n_dispatches; i++) if (programs[i]) cl.clReleaseProgram(programs[i]);
    free(programs);
    return status;
}

static int build_objects(oclrt_graph *g, cl_program *programs, const oclrt_buffer *buffers, uint32_t n_buffers,
                         const oclrt_dispatch *ds, uint32_t n_dispatches, char *err, size_t cap) {
    oclrt_device *d = g->dev;
    cl_int r;
    g->queue = cl.clCreateCommandQueue(d->context, d->id, 0, &r);
    if (r != CL_SUCCESS || !g->queue) { g->queue = NULL; return device_error(d, err, cap, r, "clCreateCommandQueue"); }

    g->buffers = calloc(n_buffers + 1, sizeof *g->buffers);
    if (!g->buffers) return oclrt_fail(err, cap, OCLRT_OOM, "graph_prepare: out of host memory");
    g->n_buffers = n_buffers + 1;
    for (uint32_t i = 0; i <= n_buffers; i++) {
        int dummy = i == n_buffers;
        size_t bytes = dummy || buffers[i].bytes == 0 ? 16 : (size_t)buffers[i].bytes;
        const void *initial = dummy ? NULL : buffers[i].initial;
        cl_mem_flags flags = initial ? CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR : CL_MEM_READ_WRITE;
        g->buffers[i] = cl.clCreateBuffer(d->context, flags, bytes, (void *)initial, &r);
        if (r != CL_SUCCESS || !g->buffers[i]) {
            g->buffers[i] = NULL;
            char what[96];
            snprintf(what, sizeof what, "clCreateBuffer(buffer %u, %zu bytes)", i, bytes);
            return device_error(d, err, cap, r, what);
        }
    }

    g->kernels = calloc(n_dispatches ? n_dispatches : 1, sizeof *g->kernels);
    g->global = calloc(n_dispatches ? n_dispatches : 1, sizeof *g->global);
    g->local = calloc(n_dispatches ? n_dispatches : 1, sizeof *g->local);
    if (!g->kernels || !g->global || !g->local) return oclrt_fail(err, cap, OCLRT_OOM, "graph_prepare: out of host memory");
    g->n_kernels = n_dispatches;
    for (uint32_t i = 0; i < n_dispatches; i++) {
        char what[128];
        g->kernels[i] = cl.clCreateKernel(programs[i], ds[i].kernel, &r);
        if (r != CL_SUCCESS || !g->kernels[i]) {
            g->kernels[i] = NULL;
            snprintf(what, sizeof what, "clCreateKernel(%s)", ds[i].kernel);
            return oclrt_error(err, cap, r, what);
        }
        for (cl_uint b = 0; b < OCLRT_BUFFER_ARGS; b++) {
            uint32_t index = ds[i].buffers[b];
            if (index != OCLRT_UNUSED && index >= n_buffers)
                return oclrt_fail(err, cap, OCLRT_INTERNAL, "dispatch %u argument %u names buffer %u of %u", i, b, index, n_buffers);
            cl_mem m = g->buffers[index == OCLRT_UNUSED ? n_buffers : index];
            r = cl.clSetKernelArg(g->kernels[i], b, sizeof m, &m);
            if (r != CL_SUCCESS) { snprintf(what, sizeof what, "clSetKernelArg(%s, %u)", ds[i].kernel, b); return oclrt_error(err, cap, r, what); }
        }
        cl_int16 params;
        memcpy(&params, ds[i].params, sizeof params);
        if (ds[i].items > (uint64_t)INT32_MAX)
            return oclrt_fail(err, cap, OCLRT_UNSUPPORTED, "dispatch %u (%s): %llu work items exceed 2^31 - 1", i, ds[i].kernel,
                              (unsigned long long)ds[i].items);
        params.s[0] = (cl_int)ds[i].items;
        r = cl.clSetKernelArg(g->kernels[i], OCLRT_BUFFER_ARGS, sizeof params, &params);
        if (r != CL_SUCCESS) { snprintf(what, sizeof what, "clSetKernelArg(%s, %d)", ds[i].kernel, OCLRT_BUFFER_ARGS); return oclrt_error(err, cap, r, what); }
        /* Work-groups of 64 where the kernel allows (a multiple of every GPU's SIMD width);
         * the global size is rounded up and the kernels ignore the items past the count. */
        size_t most = 0;
        if (cl.clGetKernelWorkGroupInfo(g->kernels[i], d->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof most, &most, NULL) != CL_SUCCESS || most == 0)
            most = 1;
        size_t local = most < OCLRT_LOCAL ? most : OCLRT_LOCAL;
        /* The tiled kernels (docs/gpu-kernels.md §5, §8: the programs built with options)
         * are written for work-groups of exactly 64 items: a device that cannot run 64 is refused. */
        if (ds[i].options && local != OCLRT_LOCAL)
            return oclrt_fail(err, cap, OCLRT_UNSUPPORTED, "dispatch %u (%s): the kernel needs work-groups of %d items, the device runs at most %zu",
                              i, ds[i].kernel, OCLRT_LOCAL, most);
        size_t items = ds[i].items ? (size_t)ds[i].items : 1;
        g->local[i] = local;
        g->global[i] = (items + local - 1) / local * local;
    }

    uint32_t nt = g->n_inputs + g->n_outputs;
    g->narrow = calloc(nt ? nt : 1, sizeof *g->narrow);
    if (!g->narrow) return oclrt_fail(err, cap, OCLRT_OOM, "graph_prepare: out of host memory");
    for (uint32_t k = 0; k < nt; k++) {
        if (g->transfers[k].bits != 16) continue;
        g->narrow[k] = malloc(g->transfers[k].count ? g->transfers[k].count * 2 : 2);
        if (!g->narrow[k]) return oclrt_fail(err, cap, OCLRT_OOM, "graph_prepare: out of host memory");
    }
    return OCLRT_OK;
}

int oclrt_graph_create(oclrt_context *ctx, uint32_t unit, const char *source,
                       const oclrt_buffer *buffers, uint32_t n_buffers,
                       const oclrt_dispatch *dispatches, uint32_t n_dispatches,
                       const oclrt_transfer *inputs, uint32_t n_inputs,
                       const oclrt_transfer *outputs, uint32_t n_outputs,
                       oclrt_graph **out, char *err, size_t cap) {
    if (unit >= ctx->n_devices)
        return oclrt_fail(err, cap, OCLRT_INVALID, "unit %u does not exist (the opencl backend has %u units)", unit, ctx->n_devices);
    oclrt_graph *g = calloc(1, sizeof *g);
    uint32_t nt = n_inputs + n_outputs;
    if (g) g->transfers = calloc(nt ? nt : 1, sizeof *g->transfers);
    if (!g || !g->transfers) { free(g); return oclrt_fail(err, cap, OCLRT_OOM, "graph_prepare: out of host memory"); }
    g->dev = &ctx->devices[unit];
    g->n_inputs = n_inputs;
    g->n_outputs = n_outputs;
    if (n_inputs) memcpy(g->transfers, inputs, n_inputs * sizeof *inputs);
    if (n_outputs) memcpy(g->transfers + n_inputs, outputs, n_outputs * sizeof *outputs);
    for (uint32_t k = 0; k < nt; k++) {
        const oclrt_transfer *t = &g->transfers[k];
        if (t->buffer >= n_buffers || (t->bits != 16 && t->bits != 32) || transfer_bytes(t) > buffers[t->buffer].bytes) {
            oclrt_graph_destroy(g);
            return oclrt_fail(err, cap, OCLRT_INTERNAL, "transfer %u names buffer %u of %u with %llu elements of %u bits", k,
                              t->buffer, n_buffers, (unsigned long long)t->count, t->bits);
        }
    }
    int status = build(g, source, buffers, n_buffers, dispatches, n_dispatches, err, cap);
    if (status) { oclrt_graph_destroy(g); return status; }
    *out = g;
    return OCLRT_OK;
}

int oclrt_graph_run(oclrt_graph *g, const int32_t *const *inputs, int32_t *const *outputs, char *err, size_t cap) {
    oclrt_device *d = g->dev;
    if (d->lost) return oclrt_fail(err, cap, OCLRT_NO_DEVICE, "%s: the device failed earlier and is no longer used", d->info.device);
    cl_int r;
    char what[96];
    for (uint32_t k = 0; k < g->n_inputs; k++) {
        const oclrt_transfer *t = &g->transfers[k];
        const void *src = inputs[k];
        if (t->bits == 16) {
            /* The host checked the values against the tensor's interval, inside int16. */
            for (uint64_t i = 0; i < t->count; i++) g->narrow[k][i] = (int16_t)inputs[k][i];
            src = g->narrow[k];
        }
        r = cl.clEnqueueWriteBuffer(g->queue, g->buffers[t->buffer], CL_FALSE, 0, transfer_bytes(t), src, 0, NULL, NULL);
        if (r != CL_SUCCESS) { snprintf(what, sizeof what, "clEnqueueWriteBuffer(input %u)", k); cl.clFinish(g->queue); return device_error(d, err, cap, r, what); }
    }
    for (uint32_t i = 0; i < g->n_kernels; i++) {
        /* WAI_OPENCL_TEST_HOOK=fail-enqueue: a work-group size that does not divide the global
         * size, so the driver itself refuses the enqueue (CL_INVALID_WORK_GROUP_SIZE). */
        size_t wrong = g->global[i] + 1;
        const size_t *local = d->test_fail_enqueue && i == 0 ? &wrong : &g->local[i];
        r = cl.clEnqueueNDRangeKernel(g->queue, g->kernels[i], 1, NULL, &g->global[i], local, 0, NULL, NULL);
        if (r != CL_SUCCESS) { snprintf(what, sizeof what, "clEnqueueNDRangeKernel(dispatch %u)", i); cl.clFinish(g->queue); return device_error(d, err, cap, r, what); }
    }
    cl_event last = NULL;
    for (uint32_t k = 0; k < g->n_outputs; k++) {
        const oclrt_transfer *t = &g->transfers[g->n_inputs + k];
        void *dst = t->bits == 16 ? (void *)g->narrow[g->n_inputs + k] : (void *)outputs[k];
        if (last) { cl.clReleaseEvent(last); last = NULL; }
        r = cl.clEnqueueReadBuffer(g->queue, g->buffers[t->buffer], CL_FALSE, 0, transfer_bytes(t), dst, 0, NULL, &last);
        if (r != CL_SUCCESS) { snprintf(what, sizeof what, "clEnqueueReadBuffer(output %u)", k); cl.clFinish(g->queue); return device_error(d, err, cap, r, what); }
    }
    r = cl.clFinish(g->queue);
    cl_int exec = CL_COMPLETE;
    if (last) {
        if (r == CL_SUCCESS && cl.clGetEventInfo(last, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL) != CL_SUCCESS) exec = CL_COMPLETE;
        cl.clReleaseEvent(last);
    }
    if (r != CL_SUCCESS) return device_error(d, err, cap, r, "clFinish(graph_run)");
    /* A negative status is the error of a command that did not complete (often a device that
     * stopped responding); the outputs are then not the graph's. */
    if (exec < 0) return device_error(d, err, cap, exec == CL_OUT_OF_RESOURCES || exec == CL_OUT_OF_HOST_MEMORY ? exec
                                      : CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, "graph_run");
    for (uint32_t k = 0; k < g->n_outputs; k++) {
        const oclrt_transfer *t = &g->transfers[g->n_inputs + k];
        if (t->bits != 16) continue;
        const int16_t *narrow = g->narrow[g->n_inputs + k];
        for (uint64_t i = 0; i < t->count; i++) outputs[k][i] = narrow[i];
    }
    return OCLRT_OK;
}
