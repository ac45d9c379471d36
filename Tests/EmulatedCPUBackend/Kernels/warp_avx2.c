/* Plugins/CPUBackend/Kernels/warp_avx2.c built with CPUK_EMULATED (kernels_internal.h). */
#include "../../../Plugins/CPUBackend/Kernels/warp_avx2.c"
