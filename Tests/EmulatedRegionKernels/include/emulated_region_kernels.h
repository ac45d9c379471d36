/*
 * emulated_region_kernels.h — the region engine's AVX-512 loops on emulated intrinsics, for
 * the tests (region_kernels_avx512_emulated.c): the contracts of wai_region_conv_position and
 * wai_region_igdn (region_kernels.h) for one ISA, on any CPU.
 */
#ifndef WAI_EMULATED_REGION_KERNELS_H
#define WAI_EMULATED_REGION_KERNELS_H

#include "region_kernels.h"

void wai_region_conv_avx512_emulated(const int16_t *w, const void *x, int x_wide, const int32_t *bias,
                                     const int32_t *w_off, const int32_t *x_off, int pairs, int cin, int cout,
                                     ptrdiff_t taps_cin, int32_t *y, ptrdiff_t y_stride);
void wai_region_igdn_avx512_emulated(const int32_t *x, int channels, int positions, const int32_t *beta,
                                     const int32_t *gamma, int sq_shift, int out_shift, int32_t *y, int32_t *scratch);

#endif
