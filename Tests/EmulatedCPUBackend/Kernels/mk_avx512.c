/* Plugins/CPUBackend/Kernels/mk_avx512.c on the emulated AVX-512 and AMX intrinsics of Tests/Emulation/x86_emulation.h. */
#include "../../Emulation/x86_emulation.h"
#include "../../../Plugins/CPUBackend/Kernels/mk_avx512.c"
