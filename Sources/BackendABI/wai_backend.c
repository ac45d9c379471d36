#include "wai_backend.h"

/* The status names of docs/backend-abi.md §4, shared by the host and C plugins' messages. */
const char *wai_status_name(wai_status status) {
    switch (status) {
    case WAI_OK: return "ok";
    case WAI_ERR_ABI_MISMATCH: return "abi_mismatch";
    case WAI_ERR_INVALID_ARGUMENT: return "invalid_argument";
    case WAI_ERR_UNSUPPORTED: return "unsupported";
    case WAI_ERR_NO_DEVICE: return "no_device";
    case WAI_ERR_OUT_OF_MEMORY: return "out_of_memory";
    case WAI_ERR_INTERNAL: return "internal";
    }
    return "unknown";
}
