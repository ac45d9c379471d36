/* The ICD loader, opened at run time so that the plugin itself needs no libOpenCL. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "oclrt_internal.h"

oclrt_fns cl;

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static int loaded;

int oclrt_load(char *err, size_t cap) {
    pthread_mutex_lock(&load_lock);
    const char *name = getenv("WAI_OPENCL_LOADER");
    if (!name || !*name) name = "libOpenCL.so.1";
    /* A different WAI_OPENCL_LOADER set later is still opened, so that a missing one is
     * reported the same way in a process that had one; the first table stays. */
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib && loaded) { pthread_mutex_unlock(&load_lock); return OCLRT_OK; }
    if (!lib) {
        const char *why = dlerror();
        pthread_mutex_unlock(&load_lock);
        return oclrt_fail(err, cap, OCLRT_NO_DEVICE,
                          "no OpenCL ICD loader: dlopen(%s) failed: %s (Debian: apt-get install ocl-icd-libopencl1 pocl-opencl-icd)",
                          name, why ? why : "unknown error");
    }
    oclrt_fns table;
#define OCLRT_LOAD(fn) \
    table.fn = (__typeof__(&fn))dlsym(lib, #fn); \
    if (!table.fn) { pthread_mutex_unlock(&load_lock); \
        return oclrt_fail(err, cap, OCLRT_NO_DEVICE, "the OpenCL loader %s lacks %s (an OpenCL 1.2 loader is needed)", name, #fn); }
    OCLRT_FUNCTIONS(OCLRT_LOAD)
#undef OCLRT_LOAD
    cl = table;
    loaded = 1;
    pthread_mutex_unlock(&load_lock);
    return OCLRT_OK;
}

int oclrt_fail(char *err, size_t cap, int status, const char *fmt, ...) {
    if (err && cap > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, cap, fmt, ap);
        va_end(ap);
    }
    return status;
}

const char *oclrt_error_name(cl_int code) {
    switch (code) {
#define N(c) case c: return #c;
    N(CL_SUCCESS) N(CL_DEVICE_NOT_FOUND) N(CL_DEVICE_NOT_AVAILABLE) N(CL_COMPILER_NOT_AVAILABLE)
    N(CL_MEM_OBJECT_ALLOCATION_FAILURE) N(CL_OUT_OF_RESOURCES) N(CL_OUT_OF_HOST_MEMORY)
    N(CL_BUILD_PROGRAM_FAILURE) N(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) N(CL_INVALID_VALUE)
    N(CL_INVALID_PLATFORM) N(CL_INVALID_DEVICE) N(CL_INVALID_CONTEXT) N(CL_INVALID_COMMAND_QUEUE)
    N(CL_INVALID_MEM_OBJECT) N(CL_INVALID_BINARY) N(CL_INVALID_BUILD_OPTIONS) N(CL_INVALID_PROGRAM)
    N(CL_INVALID_PROGRAM_EXECUTABLE) N(CL_INVALID_KERNEL_NAME) N(CL_INVALID_KERNEL) N(CL_INVALID_ARG_INDEX)
    N(CL_INVALID_ARG_VALUE) N(CL_INVALID_ARG_SIZE) N(CL_INVALID_KERNEL_ARGS) N(CL_INVALID_WORK_DIMENSION)
    N(CL_INVALID_WORK_GROUP_SIZE) N(CL_INVALID_WORK_ITEM_SIZE) N(CL_INVALID_GLOBAL_OFFSET)
    N(CL_INVALID_EVENT) N(CL_INVALID_OPERATION) N(CL_INVALID_BUFFER_SIZE) N(CL_INVALID_GLOBAL_WORK_SIZE)
#undef N
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "cl_int error";
    }
}

int oclrt_error(char *err, size_t cap, cl_int code, const char *what) {
    int status;
    switch (code) {
    case CL_OUT_OF_HOST_MEMORY: case CL_OUT_OF_RESOURCES: case CL_MEM_OBJECT_ALLOCATION_FAILURE:
        status = OCLRT_OOM; break;
    case CL_DEVICE_NOT_FOUND: case CL_DEVICE_NOT_AVAILABLE: case CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST:
    case -1001:
        status = OCLRT_NO_DEVICE; break;
    case CL_COMPILER_NOT_AVAILABLE:
        status = OCLRT_UNSUPPORTED; break;
    default:
        status = OCLRT_INTERNAL; break;
    }
    return oclrt_fail(err, cap, status, "%s failed: %s (%d)", what, oclrt_error_name(code), (int)code);
}
