/*
 * The region engine's AVX-512 loops (Sources/RegionKernels/region_kernels_avx512.c), the same
 * source, built on the portable intrinsics of Tests/Emulation/x86_emulation.h under their own
 * names, so the tests run them on every CPU (RegionEngineTests) and not only on those with
 * AVX-512 VNNI.
 */
#define WAI_REGION_EMULATED 1
#include "../Emulation/x86_emulation.h"
#define wai_region_conv_avx512 wai_region_conv_avx512_emulated
#define wai_region_igdn_avx512 wai_region_igdn_avx512_emulated
#include "../../Sources/RegionKernels/region_kernels_avx512.c"
