/* The platforms and their devices as units, and each device's context. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "oclrt_internal.h"

static uint32_t unit_kind(cl_device_type type) {
    if (type & CL_DEVICE_TYPE_GPU) return 1;   /* WAI_UNIT_GPU */
    if (type & CL_DEVICE_TYPE_CPU) return 0;   /* WAI_UNIT_CPU, e.g. PoCL, Intel's CPU runtime */
    return 2;                                  /* WAI_UNIT_OTHER: accelerators, custom devices */
}

/* A string property, "" where the driver refuses or the value does not fit. */
static void device_string(cl_device_id d, cl_device_info what, char *out, size_t cap) {
    size_t got = 0;
    out[0] = 0;
    if (cl.clGetDeviceInfo(d, what, cap, out, &got) != CL_SUCCESS || got == 0 || got > cap) out[0] = 0;
    out[cap - 1] = 0;
}

static void platform_string(cl_platform_id p, cl_platform_info what, char *out, size_t cap) {
    size_t got = 0;
    out[0] = 0;
    if (cl.clGetPlatformInfo(p, what, cap, out, &got) != CL_SUCCESS || got == 0 || got > cap) out[0] = 0;
    out[cap - 1] = 0;
}

/* Whether the device lists `name` among its extensions (a space-separated list). */
static int has_extension(cl_device_id d, const char *name) {
    size_t size = 0;
    if (cl.clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, 0, NULL, &size) != CL_SUCCESS || size == 0 || size > (1 << 20)) return 0;
    char *all = calloc(size + 1, 1);
    if (!all) return 0;
    int found = 0;
    if (cl.clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, size, all, NULL) == CL_SUCCESS) {
        size_t n = strlen(name);
        for (char *p = all; (p = strstr(p, name)) != NULL; p += n) {
            if ((p == all || p[-1] == ' ') && (p[n] == 0 || p[n] == ' ')) { found = 1; break; }
        }
    }
    free(all);
    return found;
}

/* " pci …" where the device reports its PCI address (cl_khr_pci_bus_info, else NVIDIA's
 * cl_nv_device_attribute_query) and libdrm lists a device of the same PCI vendor there. */
static void pci_identity(cl_device_id d, const vkrt_pci_node *nodes, size_t n_nodes, char *out, size_t cap) {
    out[0] = 0;
    if (n_nodes == 0) return;
    cl_uint vendor = 0;
    if (cl.clGetDeviceInfo(d, CL_DEVICE_VENDOR_ID, sizeof vendor, &vendor, NULL) != CL_SUCCESS) return;
    if (has_extension(d, "cl_khr_pci_bus_info")) {
        cl_device_pci_bus_info_khr bus;
        if (cl.clGetDeviceInfo(d, CL_DEVICE_PCI_BUS_INFO_KHR, sizeof bus, &bus, NULL) == CL_SUCCESS) {
            vkrt_pci_suffix(nodes, n_nodes, bus.pci_domain, bus.pci_bus, bus.pci_device, bus.pci_function, vendor, out, cap);
            return;
        }
    }
    if (has_extension(d, "cl_nv_device_attribute_query")) {
        /* CL_DEVICE_PCI_BUS_ID_NV, CL_DEVICE_PCI_SLOT_ID_NV (device << 3 | function), CL_DEVICE_PCI_DOMAIN_ID_NV. */
        cl_uint bus = 0, slot = 0, domain = 0;
        if (cl.clGetDeviceInfo(d, 0x4008, sizeof bus, &bus, NULL) != CL_SUCCESS ||
            cl.clGetDeviceInfo(d, 0x4009, sizeof slot, &slot, NULL) != CL_SUCCESS) return;
        if (cl.clGetDeviceInfo(d, 0x400A, sizeof domain, &domain, NULL) != CL_SUCCESS) domain = 0;
        vkrt_pci_suffix(nodes, n_nodes, domain, bus, slot >> 3, slot & 7, vendor, out, cap);
    }
}

