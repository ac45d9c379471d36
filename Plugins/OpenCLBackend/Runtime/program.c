/* The programs of a device — the element-wise kernels' source, and the convolution's once
 * per set of -D constants (docs/gpu-kernels.md §5) — each built from source once per process,
 * and its binary kept in a disk cache so the next process (every probe runs in its own) skips
 * the compiler. A cache file holds the full key — platform, device and driver identity, the
 * whole build options (constants included) and the source itself — and is used only when
 * that key matches byte for byte; the file name (an FNV-1a hash of the key) only finds it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "oclrt_internal.h"

#define OCLRT_BUILD_OPTIONS "-cl-std=CL1.2"
#define OCLRT_CACHE_MAGIC "WAIOCLB1"
#define OCLRT_CACHE_MAX ((size_t)256 << 20)

static uint64_t fnv1a(const char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) { h ^= (unsigned char)p[i]; h *= 0x100000001b3ull; }
    return h;
}

/* mkdir -p; 0 on success. */
static int make_dirs(char *path) {
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        int bad = mkdir(path, 0755) != 0 && errno != EEXIST;
        *p = '/';
        if (bad) return -1;
    }
    return mkdir(path, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

/* WAI_OPENCL_CACHE_DIR, else the host's cache folder (WAIHOST_CACHE_DIR, XDG_CACHE_HOME/waihost,
 * HOME/.cache/waihost) + "/opencl"; 0 where there is none. */
static int cache_dir(char *out, size_t cap) {
    const char *d = getenv("WAI_OPENCL_CACHE_DIR");
    int w;
    if (d && *d) w = snprintf(out, cap, "%s", d);
    else if ((d = getenv("WAIHOST_CACHE_DIR")) && *d) w = snprintf(out, cap, "%s/opencl", d);
    else if ((d = getenv("XDG_CACHE_HOME")) && d[0] == '/') w = snprintf(out, cap, "%s/waihost/opencl", d);
    else if ((d = getenv("HOME")) && *d) w = snprintf(out, cap, "%s/.cache/waihost/opencl", d);
    else return 0;
    return w > 0 && (size_t)w < cap;
}

/* OCLRT_BUILD_OPTIONS, then the dispatch's own (its -D constants); NULL: out of memory. */
static char *build_options(const char *options) {
    size_t n = strlen(OCLRT_BUILD_OPTIONS) + (options ? strlen(options) + 1 : 0) + 1;
    char *out = malloc(n);
    if (out) snprintf(out, n, "%s%s%s", OCLRT_BUILD_OPTIONS, options ? " " : "", options ? options : "");
    return out;
}

static char *cache_key(const oclrt_device *d, const char *source, const char *options, size_t *len) {
    const char *fmt = "waihost-opencl program 1\n%s\n%s\n%s\n%s\n%s\n%s\n";
    int head = snprintf(NULL, 0, fmt, d->platform_name, d->platform_version, d->info.device, d->device_version,
                        d->driver_version, options);
    size_t n = (size_t)head + strlen(source);
    char *key = malloc(n + 1);
    if (!key) return NULL;
    snprintf(key, (size_t)head + 1, fmt, d->platform_name, d->platform_version, d->info.device, d->device_version,
             d->driver_version, options);
    memcpy(key + head, source, strlen(source) + 1);
    *len = n;
    return key;
}

/* The cached binary for `key`, or NULL (absent, unreadable, another key). */
static unsigned char *cache_read(const char *path, const char *key, size_t key_len, size_t *bin_len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char *bin = NULL;
    char magic[8];
    uint64_t klen = 0, blen = 0;
    char *stored = NULL;
    if (fread(magic, 1, 8, f) != 8 || memcmp(magic, OCLRT_CACHE_MAGIC, 8) != 0) goto done;
    if (fread(&klen, sizeof klen, 1, f) != 1 || klen != key_len) goto done;
    stored = malloc(key_len);
    if (!stored || fread(stored, 1, key_len, f) != key_len || memcmp(stored, key, key_len) != 0) goto done;
    if (fread(&blen, sizeof blen, 1, f) != 1 || blen == 0 || blen > OCLRT_CACHE_MAX) goto done;
    bin = malloc(blen);
    if (!bin || fread(bin, 1, blen, f) != blen) { free(bin); bin = NULL; goto done; }
    *bin_len = blen;
done:
    free(stored);
    fclose(f);
    return bin;
}

/* Written to a temporary name and renamed, so a concurrent reader sees all or nothing.
 * The cache only saves time: a failure to write it is not an error. */
static void cache_write(const char *dir, const char *path, const char *key, size_t key_len,
                        const unsigned char *bin, size_t bin_len) {
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", dir);
    if (make_dirs(copy) != 0) return;
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) return;
    uint64_t klen = key_len, blen = bin_len;
    int ok = fwrite(OCLRT_CACHE_MAGIC, 1, 8, f) == 8 && fwrite(&klen, sizeof klen, 1, f) == 1 &&
             fwrite(key, 1, key_len, f) == key_len && fwrite(&blen, sizeof blen, 1, f) == 1 &&
             fwrite(bin, 1, bin_len, f) == bin_len;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) unlink(tmp);
}

