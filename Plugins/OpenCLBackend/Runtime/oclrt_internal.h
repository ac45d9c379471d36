/* Internal to the OpenCL runtime: the dlopen'ed function table, the context and devices. */
#ifndef OCLRT_INTERNAL_H
#define OCLRT_INTERNAL_H

#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <pthread.h>
#include <stdarg.h>
#include "oclrt.h"
#include "../../VulkanBackend/Runtime/pci_identity.h"

#define OCLRT_MAX_PLATFORMS 16
#define OCLRT_MAX_DEVICES 64
#define OCLRT_MAX_PROGRAMS 64

/* wai_status values (Sources/BackendABI/include/wai_backend.h). */
enum { OCLRT_OK = 0, OCLRT_INVALID = 2, OCLRT_UNSUPPORTED = 3, OCLRT_NO_DEVICE = 4, OCLRT_OOM = 5, OCLRT_INTERNAL = 6 };

/* Every entry point the backend calls, all of OpenCL 1.2 (every ICD loader exports them). */
#define OCLRT_FUNCTIONS(X) \
    X(clGetPlatformIDs) X(clGetPlatformInfo) X(clGetDeviceIDs) X(clGetDeviceInfo) \
    X(clCreateContext) X(clReleaseContext) X(clCreateCommandQueue) X(clReleaseCommandQueue) \
    X(clCreateBuffer) X(clReleaseMemObject) \
    X(clCreateProgramWithSource) X(clCreateProgramWithBinary) X(clBuildProgram) X(clGetProgramInfo) \
    X(clGetProgramBuildInfo) X(clRetainProgram) X(clReleaseProgram) \
    X(clCreateKernel) X(clReleaseKernel) X(clSetKernelArg) X(clGetKernelWorkGroupInfo) \
    X(clEnqueueWriteBuffer) X(clEnqueueReadBuffer) X(clEnqueueNDRangeKernel) X(clFinish) \
    X(clGetEventInfo) X(clReleaseEvent)

typedef struct oclrt_fns {
#define OCLRT_MEMBER(name) __typeof__(&name) name;
    OCLRT_FUNCTIONS(OCLRT_MEMBER)
#undef OCLRT_MEMBER
} oclrt_fns;

extern oclrt_fns cl;

/* dlopen + dlsym of every function; the library is never closed. */
int oclrt_load(char *err, size_t cap);

/* libdrm's PCI devices (drm.c): 0 without libdrm.so.2 or without DRM devices. */

/* One device of one platform. Its context and program are made at the first prepare. */
typedef struct oclrt_device {
    cl_platform_id platform;
    cl_device_id id;
    oclrt_unit info;
    char platform_name[128], platform_version[256], device_version[128], driver_version[128];
    cl_ulong max_alloc;

    pthread_mutex_t lock;          /* context creation and the program */
    int lost;                      /* set on a failure that means the device is gone */
    int test_fail_enqueue;         /* WAI_OPENCL_TEST_HOOK=fail-enqueue (a test hook, README.md) */
    cl_context context;
    /* The programs built so far, one per (source, options); a kernel holds its own
     * reference, so an evicted program lives on in the graphs that use it. */
    struct oclrt_program_entry { char *source, *options; cl_program program; } programs[OCLRT_MAX_PROGRAMS];
    uint32_t n_programs, next_evict;
} oclrt_device;

struct oclrt_context {
    uint32_t n_devices;
    oclrt_device *devices;
};

int oclrt_fail(char *err, size_t cap, int status, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* A cl_int error as the status it means: memory → out_of_memory, device gone → no_device. */
int oclrt_error(char *err, size_t cap, cl_int code, const char *what);
const char *oclrt_error_name(cl_int code);

/* The device's program for `source` built with the base options and `options` (NULL: none),
 * built or loaded from the disk cache; caller holds d->lock. *out stays valid until the lock
 * is released (retain it to keep it). */
int oclrt_program(oclrt_device *d, const char *source, const char *options, cl_program *out, char *err, size_t cap);

#endif
