/* Plugins/CPUBackend/Kernels/igdn.c built with CPUK_EMULATED (kernels_internal.h). */
#include "../../../Plugins/CPUBackend/Kernels/igdn.c"