static void describe(oclrt_context *ctx, oclrt_device *d, int allow_narrow, cl_ulong constant_cap, const vkrt_pci_node *nodes, size_t n_nodes) {
    (void)ctx;
    cl_device_type type = 0;
    if (cl.clGetDeviceInfo(d->id, CL_DEVICE_TYPE, sizeof type, &type, NULL) != CL_SUCCESS) type = 0;
    d->info.kind = unit_kind(type);
    device_string(d->id, CL_DEVICE_NAME, d->info.device, sizeof d->info.device);
    /* Names are padded with blanks by some drivers. */
    for (size_t n = strlen(d->info.device); n > 0 && d->info.device[n - 1] == ' '; n--) d->info.device[n - 1] = 0;
    if (!d->info.device[0]) snprintf(d->info.device, sizeof d->info.device, "OpenCL device");
    platform_string(d->platform, CL_PLATFORM_NAME, d->platform_name, sizeof d->platform_name);
    platform_string(d->platform, CL_PLATFORM_VERSION, d->platform_version, sizeof d->platform_version);
    device_string(d->id, CL_DEVICE_VERSION, d->device_version, sizeof d->device_version);
    device_string(d->id, CL_DRIVER_VERSION, d->driver_version, sizeof d->driver_version);
    char pci[96];
    pci_identity(d->id, nodes, n_nodes, pci, sizeof pci);
    oclrt_format_driver(d->info.driver, sizeof d->info.driver, d->platform_name, d->platform_version,
                        d->device_version, d->driver_version, pci);
    if (cl.clGetDeviceInfo(d->id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof d->max_alloc, &d->max_alloc, NULL) != CL_SUCCESS)
        d->max_alloc = 128u << 20; /* the smallest the spec allows any device */
    /* docs/gpu-kernels.md §5: convolution weights go to __constant memory where they fit. */
    cl_ulong constant = 0;
    if (cl.clGetDeviceInfo(d->id, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, sizeof constant, &constant, NULL) != CL_SUCCESS)
        constant = 64u << 10; /* the smallest the spec allows a full profile device */
    d->info.max_constant = constant < constant_cap ? constant : constant_cap;
    /* short is a core storage type of OpenCL C: every device stores narrow tensors as
     * short unless WAI_OPENCL_NARROW=0 asks for int. */
    d->info.narrow = (uint32_t)allow_narrow;
}

