/* The backend ABI is its header alone (wai_backend.h); this translation unit only checks
 * that the header compiles as C on its own, static assertions included. */
#include "wai_backend.h"
