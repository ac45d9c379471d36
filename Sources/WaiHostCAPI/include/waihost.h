/* SPDX-License-Identifier: Apache-2.0
 *
 * waihost.h: the WaiHost host as a C library (libwaihost). Open a host on plugin
 * folders, probe its units and list their verdicts, decode a wai.neural.int_hyper
 * payload or WAI1 envelope on the unit chosen, and read which unit decoded and why.
 * The specification is docs/c-api.md; section numbers below refer to it.
 *
 * Build:  cc app.c $(pkg-config --cflags --libs waihost)
 *
 * Conventions (docs/c-api.md §2), the same as the backend ABI's:
 *  - every struct starts with `size_t struct_size`: the caller sets it to sizeof() of
 *    the struct it was compiled with before passing it in; a struct the library
 *    allocates has it set to the size the library filled;
 *  - every call that can fail returns a waihost_status and writes one NUL-terminated
 *    line saying what went wrong (truncated to fit) into the caller's msg buffer of
 *    msg_cap bytes; msg may be NULL when msg_cap is 0;
 *  - everything the library allocates is released with waihost_free(), and nothing
 *    else is; waihost_close() ends a host.
 *
 * Thread rules (docs/c-api.md §7): a waihost_host may be used by several threads at
 * once (probe, list and decode calls on one host are serialised internally where they
 * must be); waihost_close() must not run while another call on the same host runs,
 * nor may the host be used after it. Functions that take no host are thread-safe.
 * Results the library returns belong to the caller and are never touched again by it.
 */
#ifndef WAIHOST_H
#define WAIHOST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* §3: a new minor adds fields at the end of structs and new functions; a new major
 * breaks. waihost_version() returns the library's (MAJOR << 16) | MINOR. */
#define WAIHOST_API_MAJOR 1u
#define WAIHOST_API_MINOR 1u
#define WAIHOST_API_VERSION ((WAIHOST_API_MAJOR << 16) | WAIHOST_API_MINOR)

/* §4: what a call returns. The names are waihost_status_name()'s. */
typedef enum waihost_status {
    WAIHOST_OK = 0,
    WAIHOST_ERR_INVALID_ARGUMENT = 1, /* NULL pointer, struct_size too small, bad selection text */
    WAIHOST_ERR_IO = 2,               /* a file or folder could not be read */
    WAIHOST_ERR_MODEL_SET = 3,        /* the model set is missing, corrupt or refused */
    WAIHOST_ERR_PAYLOAD = 4,          /* corrupt or truncated payload or envelope, or another model set's */
    WAIHOST_ERR_NO_SUCH_UNIT = 5,     /* the selection names no unit that exists */
    WAIHOST_ERR_UNIT_FAILED = 6,      /* a plugin or unit failed and nothing could run instead */
    WAIHOST_ERR_BUFFER_TOO_SMALL = 7, /* a caller-owned buffer is smaller than needed */
    WAIHOST_ERR_NO_MEMORY = 8,
    WAIHOST_ERR_FAILED = 9            /* any other failure; msg says what */
} waihost_status;

/* "ok", "invalid_argument", ...; "unknown" for a value not in the enum. Never NULL,
 * static storage. */
const char *waihost_status_name(waihost_status status);

/* The library's WAIHOST_API_VERSION; a caller compiled against MAJOR m should refuse
 * a library whose (waihost_version() >> 16) != m. */
uint32_t waihost_version(void);

/* The one free function: releases anything the library allocated (unit lists, JSON
 * text, reports, host-allocated pixels). NULL is ignored. */
void waihost_free(void *p);

typedef struct waihost_host waihost_host;

/* §5.1. Any pointer member may be NULL: that part comes from the environment, as
 * the waihost CLI finds it (WAI_PLUGIN_PATH and the default folders, WAIHOST_CACHE_DIR
 * or XDG_CACHE_HOME, WAIHOST_UNIT_WORKER, else `waihost-unit-worker` beside libwaihost or the program, else PREFIX/libexec/waihost/). */
typedef struct waihost_open_options {
    size_t struct_size;
    /* Plugin folders scanned for *.so backends, in order; NULL: from the environment.
     * A non-NULL array with plugin_dir_count 0 means no plugins (reference only). */
    const char *const *plugin_dirs;
    size_t plugin_dir_count;
    /* Probe cache folder; NULL: from the environment; "": no cache at all. */
    const char *cache_dir;
    /* The `waihost-unit-worker` executable every plugin runs in; NULL: found as above. */
    const char *worker_executable;
    /* Seconds one probe request to a unit worker may take; 0: the default (20 s or WAIHOST_PROBE_TIMEOUT). */
    double probe_timeout_s;
    /* Since 1.1: how often runs on plugin units are spot-checked (docs/probe.md §7),
     * "every", "off" or "sample:N"; NULL: from the configuration (WAIHOST_SPOT_CHECK,
     * waihost.conf; every run unless set). A 1.0 caller's struct_size ends before it: NULL. */
    const char *spot_check;
} waihost_open_options;

