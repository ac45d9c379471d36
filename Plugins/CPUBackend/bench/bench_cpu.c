/* Benchmark of the CPU backend's kernels on the int_hyper synthesis transform g_s:
 * four 5x5 stride-2 transposed convs (pad 2, output_pad 1), 192 -> 128 -> 128 -> 128 -> 3
 * channels from a 32x48 latent to a 3x512x768 picture, int16 activations and weights
 * accumulated in int32, each conv followed by its fused requantize and inverse GDN between.
 * Reports the conv throughput in GMAC/s against a vpdpwssd-only loop measured in the same
 * run on the same threads. Not a test: it asserts nothing about time.
 *
 * Build and run: Plugins/CPUBackend/bench/run.sh [isa] [threads]   */
#include "cpu_kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint64_t state = 0x9e3779b97f4a7c15ull;
static int32_t rnd_in(int32_t lo, int32_t hi) {
    state ^= state << 13; state ^= state >> 7; state ^= state << 17;
    return lo + (int32_t)(state % (uint64_t)(hi - lo + 1));
}

typedef struct layer {
    int cin, cout, h, w;
    cpuk_conv *conv;
    cpuk_igdn *igdn;
    int16_t *out;          /* requantized conv output, int16 */
    int16_t *gdn_out;      /* inverse GDN output, int16 */
    int32_t *mult, *shift;
} layer;

