/* The region engine's two heavy loops (docs/probe.md §7): a windowed convolution's sums
 * for one output position and inverse GDN on a window, in C so that each runs in the
 * widest integer vectors the CPU has (chosen at run time; the host is built for the
 * baseline ISA). Host code, never a plugin's.
 *
 * Exactness: every sum is taken modulo 2^32 (wrapping int32 lanes). That equals the exact
 * integer sum whenever the exact result lies in int32, which the graph's verified
 * certificate (docs/integer-ops.md §5) guarantees for inputs inside the contract; so the
 * order of the terms and any intermediate wrap do not matter. */
#ifndef WAI_REGION_KERNELS_H
#define WAI_REGION_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/* Instruction sets a kernel can run in. */
typedef enum {
    WAI_REGION_ISA_SCALAR = 0,
    WAI_REGION_ISA_AVX2 = 1,
    WAI_REGION_ISA_AVX512 = 2   /* AVX-512 F, BW, VL and VNNI */
} wai_region_isa;

/* The widest ISA this CPU and OS run. */
wai_region_isa wai_region_best_isa(void);

/* One output position of a convolution over a channels-last input window:
 * y[o·y_stride] = bias[o] + Σ_p Σ_c w[(o·taps_cin) + w_off[p] + c] · x[x_off[p] + c]
 * for o < cout, c < cin, p < pairs. `x` is int16 (x_wide = 0) or int32 (x_wide = 1). */
void wai_region_conv_position(const int16_t *w, const void *x, int x_wide, const int32_t *bias,
                              const int32_t *w_off, const int32_t *x_off, int pairs,
                              int cin, int cout, ptrdiff_t taps_cin, int32_t *y, ptrdiff_t y_stride,
                              wai_region_isa isa);

/* Inverse GDN (docs/integer-ops.md §4.9) of a window, x and y channel-major
 * (x[c·positions + p]): sq = (x·x) >> sq_shift, n[c] = beta[c] + Σ_k gamma[c·channels + k]·sq[k],
 * y = rnd(x·isqrt(n), out_shift). `scratch` holds 2·channels·positions int32. The
 * certificate bounds x·x, every partial sum of n, x·isqrt(n) and its rounding inside int32. */
void wai_region_igdn(const int32_t *x, int channels, int positions, const int32_t *beta, const int32_t *gamma,
                     int sq_shift, int out_shift, int32_t *y, int32_t *scratch, wai_region_isa isa);

#endif
