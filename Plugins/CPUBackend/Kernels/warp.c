/* warp (docs/integer-ops.md §4.10): trilinear over x, y and scale, border padding, one
 * rounding. One pool task per output row: on the AVX-512 and AVX2 paths the row's whole
 * vectors run in warp_avx2.c and warp_avx512.c, this plain exact C finishes the row (and is the scalar
 * path). Everything is int32: the verified certificate (§5) puts the coordinates, every
 * term and partial sum of acc and acc plus the rounding bias inside int32, and the weights
 * are non-negative products of at most 2^30. No `>>` of a negative value is left to the
 * compiler (cpuk_asr). */
#include "kernels_internal.h"

#include <stdint.h>

static int32_t clampi(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

/* Output position (i, j), every channel. */
static void warp_position(const cpuk_warp_ctx *k, int i, int j) {
    const int W = k->w, H = k->h, S = k->s, C = k->c, F = k->f;
    const int32_t E = (int32_t)1 << F;
    const size_t hw = (size_t)H * W;
    const int shift = 3 * F;
    const int32_t bias = cpuk_rnd_const(shift);
    const size_t at = (size_t)i * W + j;
    /* Clamp the coordinate, then split it: never a blend past the border. */
    const int32_t X = clampi(j * E + cpuk_load(k->flow, k->flow_bits, at), 0, (W - 1) * E);
    const int32_t Y = clampi(i * E + cpuk_load(k->flow, k->flow_bits, hw + at), 0, (H - 1) * E);
    const int32_t Z = clampi(cpuk_load(k->flow, k->flow_bits, 2 * hw + at), 0, (S - 1) * E);
    const int x0 = X >> F, y0 = Y >> F, z0 = Z >> F;   /* X, Y, Z >= 0 */
    const int32_t ax = X - x0 * E, ay = Y - y0 * E, az = Z - z0 * E;
    const int xs[2] = { x0, x0 + 1 < W ? x0 + 1 : W - 1 };
    const int ys[2] = { y0, y0 + 1 < H ? y0 + 1 : H - 1 };
    const int zs[2] = { z0, z0 + 1 < S ? z0 + 1 : S - 1 };
    const int32_t wx[2] = { E - ax, ax }, wy[2] = { E - ay, ay }, wz[2] = { E - az, az };
    int32_t weight[8];
    size_t offset[8];
    for (int r = 0; r < 2; r++)
        for (int q = 0; q < 2; q++)
            for (int p = 0; p < 2; p++) {
                weight[(r * 2 + q) * 2 + p] = wz[r] * wy[q] * wx[p];
                offset[(r * 2 + q) * 2 + p] = (size_t)zs[r] * C * hw + (size_t)ys[q] * W + (size_t)xs[p];
            }
    for (int ch = 0; ch < C; ch++) {
        const size_t base = (size_t)ch * hw;
        int32_t acc = 0;
        for (int t = 0; t < 8; t++)
            if (weight[t] != 0) acc += weight[t] * cpuk_load(k->vol, k->vol_bits, base + offset[t]);
        const int32_t y = cpuk_asr(acc + bias, shift);
        if (k->out_bits == 16) ((int16_t *)k->out)[base + at] = (int16_t)y;
        else ((int32_t *)k->out)[base + at] = y;
    }
}

static void warp_task_scalar(void *raw, int tid, size_t task) {
    (void)tid;
    const cpuk_warp_ctx *k = raw;
    for (int j = 0; j < k->w; j++) warp_position(k, (int)task, j);
}

#if CPUK_X86
static void warp_task_avx2(void *raw, int tid, size_t task) {
    (void)tid;
    const cpuk_warp_ctx *k = raw;
    for (int j = k->vector ? cpuk_warp_row_avx2(k, (int)task) : 0; j < k->w; j++) warp_position(k, (int)task, j);
}

static void warp_task_avx512(void *raw, int tid, size_t task) {
    (void)tid;
    const cpuk_warp_ctx *k = raw;
    for (int j = k->vector ? cpuk_warp_row_avx512(k, (int)task) : 0; j < k->w; j++) warp_position(k, (int)task, j);
}
#endif

/* The vector rows index the volume with int32 lanes, and read a narrow volume by aligned
 * 32-bit gathers (warp_avx2.c, warp_avx512.c): both need what this checks. */
static int warp_vector_fits(const cpuk_warp_ctx *k) {
    const uint64_t count = (uint64_t)k->s * (uint64_t)k->c * (uint64_t)k->h * (uint64_t)k->w;
    if (count > (uint64_t)INT32_MAX) return 0;
    if (k->vol_bits == 16 && ((uintptr_t)k->vol & 3) != 0) return 0;
    return 1;
}

void cpuk_warp(cpuk_pool *pool, cpuk_isa isa, const void *vol, int vol_bits, const void *flow, int flow_bits,
               void *out, int out_bits, int c, int s, int h, int w, int frac_bits) {
    cpuk_warp_ctx k = { vol, flow, out, vol_bits, flow_bits, out_bits, c, s, h, w, frac_bits, 0 };
    k.vector = warp_vector_fits(&k);
    void (*task)(void *, int, size_t) = warp_task_scalar;
#if CPUK_X86
    switch (cpuk_vector_isa(isa)) {
    case CPUK_ISA_AVX512: task = warp_task_avx512; break;
    case CPUK_ISA_AVX2: task = warp_task_avx2; break;
    default: break;
    }
#else
    (void)isa;
#endif
    cpuk_pool_run(pool, (size_t)h, task, &k);
}
