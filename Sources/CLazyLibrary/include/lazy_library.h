/* A system library the host loads on first use instead of at program start
 * (docs/architecture.md, "Libraries loaded on first use").
 *
 * libcurl, libpq, libmicrohttpd and libsqlite3 bring about forty more libraries with them
 * (GnuTLS, Kerberos, LDAP, ...). Linked normally, every `waihost` process maps, relocates and
 * initialises all of them before main, about 6 ms, though only the relay, the collector and
 * the audit's sending ever call them. So their C targets (Sources/CCurl, CPostgres,
 * CMicroHTTPD, CSQLite) link none of them: each defines the functions the host calls under
 * the libraries' own names, hidden, forwarding through a table this loader fills from
 * dlopen/dlsym the first time any of them is needed. */
#ifndef WAIH_LAZY_LIBRARY_H
#define WAIH_LAZY_LIBRARY_H

#include <pthread.h>
#include <stddef.h>

struct waih_lazy_library {
    const char *soname;            /* e.g. "libpq.so.5": the ABI the headers describe */
    const char *const *symbols;    /* every function the host calls, in slot order */
    void **slots;                  /* filled by the load, all or none */
    size_t count;
    void (*after_load)(void);      /* once, after every slot is filled (curl_global_init) */
    pthread_once_t once;
    int failed;
    char error[512];
};

#define WAIH_LAZY_LIBRARY_INIT(soname_, symbols_, slots_, after_load_) \
    { (soname_), (symbols_), (slots_), sizeof(symbols_) / sizeof((symbols_)[0]), (after_load_), \
      PTHREAD_ONCE_INIT, 0, { 0 } }

/* Loads the library once per process (thread-safe). NULL when every symbol resolved; else a
 * message naming the library and what failed (dlerror's text), valid for the process's life.
 * A failed load is not retried: the answer stays the same for the process. */
const char *waih_lazy_library_load(struct waih_lazy_library *lib);

/* Slot i of a loaded library, loading it first if needed. A library that cannot load here is
 * a host bug (every entry point calls its library's load and reports the error first), so
 * this prints the message and aborts rather than calling through a null pointer. */
void *waih_lazy_library_slot(struct waih_lazy_library *lib, size_t i);

/* One library per C file, from X-macro lists of its functions: FUNCTIONS holds
 * X(ret, name, (params), (args)), VOID_FUNCTIONS X(name, (params), (args)), SLOT_ONLY X(name)
 * for functions only the file's own wrappers call (variadic ones; WAIH_LAZY_NONE for none).
 *
 * WAIH_LAZY_LIBRARY defines the file's `waih_library`: the slot indexes, the symbol names and
 * the slots. WAIH_LAZY_FORWARDS defines each function of FUNCTIONS and VOID_FUNCTIONS under
 * the library's own name and prototype (the compiler checks `params` against the library's
 * header through __typeof__), hidden: they never interpose on a copy of the library that
 * something else in the process loads. scripts/package-deb.sh reads the soname and the
 * symbol names from the preprocessed file. */
#define WAIH_LAZY_NONE(X)
#define WAIH_LAZY_SLOT(name) waih_slot_##name
#define WAIH_LAZY_ENUM(ret, name, params, args) WAIH_LAZY_SLOT(name),
#define WAIH_LAZY_NAME(ret, name, params, args) #name,
#define WAIH_LAZY_VOID_ENUM(name, params, args) WAIH_LAZY_SLOT(name),
#define WAIH_LAZY_VOID_NAME(name, params, args) #name,
#define WAIH_LAZY_ONLY_ENUM(name) WAIH_LAZY_SLOT(name),
#define WAIH_LAZY_ONLY_NAME(name) #name,

#define WAIH_LAZY_LIBRARY(soname, FUNCTIONS, VOID_FUNCTIONS, SLOT_ONLY, after_load)                   \
    enum { FUNCTIONS(WAIH_LAZY_ENUM) VOID_FUNCTIONS(WAIH_LAZY_VOID_ENUM) SLOT_ONLY(WAIH_LAZY_ONLY_ENUM) }; \
    static const char *const waih_library_symbols[] = {                                               \
        FUNCTIONS(WAIH_LAZY_NAME) VOID_FUNCTIONS(WAIH_LAZY_VOID_NAME) SLOT_ONLY(WAIH_LAZY_ONLY_NAME)   \
    };                                                                                                \
    static void *waih_library_slots[sizeof waih_library_symbols / sizeof waih_library_symbols[0]];   \
    static struct waih_lazy_library waih_library =                                                    \
        WAIH_LAZY_LIBRARY_INIT(soname, waih_library_symbols, waih_library_slots, after_load);

/* The function in slot `name` of this file's library, typed as the header declares it. */
#define WAIH_LAZY_FUNCTION(name) ((__typeof__(&name))waih_lazy_library_slot(&waih_library, WAIH_LAZY_SLOT(name)))

#define WAIH_LAZY_FORWARD(ret, name, params, args) \
    __attribute__((visibility("hidden"))) ret name params { return WAIH_LAZY_FUNCTION(name) args; }
#define WAIH_LAZY_FORWARD_VOID(name, params, args) \
    __attribute__((visibility("hidden"))) void name params { WAIH_LAZY_FUNCTION(name) args; }
#define WAIH_LAZY_FORWARDS(FUNCTIONS, VOID_FUNCTIONS) \
    FUNCTIONS(WAIH_LAZY_FORWARD) VOID_FUNCTIONS(WAIH_LAZY_FORWARD_VOID)

#endif
