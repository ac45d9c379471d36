#include "CSQLite.h"
#include "lazy_library.h"

/* Every SQLite function the host and its tests call (Sources/CLazyLibrary). */
#define WAIH_SQLITE_FUNCTIONS(X)                                                                   \
    X(int, sqlite3_open, (const char *filename, sqlite3 **db), (filename, db))                    \
    X(int, sqlite3_open_v2, (const char *filename, sqlite3 **db, int flags, const char *vfs),     \
      (filename, db, flags, vfs))                                                                  \
    X(int, sqlite3_close, (sqlite3 *db), (db))                                                     \
    X(const char *, sqlite3_errmsg, (sqlite3 *db), (db))                                           \
    X(int, sqlite3_busy_timeout, (sqlite3 *db, int ms), (db, ms))                                  \
    X(int, sqlite3_exec, (sqlite3 *db, const char *sql, int (*callback)(void *, int, char **, char **), \
                          void *arg, char **errmsg), (db, sql, callback, arg, errmsg))             \
    X(int, sqlite3_changes, (sqlite3 *db), (db))                                                   \
    X(int, sqlite3_prepare_v2, (sqlite3 *db, const char *sql, int n, sqlite3_stmt **stmt,          \
                                const char **tail), (db, sql, n, stmt, tail))                      \
    X(int, sqlite3_prepare_v3, (sqlite3 *db, const char *sql, int n, unsigned int flags,           \
                                sqlite3_stmt **stmt, const char **tail), (db, sql, n, flags, stmt, tail)) \
    X(int, sqlite3_step, (sqlite3_stmt *stmt), (stmt))                                             \
    X(int, sqlite3_reset, (sqlite3_stmt *stmt), (stmt))                                            \
    X(int, sqlite3_finalize, (sqlite3_stmt *stmt), (stmt))                                         \
    X(int, sqlite3_clear_bindings, (sqlite3_stmt *stmt), (stmt))                                   \
    X(int, sqlite3_bind_int64, (sqlite3_stmt *stmt, int i, sqlite3_int64 v), (stmt, i, v))         \
    X(int, sqlite3_bind_text, (sqlite3_stmt *stmt, int i, const char *v, int n, void (*d)(void *)), \
      (stmt, i, v, n, d))                                                                          \
    X(int, sqlite3_bind_blob, (sqlite3_stmt *stmt, int i, const void *v, int n, void (*d)(void *)), \
      (stmt, i, v, n, d))                                                                          \
    X(sqlite3_int64, sqlite3_column_int64, (sqlite3_stmt *stmt, int i), (stmt, i))                 \
    X(const unsigned char *, sqlite3_column_text, (sqlite3_stmt *stmt, int i), (stmt, i))          \
    X(const void *, sqlite3_column_blob, (sqlite3_stmt *stmt, int i), (stmt, i))                   \
    X(int, sqlite3_column_bytes, (sqlite3_stmt *stmt, int i), (stmt, i))

#define WAIH_SQLITE_VOID_FUNCTIONS(X) X(sqlite3_free, (void *p), (p))

WAIH_LAZY_LIBRARY("libsqlite3.so.0", WAIH_SQLITE_FUNCTIONS, WAIH_SQLITE_VOID_FUNCTIONS, WAIH_LAZY_NONE, NULL)
WAIH_LAZY_FORWARDS(WAIH_SQLITE_FUNCTIONS, WAIH_SQLITE_VOID_FUNCTIONS)

const char *waih_sqlite_load(void) { return waih_lazy_library_load(&waih_library); }
