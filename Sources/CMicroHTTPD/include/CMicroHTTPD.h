/* libmicrohttpd for the relay's and the collector's servers (Sources/Relay/Server), loaded
 * on first use (Sources/CLazyLibrary): microhttpd.c defines the functions below and
 * libmicrohttpd's own that the host calls. */
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <stdint.h>
#include <microhttpd.h>

/* Loads libmicrohttpd.so.12 once per process: NULL, or why it cannot be loaded. */
const char *waih_mhd_load(void);

/* MHD_get_connection_info is variadic, which Swift cannot call. The relay's slow-client
   watchdog (Sources/Relay/Server/ConnectionWatch.swift) needs a connection's socket. */
int waih_mhd_connection_fd(struct MHD_Connection *c);