/* Opens a host. options may be NULL (everything from the environment). Nothing is
 * probed or loaded yet. On success *host is set; close it with waihost_close(). */
waihost_status waihost_open(const waihost_open_options *options, waihost_host **host,
                            char *msg, size_t msg_cap);

/* Ends a host and releases what it holds (loaded plugins, prepared graphs). NULL is ignored. */
void waihost_close(waihost_host *host);

/* §5.2: one probed unit, or a plugin or folder that produced none (index -1). */
typedef struct waihost_unit {
    size_t struct_size;
    const char *backend;   /* the plugin's name (its file name when it did not load) */
    const char *path;      /* the plugin file */
    const char *kind;      /* "cpu" | "gpu" | "other" | "unknown" */
    int32_t index;         /* the unit's index within its backend; -1: no unit */
    const char *device;
    const char *driver;
    const char *state;     /* "accepted" | "rejected" | "failed" */
    int32_t rank;          /* 1 = fastest accepted unit; 0: not ranked */
    double runs_per_second;/* on the calibration graph; 0: not measured */
    const char *reason;    /* why the state */
    int32_t cached;        /* 1 when the verdict came from the probe cache */
} waihost_unit;

/* Probes every unit (cached verdicts reused unless fresh != 0) and returns the rows in
 * one allocation: *units points to *count waihost_unit, their strings inside the same
 * block; release it with waihost_free(*units). */
waihost_status waihost_probe(waihost_host *host, int fresh, waihost_unit **units, size_t *count,
                             char *msg, size_t msg_cap);

/* The same probe as JSON (the `waihost probe --json` object), NUL-terminated, released
 * with waihost_free(*json). */
waihost_status waihost_probe_json(waihost_host *host, int fresh, char **json, char *msg, size_t msg_cap);

/* §5.3: RGB8 rows, pixel (x, y) channel k at pixels[y * stride + x * 3 + k]. */
typedef struct waihost_image {
    size_t struct_size;
    uint32_t width;
    uint32_t height;
    size_t stride;         /* bytes per row: width * 3 */
    /* In: NULL for host-allocated output (release with waihost_free(pixels)), or the
     * caller's buffer of `capacity` bytes. Out: the pixels. */
    uint8_t *pixels;
    size_t capacity;
    size_t size;           /* out: height * stride, the bytes written */
} waihost_image;

/* §5.4: which unit decoded (the one that ran g_s, which produced the picture) and why. */
typedef struct waihost_report {
    size_t struct_size;
    const char *unit_kind; /* "cpu" | "gpu" | "other" */
    const char *backend;   /* the plugin's name, or "reference" */
    int32_t unit_index;    /* within the backend; -1 for the reference interpreter */
    const char *device;
    const char *driver;
    const char *dispatch;  /* "ranked_first" | "forced" | "dispatch_unit_inexact" | ... */
    const char *reason;
    int32_t rank;          /* among accepted units; 0 for the reference interpreter */
    const char *sha256;    /* lowercase hex of the decoded RGB8 rows */
    uint32_t width;
    uint32_t height;
    const char *json;      /* the whole report (the `waihost decode --json` object) */
} waihost_report;

/* The report as JSON text, inside the report's allocation; NULL for NULL. */
const char *waihost_report_json(const waihost_report *report);

/* The picture a payload or envelope decodes to, from its header only: width, height and
 * the bytes a caller-owned buffer needs (*size = width * height * 3); width, height and size
 * may each be NULL. An envelope's SHA-256 is checked. The size is the header's claim, not yet
 * checked against the model set (§5.3): bound it before allocating for untrusted input. */
waihost_status waihost_image_size(const uint8_t *payload, size_t payload_len, uint32_t *width,
                                  uint32_t *height, size_t *size, char *msg, size_t msg_cap);

/* Decodes a bare wai.neural.int_hyper payload or a WAI1 envelope (its SHA-256 checked)
 * with the model set in model_dir, on the unit `unit` selects: "best", "reference",
 * "cpu" | "gpu" | "other" (a kind), "NAME" (a backend) or "NAME:INDEX"; NULL: the
 * configured default unit (docs/configuration.md §3; "best" unless set).
 * image->struct_size must be set; with image->pixels NULL the library allocates the
 * pixels, otherwise they are written into the caller's buffer, which must hold
 * image->capacity >= width * height * 3 bytes (checked before decoding:
 * WAIHOST_ERR_BUFFER_TOO_SMALL with width, height and size set). report may be NULL;
 * otherwise *report receives a report released with waihost_free(*report). */
waihost_status waihost_decode(waihost_host *host, const uint8_t *payload, size_t payload_len,
                              const char *model_dir, const char *unit, waihost_image *image,
                              waihost_report **report, char *msg, size_t msg_cap);

#ifdef __cplusplus
}
#endif

#endif /* WAIHOST_H */
