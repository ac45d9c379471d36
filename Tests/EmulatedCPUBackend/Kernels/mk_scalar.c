/* Plugins/CPUBackend/Kernels/mk_scalar.c built with CPUK_EMULATED (kernels_internal.h). */
#include "../../../Plugins/CPUBackend/Kernels/mk_scalar.c"
