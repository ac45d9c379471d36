/* Benchmark of the CPU backend's warp (docs/integer-ops.md §4.10) on each path, not a test:
 * a P-frame's prediction at 640x360, C = 3 colour channels, S = 4 and 5 scales, F = 4,
 * narrow volume (0..255, as a blurred frame) and narrow flow (up to 8 samples each way, ds
 * across every scale and past both ends). Every path runs the same inputs in alternating
 * rounds, keeps its best round, and must give the scalar path's bytes. Prints ms per warp
 * and the ratio to the scalar path measured in the same run.
 *
 * Build and run: Plugins/CPUBackend/bench/run-warp.sh [threads] [rounds] */
#include "cpu_kernels.h"

#include <stdint.h>
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

int main(int argc, char **argv) {
    const int threads = argc > 1 ? atoi(argv[1]) : 1;
    const int rounds = argc > 2 ? atoi(argv[2]) : 20;
    const int W = 640, H = 360, C = 3, F = 4, E = 1 << F;
    const size_t hw = (size_t)W * H;
    const cpuk_isa paths[] = { CPUK_ISA_SCALAR, CPUK_ISA_AVX2, CPUK_ISA_AVX512 };
    const int npaths = 3;
    cpuk_pool *pool = cpuk_pool_create(threads);
    if (!pool) { fprintf(stderr, "no pool\n"); return 1; }
    printf("warp %dx%d, C=%d, F=%d, narrow volume and flow, %d thread(s), best of %d rounds\n", W, H, C, F, threads, rounds);
    for (int S = 4; S <= 5; S++) {
        int16_t *vol = cpuk_alloc((size_t)S * C * hw * 2), *flow = cpuk_alloc(3 * hw * 2);
        int16_t *out[3];
        for (int p = 0; p < npaths; p++) out[p] = cpuk_alloc((size_t)C * hw * 2);
        if (!vol || !flow) return 1;
        for (size_t k = 0; k < (size_t)S * C * hw; k++) vol[k] = (int16_t)rnd_in(0, 255);
        for (size_t k = 0; k < 2 * hw; k++) flow[k] = (int16_t)rnd_in(-8 * E, 8 * E);
        for (size_t k = 0; k < hw; k++) flow[2 * hw + k] = (int16_t)rnd_in(-E, S * E);
        double best[3] = { 1e9, 1e9, 1e9 };
        for (int r = 0; r < rounds; r++)
            for (int p = 0; p < npaths; p++) {
                if (!cpuk_isa_supported(paths[p])) continue;
                const double t0 = now();
                cpuk_warp(pool, paths[p], vol, 16, flow, 16, out[p], 16, C, S, H, W, F);
                const double t = now() - t0;
                if (t < best[p]) best[p] = t;
            }
        for (int p = 0; p < npaths; p++) {
            if (!cpuk_isa_supported(paths[p])) { printf("S=%d %-12s not on this CPU\n", S, cpuk_isa_name(paths[p])); continue; }
            const int same = memcmp(out[p], out[0], (size_t)C * hw * 2) == 0;
            printf("S=%d %-12s %8.3f ms  %5.2fx scalar  %s\n", S, cpuk_isa_name(paths[p]), best[p] * 1e3, best[0] / best[p],
                   same ? "same bytes as scalar" : "DIFFERENT BYTES");
            if (!same) return 2;
        }
        cpuk_free(vol); cpuk_free(flow);
        for (int p = 0; p < npaths; p++) cpuk_free(out[p]);
    }
    cpuk_pool_destroy(pool);
    return 0;
}
