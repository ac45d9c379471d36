#include "cpu_kernels.h"
