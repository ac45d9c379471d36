/* SPDX-License-Identifier: Apache-2.0
 *
 * cdecode: decodes a wai.neural.int_hyper payload or WAI1 envelope through the WaiHost
 * C API (docs/c-api.md) and prints the report. Plugin folders, probe cache and probe
 * worker come from the environment, as for the waihost CLI (WAI_PLUGIN_PATH,
 * WAIHOST_CACHE_DIR, WAIHOST_UNIT_WORKER).
 *
 *   cc -o cdecode cdecode.c $(pkg-config --cflags --libs waihost)
 *   cdecode [-u UNIT] [-b] [-l] [-o OUT.rgb] MODEL_DIR IN.wai
 *
 *   -u UNIT   best, reference, cpu, gpu, other, NAME or NAME:INDEX (default: the
 *             configuration's unit, best unless waihost.conf or WAIHOST_UNIT says otherwise)
 *   -b        decode into a buffer this program owns (sized with waihost_image_size)
 *   -l        list the probed units first
 *   -o FILE   write the RGB8 rows to FILE
 *   -j        print the report as JSON instead
 */
/* getopt, clock_gettime under -std=c11 */
#define _POSIX_C_SOURCE 200809L

#include <waihost.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static unsigned char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
        unsigned char *bigger = realloc(buf, cap * 2);
        if (!bigger) { free(buf); buf = NULL; break; }
        buf = bigger;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) { free(buf); return NULL; }
    *len = n;
    return buf;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int fail(const char *what, waihost_status s, const char *msg) {
    fprintf(stderr, "cdecode: %s: %s: %s\n", what, waihost_status_name(s), msg);
    return 1;
}

int main(int argc, char **argv) {
    const char *unit = NULL, *out = NULL;   /* NULL: the configuration's unit (docs/configuration.md §3) */
    int own_buffer = 0, list = 0, json = 0, opt;
    while ((opt = getopt(argc, argv, "u:blo:j")) != -1) {
        switch (opt) {
        case 'u': unit = optarg; break;
        case 'b': own_buffer = 1; break;
        case 'l': list = 1; break;
        case 'o': out = optarg; break;
        case 'j': json = 1; break;
        default: return 2;
        }
    }
    if (argc - optind != 2) {
        fprintf(stderr, "usage: cdecode [-u UNIT] [-b] [-l] [-j] [-o OUT.rgb] MODEL_DIR IN.wai\n");
        return 2;
    }
    if ((waihost_version() >> 16) != WAIHOST_API_MAJOR) {
        fprintf(stderr, "cdecode: libwaihost API %u.%u, built against %u.%u\n", waihost_version() >> 16,
                waihost_version() & 0xffff, WAIHOST_API_MAJOR, WAIHOST_API_MINOR);
        return 1;
    }
    const char *model = argv[optind], *in = argv[optind + 1];
    size_t len = 0;
    unsigned char *payload = read_file(in, &len);
    if (!payload) { perror(in); return 1; }

    char msg[1024];
    waihost_open_options options = { .struct_size = sizeof options };
    waihost_host *host = NULL;
    waihost_status s = waihost_open(&options, &host, msg, sizeof msg);
    if (s != WAIHOST_OK) return fail("open", s, msg);

    if (list) {
        waihost_unit *units = NULL;
        size_t count = 0;
        s = waihost_probe(host, 0, &units, &count, msg, sizeof msg);
        if (s != WAIHOST_OK) return fail("probe", s, msg);
        for (size_t i = 0; i < count; i++) {
            const waihost_unit *u = &units[i];
            printf("unit %s:%d %s %s rank %d %.1f runs/s (%s; %s): %s\n", u->backend, u->index, u->kind,
                   u->state, u->rank, u->runs_per_second, u->device, u->driver, u->reason);
        }
        waihost_free(units);
    }

    waihost_image image = { .struct_size = sizeof image };
    if (own_buffer) {
        size_t size = 0;
        s = waihost_image_size(payload, len, NULL, NULL, &size, msg, sizeof msg);
        if (s != WAIHOST_OK) return fail("image size", s, msg);
        image.pixels = malloc(size);
        image.capacity = size;
        if (!image.pixels) { perror("malloc"); return 1; }
    }
    waihost_report *report = NULL;
    double t0 = now_ms();
    s = waihost_decode(host, payload, len, model, unit, &image, &report, msg, sizeof msg);
    double t1 = now_ms();
    if (s != WAIHOST_OK) return fail("decode", s, msg);

    if (out) {
        FILE *f = fopen(out, "wb");
        if (!f || fwrite(image.pixels, 1, image.size, f) != image.size || fclose(f) != 0) { perror(out); return 1; }
    }
    if (json) {
        printf("%s\n", waihost_report_json(report));
        fprintf(stderr, "decode: %.3f ms\n", t1 - t0);
    } else {
        printf("picture:  %ux%u, stride %zu, %zu bytes (%s buffer)\n", image.width, image.height, image.stride,
               image.size, own_buffer ? "caller" : "host");
        printf("unit:     %s (%s:%d)\n", report->unit_kind, report->backend, report->unit_index);
        printf("device:   %s\n", report->device);
        printf("driver:   %s\n", report->driver);
        printf("dispatch: %s (rank %d)\n", report->dispatch, report->rank);
        printf("reason:   %s\n", report->reason);
        printf("sha256:   %s\n", report->sha256);
        printf("decode:   %.3f ms\n", t1 - t0);
    }
    if (own_buffer) free(image.pixels);
    else waihost_free(image.pixels);
    waihost_free(report);
    waihost_close(host);
    free(payload);
    return 0;
}
