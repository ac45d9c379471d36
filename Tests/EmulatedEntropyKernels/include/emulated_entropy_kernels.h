/*
 * emulated_entropy_kernels.h — the lane decoder's AVX-512 loop on emulated intrinsics, for
 * the tests (rans_lanes_avx512_emulated.c): the same contract as
 * wai_rans_lanes_decode_avx512 (entropy_kernels.h), on any CPU.
 */
#ifndef WAI_EMULATED_ENTROPY_KERNELS_H
#define WAI_EMULATED_ENTROPY_KERNELS_H

#include "entropy_kernels.h"

int wai_rans_lanes_decode_avx512_emulated(const wai_rans_lane_job *job, int first, int n, int32_t extremes[2]);

#endif
