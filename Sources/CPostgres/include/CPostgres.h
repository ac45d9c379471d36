/* libpq for the collector's PostgreSQL store (Sources/Audit/Collector/PostgresStore.swift),
 * loaded on first use (Sources/CLazyLibrary): postgres.c defines the functions below. */
#include <postgresql/libpq-fe.h>

/* Loads libpq.so.5 once per process: NULL, or why it cannot be loaded. */
const char *waih_pq_load(void);
