/* The CPU backend kernels' interface (Plugins/CPUBackend/Kernels/include/cpu_kernels.h), for
 * the emulated build of the same sources: the module the emulated plugin imports, and the
 * header the kernel sources include by name. */
#include "../../../../Plugins/CPUBackend/Kernels/include/cpu_kernels.h"
