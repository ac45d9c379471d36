/* Plugins/CPUBackend/Kernels/platform.c built with CPUK_EMULATED (kernels_internal.h). */
#include "../../../Plugins/CPUBackend/Kernels/platform.c"
