/* Plugins/CPUBackend/Kernels/pool.c built with CPUK_EMULATED (kernels_internal.h). */
#include "../../../Plugins/CPUBackend/Kernels/pool.c"
