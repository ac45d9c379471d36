/* SQLite for the collector's store (Sources/Audit/Collector/SQLiteStore.swift), loaded on
 * first use (Sources/CLazyLibrary): sqlite.c defines the functions below. */
#include <sqlite3.h>

/* Loads libsqlite3.so.0 once per process: NULL, or why it cannot be loaded. */
const char *waih_sqlite_load(void);