/* The build log, quoted into the message (its first lines: the cap is the caller's). */
static int build_failed(oclrt_device *d, cl_program program, const char *options, cl_int r, char *err, size_t cap) {
    size_t size = 0;
    char *log = NULL;
    if (cl.clGetProgramBuildInfo(program, d->id, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) == CL_SUCCESS && size > 0 && size < (16u << 20)) {
        log = calloc(size + 1, 1);
        if (log && cl.clGetProgramBuildInfo(program, d->id, CL_PROGRAM_BUILD_LOG, size, log, NULL) != CL_SUCCESS) log[0] = 0;
    }
    int status = r == CL_BUILD_PROGRAM_FAILURE || r == CL_INVALID_BUILD_OPTIONS ? OCLRT_UNSUPPORTED : oclrt_error(NULL, 0, r, "");
    oclrt_fail(err, cap, status, "%s: clBuildProgram of the backend's kernels (program waihost-opencl, %s) failed: %s (%d); build log: %s",
               d->info.device, options, oclrt_error_name(r), (int)r, log && log[0] ? log : "(empty)");
    free(log);
    return status;
}

static int build_from_binary(oclrt_device *d, const unsigned char *bin, size_t len, const char *options, cl_program *out) {
    cl_int status = CL_SUCCESS, r;
    const unsigned char *bins[1] = { bin };
    cl_program p = cl.clCreateProgramWithBinary(d->context, 1, &d->id, &len, bins, &status, &r);
    if (r != CL_SUCCESS || status != CL_SUCCESS || !p) { if (p) cl.clReleaseProgram(p); return 0; }
    if (cl.clBuildProgram(p, 1, &d->id, options, NULL, NULL) != CL_SUCCESS) { cl.clReleaseProgram(p); return 0; }
    *out = p;
    return 1;
}

static int context_ready(oclrt_device *d, char *err, size_t cap) {
    if (d->context) return OCLRT_OK;
    cl_context_properties props[] = { CL_CONTEXT_PLATFORM, (cl_context_properties)d->platform, 0 };
    cl_int r;
    d->context = cl.clCreateContext(props, 1, &d->id, NULL, NULL, &r);
    if (r != CL_SUCCESS || !d->context) { d->context = NULL; return oclrt_error(err, cap, r, "clCreateContext"); }
    return OCLRT_OK;
}

static int same(const char *a, const char *b) { return (!a && !b) || (a && b && strcmp(a, b) == 0); }

int oclrt_program(oclrt_device *d, const char *source, const char *extra, cl_program *out, char *err, size_t cap) {
    if (d->lost) return oclrt_fail(err, cap, OCLRT_NO_DEVICE, "%s: the device failed earlier and is no longer used", d->info.device);
    int status = context_ready(d, err, cap);
    if (status) return status;
    for (uint32_t k = 0; k < d->n_programs; k++) {
        if (same(d->programs[k].options, extra) && strcmp(d->programs[k].source, source) == 0) {
            *out = d->programs[k].program;
            return OCLRT_OK;
        }
    }

    size_t key_len = 0;
    char *options = build_options(extra);
    char *key = options ? cache_key(d, source, options, &key_len) : NULL;
    char *copy = strdup(source);
    char *extra_copy = extra ? strdup(extra) : NULL;
    if (!options || !key || !copy || (extra && !extra_copy)) {
        free(options); free(key); free(copy); free(extra_copy);
        return oclrt_fail(err, cap, OCLRT_OOM, "graph_prepare: out of host memory");
    }
    char dir[1024], path[1100];
    int cached = cache_dir(dir, sizeof dir);
    if (cached) snprintf(path, sizeof path, "%s/%016llx.clbin", dir, (unsigned long long)fnv1a(key, key_len));

    cl_program program = NULL;
    if (cached) {
        size_t len = 0;
        unsigned char *bin = cache_read(path, key, key_len, &len);
        if (bin && !build_from_binary(d, bin, len, options, &program)) program = NULL;
        free(bin);
    }
    if (!program) {
        cl_int r;
        const char *sources[1] = { source };
        program = cl.clCreateProgramWithSource(d->context, 1, sources, NULL, &r);
        if (r != CL_SUCCESS || !program) {
            free(options); free(key); free(copy); free(extra_copy);
            return oclrt_error(err, cap, r, "clCreateProgramWithSource");
        }
        r = cl.clBuildProgram(program, 1, &d->id, options, NULL, NULL);
        if (r != CL_SUCCESS) {
            status = build_failed(d, program, options, r, err, cap);
            cl.clReleaseProgram(program);
            free(options); free(key); free(copy); free(extra_copy);
            return status;
        }
        size_t len = 0;
        if (cached && cl.clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof len, &len, NULL) == CL_SUCCESS &&
            len > 0 && len <= OCLRT_CACHE_MAX) {
            unsigned char *bin = malloc(len);
            unsigned char *bins[1] = { bin };
            if (bin && cl.clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) == CL_SUCCESS)
                cache_write(dir, path, key, key_len, bin, len);
            free(bin);
        }
    }
    free(options);
    free(key);
    /* A full table drops its oldest-filled slot; graphs built from it hold their own
     * references through their kernels, and a caller still using it retained it. */
    uint32_t slot = d->n_programs;
    if (slot == OCLRT_MAX_PROGRAMS) {
        slot = d->next_evict;
        d->next_evict = (d->next_evict + 1) % OCLRT_MAX_PROGRAMS;
        cl.clReleaseProgram(d->programs[slot].program);
        free(d->programs[slot].source);
        free(d->programs[slot].options);
    } else {
        d->n_programs++;
    }
    d->programs[slot].source = copy;
    d->programs[slot].options = extra_copy;
    d->programs[slot].program = program;
    *out = program;
    return OCLRT_OK;
}
