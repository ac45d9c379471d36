/* Plugins/CPUBackend/Kernels/warp.c built with CPUK_EMULATED (kernels_internal.h). */
#include "../../../Plugins/CPUBackend/Kernels/warp.c"