int main(int argc, char **argv) {
    cpuk_isa isa = cpuk_isa_best();
    if (argc > 1 && !cpuk_isa_parse(argv[1], &isa)) { fprintf(stderr, "unknown isa %s\n", argv[1]); return 2; }
    if (!cpuk_isa_supported(isa)) { fprintf(stderr, "isa %s not supported here\n", cpuk_isa_name(isa)); return 2; }
    int threads = argc > 2 ? atoi(argv[2]) : cpuk_online_cpus();
    int reps = argc > 3 ? atoi(argv[3]) : 5;
    cpuk_pool *pool = cpuk_pool_create(threads);
    char model[128];
    cpuk_cpu_model(model, sizeof model);
    printf("cpu: %s, threads %d, isa %s\n", model, threads, cpuk_isa_name(isa));

    const int chans[5] = { 192, 128, 128, 128, 3 };
    int h = 32, w = 48;
    layer L[4];
    char err[256];
    /* Activations in [-1024, 1023] and weights in [-64, 63] keep every sum far inside int32
     * (a certified model has the same property by construction). */
    int16_t *x0 = cpuk_alloc((size_t)chans[0] * h * w * 2);
    for (size_t i = 0; i < (size_t)chans[0] * h * w; i++) x0[i] = (int16_t)rnd_in(-1024, 1023);
    const int16_t *in = x0;
    for (int l = 0; l < 4; l++) {
        layer *y = &L[l];
        y->cin = chans[l]; y->cout = chans[l + 1]; y->h = h; y->w = w;
        size_t nw = (size_t)y->cin * y->cout * 25;
        int16_t *wt = malloc(nw * 2);
        int32_t *bias = malloc((size_t)y->cout * 4);
        for (size_t i = 0; i < nw; i++) wt[i] = (int16_t)rnd_in(-64, 63);
        for (int o = 0; o < y->cout; o++) bias[o] = rnd_in(-100000, 100000);
        y->mult = malloc((size_t)y->cout * 4);
        y->shift = malloc((size_t)y->cout * 4);
        for (int o = 0; o < y->cout; o++) { y->mult[o] = rnd_in(1, 4); y->shift[o] = 12; }
        cpuk_post post = { CPUK_POST_REQUANTIZE, y->mult, y->shift, -1024, 1023 };
        cpuk_conv_desc d = { 1, y->cin, h, w, y->cout, 2 * h, 2 * w, 5, 5, 2, 2, 1, wt, bias, 16, 16, post };
        y->conv = cpuk_conv_create(&d, isa, threads, err, sizeof err);
        if (!y->conv) { fprintf(stderr, "%s\n", err); return 1; }
        free(wt); free(bias);
        h *= 2; w *= 2;
        y->out = cpuk_alloc((size_t)y->cout * h * w * 2);
        y->igdn = NULL;
        y->gdn_out = NULL;
        if (l < 3) {
            int c = y->cout;
            int32_t *beta = malloc((size_t)c * 4), *gamma = malloc((size_t)c * c * 4);
            for (int i = 0; i < c; i++) beta[i] = 1 << 16;
            for (int i = 0; i < c * c; i++) gamma[i] = rnd_in(0, 24);
            /* squares of [-1024, 1023] >> 6 fit int16: the vpdpwssd path. */
            cpuk_post none = { CPUK_POST_NONE, NULL, NULL, 0, 0 };
            cpuk_igdn_desc g = { c, h, w, beta, gamma, 6, 10, -1024, 1023, 16, 16, none };
            y->igdn = cpuk_igdn_create(&g, isa, threads, err, sizeof err);
            if (!y->igdn) { fprintf(stderr, "%s\n", err); return 1; }
            free(beta); free(gamma);
            y->gdn_out = cpuk_alloc((size_t)c * h * w * 2);
        }
    }

    uint64_t conv_macs = 0, gdn_macs = 0;
    for (int l = 0; l < 4; l++) {
        conv_macs += cpuk_conv_macs(L[l].conv);
        if (L[l].igdn) gdn_macs += (uint64_t)L[l].cout * L[l].cout * (uint64_t)(4 * L[l].h * L[l].w);
    }

    /* Peak: the bare multiply-accumulate instruction on every thread (warm-up, then best of 3). */
    cpuk_peak_loop(pool, isa, 20000000);
    double peak = 0;
    for (int k = 0; k < 3; k++) {
        double t0 = now();
        uint64_t macs = cpuk_peak_loop(pool, isa, 100000000);
        double g = macs / (now() - t0) / 1e9;
        if (g > peak) peak = g;
    }

    double best_conv[4] = { 1e9, 1e9, 1e9, 1e9 }, best_gdn[4] = { 1e9, 1e9, 1e9, 1e9 }, best_total = 1e9;
    for (int r = 0; r < reps + 1; r++) {
        double tt = now();
        in = x0;
        for (int l = 0; l < 4; l++) {
            double t0 = now();
            cpuk_conv_run(L[l].conv, pool, in, L[l].out);
            double t1 = now();
            in = L[l].out;
            if (L[l].igdn) {
                cpuk_igdn_run(L[l].igdn, pool, in, L[l].gdn_out);
                in = L[l].gdn_out;
            }
            double t2 = now();
            if (r > 0) {
                if (t1 - t0 < best_conv[l]) best_conv[l] = t1 - t0;
                if (L[l].igdn && t2 - t1 < best_gdn[l]) best_gdn[l] = t2 - t1;
            }
        }
        if (r > 0 && now() - tt < best_total) best_total = now() - tt;
    }

    double conv_time = 0;
    for (int l = 0; l < 4; l++) {
        double g = cpuk_conv_macs(L[l].conv) / best_conv[l] / 1e9;
        conv_time += best_conv[l];
        printf("conv %d: %3d -> %3d, %3dx%-3d -> %3dx%-3d  %6.2f GMAC in %7.2f ms  %6.1f GMAC/s  (%.0f%% of peak)",
               l + 1, L[l].cin, L[l].cout, L[l].h, L[l].w, 2 * L[l].h, 2 * L[l].w,
               cpuk_conv_macs(L[l].conv) / 1e9, best_conv[l] * 1e3, g, 100 * g / peak);
        if (L[l].igdn) printf("   igdn %6.2f ms", best_gdn[l] * 1e3);
        printf("\n");
    }
    double conv_g = conv_macs / conv_time / 1e9;
    printf("peak (%s multiply-accumulate only, %d threads): %.1f GMAC/s\n", cpuk_isa_name(isa), threads, peak);
    printf("synthesis convs: %.2f GMAC in %.2f ms = %.1f GMAC/s = %.2f of peak\n",
           conv_macs / 1e9, conv_time * 1e3, conv_g, conv_g / peak);
    printf("whole g_s (convs + fused requantize + inverse GDN %.2f GMAC): %.2f ms = %.1f GMAC/s = %.2f of peak\n",
           gdn_macs / 1e9, best_total * 1e3, (conv_macs + gdn_macs) / best_total / 1e9,
           (conv_macs + gdn_macs) / best_total / 1e9 / peak);

    for (int l = 0; l < 4; l++) {
        cpuk_conv_destroy(L[l].conv);
        cpuk_igdn_destroy(L[l].igdn);
        cpuk_free(L[l].out);
        cpuk_free(L[l].gdn_out);
        free(L[l].mult); free(L[l].shift);
    }
    cpuk_free(x0);
    cpuk_pool_destroy(pool);
    return 0;
}
