/* Plugins/CPUBackend/Kernels/epilogue.c built with CPUK_EMULATED (kernels_internal.h). */
#include "../../../Plugins/CPUBackend/Kernels/epilogue.c"
