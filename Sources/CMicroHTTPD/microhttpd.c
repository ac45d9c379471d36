#include "CMicroHTTPD.h"
#include "lazy_library.h"

/* Every libmicrohttpd function the host calls (Sources/CLazyLibrary). */
#define WAIH_MHD_FUNCTIONS(X)                                                                      \
    X(struct MHD_Daemon *, MHD_start_daemon_va,                                                    \
      (unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback apc, void *apc_cls,             \
       MHD_AccessHandlerCallback dh, void *dh_cls, va_list ap),                                    \
      (flags, port, apc, apc_cls, dh, dh_cls, ap))                                                 \
    X(int, MHD_get_connection_values,                                                              \
      (struct MHD_Connection *c, enum MHD_ValueKind kind, MHD_KeyValueIterator it, void *it_cls),  \
      (c, kind, it, it_cls))                                                                       \
    X(const char *, MHD_lookup_connection_value,                                                   \
      (struct MHD_Connection *c, enum MHD_ValueKind kind, const char *key), (c, kind, key))        \
    X(struct MHD_Response *, MHD_create_response_from_buffer_with_free_callback_cls,               \
      (size_t size, void *buffer, MHD_ContentReaderFreeCallback crfc, void *crfc_cls),             \
      (size, buffer, crfc, crfc_cls))                                                              \
    X(enum MHD_Result, MHD_add_response_header,                                                    \
      (struct MHD_Response *r, const char *header, const char *content), (r, header, content))     \
    X(enum MHD_Result, MHD_queue_response,                                                         \
      (struct MHD_Connection *c, unsigned int status, struct MHD_Response *r), (c, status, r))

#define WAIH_MHD_VOID_FUNCTIONS(X)                                  \
    X(MHD_stop_daemon, (struct MHD_Daemon *d), (d))                 \
    X(MHD_destroy_response, (struct MHD_Response *r), (r))

#define WAIH_MHD_SLOT_ONLY(X) X(MHD_get_connection_info)

WAIH_LAZY_LIBRARY("libmicrohttpd.so.12", WAIH_MHD_FUNCTIONS, WAIH_MHD_VOID_FUNCTIONS, WAIH_MHD_SLOT_ONLY, NULL)
WAIH_LAZY_FORWARDS(WAIH_MHD_FUNCTIONS, WAIH_MHD_VOID_FUNCTIONS)

const char *waih_mhd_load(void) { return waih_lazy_library_load(&waih_library); }

int waih_mhd_connection_fd(struct MHD_Connection *c) {
    const union MHD_ConnectionInfo *i = WAIH_LAZY_FUNCTION(MHD_get_connection_info)(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    return i ? i->connect_fd : -1;
}
