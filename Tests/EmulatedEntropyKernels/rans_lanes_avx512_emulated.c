/*
 * The lane decoder's vector loop (Sources/EntropyKernels/rans_lanes_avx512.c), the same
 * source, built on the portable intrinsics of Tests/Emulation/x86_emulation.h under its own
 * name, so the tests run it on every CPU (RansLaneTests) and not only on those with AVX-512.
 */
#define WAI_AVX512_EMULATED 1
#include "../Emulation/x86_emulation.h"
#define wai_rans_lanes_decode_avx512 wai_rans_lanes_decode_avx512_emulated
#include "../../Sources/EntropyKernels/rans_lanes_avx512.c"
