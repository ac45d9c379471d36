/* Plugins/CPUBackend/Kernels/mk_avx2.c built with CPUK_EMULATED (kernels_internal.h). */
#include "../../../Plugins/CPUBackend/Kernels/mk_avx2.c"
