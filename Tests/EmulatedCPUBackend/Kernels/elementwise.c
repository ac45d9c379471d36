/* Plugins/CPUBackend/Kernels/elementwise.c built with CPUK_EMULATED (kernels_internal.h). */
#include "../../../Plugins/CPUBackend/Kernels/elementwise.c"
