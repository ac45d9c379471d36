/* Plugins/CPUBackend/Kernels/conv_xpair.c built with CPUK_EMULATED (kernels_internal.h). */
#include "../../../Plugins/CPUBackend/Kernels/conv_xpair.c"