int oclrt_open(oclrt_context **out, char *err, size_t cap) {
    int status = oclrt_load(err, cap);
    if (status) return status;
    cl_uint n_platforms = 0;
    cl_int r = cl.clGetPlatformIDs(0, NULL, &n_platforms);
    if (r == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (r == CL_SUCCESS && n_platforms == 0))
        return oclrt_fail(err, cap, OCLRT_NO_DEVICE,
                          "no OpenCL platform: the ICD loader found no driver (no .icd file in /etc/OpenCL/vendors or OCL_ICD_VENDORS; Debian: apt-get install pocl-opencl-icd)");
    if (r != CL_SUCCESS) return oclrt_error(err, cap, r, "clGetPlatformIDs");
    if (n_platforms > OCLRT_MAX_PLATFORMS) n_platforms = OCLRT_MAX_PLATFORMS;
    cl_platform_id platforms[OCLRT_MAX_PLATFORMS];
    r = cl.clGetPlatformIDs(n_platforms, platforms, NULL);
    if (r != CL_SUCCESS) return oclrt_error(err, cap, r, "clGetPlatformIDs");

    cl_platform_id owner[OCLRT_MAX_DEVICES];
    cl_device_id ids[OCLRT_MAX_DEVICES];
    uint32_t n = 0;
    char skipped[256] = "";
    for (cl_uint p = 0; p < n_platforms && n < OCLRT_MAX_DEVICES; p++) {
        cl_uint count = 0;
        r = cl.clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, OCLRT_MAX_DEVICES - n, ids + n, &count);
        if (r == CL_DEVICE_NOT_FOUND) continue;
        if (r != CL_SUCCESS) {
            /* One broken platform does not hide the others; it is named if none is left. */
            char name[96];
            platform_string(platforms[p], CL_PLATFORM_NAME, name, sizeof name);
            snprintf(skipped, sizeof skipped, "; platform %s: clGetDeviceIDs failed: %s (%d)", name, oclrt_error_name(r), (int)r);
            continue;
        }
        if (count > OCLRT_MAX_DEVICES - n) count = OCLRT_MAX_DEVICES - n;
        for (cl_uint k = 0; k < count; k++) owner[n + k] = platforms[p];
        n += count;
    }
    if (n == 0)
        return oclrt_fail(err, cap, OCLRT_NO_DEVICE, "no OpenCL device: %u platform%s list no device%s", n_platforms,
                          n_platforms == 1 ? "" : "s", skipped);

    /* Test hook (README.md, "Environment"): only the exact value arms it; any other value
     * refuses to open, so a stray setting cannot silently break a user's decodes. */
    const char *hook = getenv("WAI_OPENCL_TEST_HOOK");
    int fail_enqueue = 0;
    if (hook && *hook) {
        if (strcmp(hook, "fail-enqueue") != 0)
            return oclrt_fail(err, cap, OCLRT_INVALID, "WAI_OPENCL_TEST_HOOK=%.64s is not a test hook of the opencl backend (the only one is fail-enqueue)", hook);
        fail_enqueue = 1;
    }

    oclrt_context *ctx = calloc(1, sizeof *ctx);
    oclrt_device *devices = calloc(n, sizeof *devices);
    if (!ctx || !devices) { free(ctx); free(devices); return oclrt_fail(err, cap, OCLRT_OOM, "open: out of host memory"); }
    /* WAI_OPENCL_CONSTANT_BYTES (README.md, "Environment"): lowers the __constant bytes per
     * argument the convolutions use, never raises them; anything but decimal digits refuses. */
    cl_ulong constant_cap = ~(cl_ulong)0;
    const char *cb = getenv("WAI_OPENCL_CONSTANT_BYTES");
    if (cb && *cb) {
        cl_ulong v = 0;
        for (const char *c = cb; *c; c++) {
            if (*c < '0' || *c > '9' || v > ((cl_ulong)1 << 40)) {
                free(ctx); free(devices);
                return oclrt_fail(err, cap, OCLRT_INVALID, "WAI_OPENCL_CONSTANT_BYTES=%.32s is not a byte count (decimal digits, at most 2^40)", cb);
            }
            v = v * 10 + (cl_ulong)(*c - '0');
        }
        constant_cap = v;
    }
    const char *narrow = getenv("WAI_OPENCL_NARROW");
    int allow_narrow = !(narrow && strcmp(narrow, "0") == 0);
    ctx->n_devices = n;
    ctx->devices = devices;
    vkrt_pci_node nodes[OCLRT_MAX_DEVICES];
    size_t n_nodes = vkrt_drm_pci_nodes(nodes, OCLRT_MAX_DEVICES);
    for (uint32_t i = 0; i < n; i++) {
        devices[i].platform = owner[i];
        devices[i].id = ids[i];
        devices[i].test_fail_enqueue = fail_enqueue;
        pthread_mutex_init(&devices[i].lock, NULL);
        describe(ctx, &devices[i], allow_narrow, constant_cap, nodes, n_nodes);
    }
    *out = ctx;
    return OCLRT_OK;
}

void oclrt_close(oclrt_context *ctx) {
    if (!ctx) return;
    for (uint32_t i = 0; i < ctx->n_devices; i++) {
        oclrt_device *d = &ctx->devices[i];
        for (uint32_t k = 0; k < d->n_programs; k++) {
            cl.clReleaseProgram(d->programs[k].program);
            free(d->programs[k].source);
            free(d->programs[k].options);
        }
        if (d->context) cl.clReleaseContext(d->context);
        pthread_mutex_destroy(&d->lock);
    }
    free(ctx->devices);
    free(ctx);
}

uint32_t oclrt_unit_count(const oclrt_context *ctx) { return ctx->n_devices; }

int oclrt_unit_info(const oclrt_context *ctx, uint32_t unit, oclrt_unit *out, char *err, size_t cap) {
    if (unit >= ctx->n_devices)
        return oclrt_fail(err, cap, OCLRT_INVALID, "unit %u does not exist (the opencl backend has %u units)", unit, ctx->n_devices);
    *out = ctx->devices[unit].info;
    return OCLRT_OK;
}
