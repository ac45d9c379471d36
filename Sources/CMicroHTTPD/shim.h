#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <stdint.h>
#include <microhttpd.h>

/* MHD_get_connection_info is variadic, which Swift cannot call. The relay's slow-client
   watchdog (Sources/Relay/Server/ConnectionWatch.swift) needs a connection's socket. */
static inline int waih_mhd_connection_fd(struct MHD_Connection *c) {
    const union MHD_ConnectionInfo *i = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    return i ? i->connect_fd : -1;
}
