/* Plugins/CPUBackend/Kernels/conv.c built with CPUK_EMULATED (kernels_internal.h). */
#include "../../../Plugins/CPUBackend/Kernels/conv.c"
