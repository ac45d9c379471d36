#include "CPostgres.h"
#include "lazy_library.h"

/* Every libpq function the host calls (Sources/CLazyLibrary). */
#define WAIH_PQ_FUNCTIONS(X)                                                                      \
    X(PGconn *, PQconnectdb, (const char *conninfo), (conninfo))                                  \
    X(ConnStatusType, PQstatus, (const PGconn *conn), (conn))                                     \
    X(char *, PQerrorMessage, (const PGconn *conn), (conn))                                       \
    X(PGresult *, PQexec, (PGconn *conn, const char *query), (conn, query))                       \
    X(PGresult *, PQexecParams, (PGconn *conn, const char *command, int n, const Oid *types,      \
                                 const char *const *values, const int *lengths, const int *formats, \
                                 int resultFormat),                                               \
      (conn, command, n, types, values, lengths, formats, resultFormat))                          \
    X(int, PQsendQueryParams, (PGconn *conn, const char *command, int n, const Oid *types,        \
                               const char *const *values, const int *lengths, const int *formats, \
                               int resultFormat),                                                 \
      (conn, command, n, types, values, lengths, formats, resultFormat))                          \
    X(PGresult *, PQgetResult, (PGconn *conn), (conn))                                            \
    X(int, PQenterPipelineMode, (PGconn *conn), (conn))                                           \
    X(int, PQexitPipelineMode, (PGconn *conn), (conn))                                            \
    X(int, PQpipelineSync, (PGconn *conn), (conn))                                                \
    X(ExecStatusType, PQresultStatus, (const PGresult *res), (res))                               \
    X(char *, PQresultErrorMessage, (const PGresult *res), (res))                                 \
    X(int, PQntuples, (const PGresult *res), (res))                                               \
    X(int, PQnfields, (const PGresult *res), (res))                                               \
    X(char *, PQgetvalue, (const PGresult *res, int row, int field), (res, row, field))           \
    X(char *, PQcmdStatus, (PGresult *res), (res))                                                \
    X(char *, PQcmdTuples, (PGresult *res), (res))

#define WAIH_PQ_VOID_FUNCTIONS(X)                 \
    X(PQclear, (PGresult *res), (res))            \
    X(PQfinish, (PGconn *conn), (conn))           \
    X(PQreset, (PGconn *conn), (conn))

WAIH_LAZY_LIBRARY("libpq.so.5", WAIH_PQ_FUNCTIONS, WAIH_PQ_VOID_FUNCTIONS, WAIH_LAZY_NONE, NULL)
WAIH_LAZY_FORWARDS(WAIH_PQ_FUNCTIONS, WAIH_PQ_VOID_FUNCTIONS)

const char *waih_pq_load(void) { return waih_lazy_library_load(&waih_library); }
