/* Plugins/CPUBackend/Kernels/peak.c built with CPUK_EMULATED (kernels_internal.h). */
#include "../../../Plugins/CPUBackend/Kernels/peak.c"
