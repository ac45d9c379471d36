/* SPDX-License-Identifier: Apache-2.0 */
#include "waihost.h"

/* The status names of docs/c-api.md §4: the enum's names, lower case, without the prefix. */
const char *waihost_status_name(waihost_status status) {
    switch (status) {
    case WAIHOST_OK: return "ok";
    case WAIHOST_ERR_INVALID_ARGUMENT: return "invalid_argument";
    case WAIHOST_ERR_IO: return "io";
    case WAIHOST_ERR_MODEL_SET: return "model_set";
    case WAIHOST_ERR_PAYLOAD: return "payload";
    case WAIHOST_ERR_NO_SUCH_UNIT: return "no_such_unit";
    case WAIHOST_ERR_UNIT_FAILED: return "unit_failed";
    case WAIHOST_ERR_BUFFER_TOO_SMALL: return "buffer_too_small";
    case WAIHOST_ERR_NO_MEMORY: return "no_memory";
    case WAIHOST_ERR_FAILED: return "failed";
    }
    return "unknown";
}
