/* No type-checking macros: curl_easy_setopt must stay a function name here. */
#define CURL_DISABLE_TYPECHECK 1
#include "CCurl.h"
#include "lazy_library.h"

/* Every libcurl function the host calls (Sources/CLazyLibrary). */
#define WAIH_CURL_FUNCTIONS(X)                                                            \
    X(CURL *, curl_easy_init, (void), ())                                                 \
    X(CURLcode, curl_easy_perform, (CURL *h), (h))                                        \
    X(const char *, curl_easy_strerror, (CURLcode code), (code))                          \
    X(struct curl_slist *, curl_slist_append, (struct curl_slist *list, const char *s), (list, s))

#define WAIH_CURL_VOID_FUNCTIONS(X)                         \
    X(curl_easy_cleanup, (CURL *h), (h))                    \
    X(curl_easy_reset, (CURL *h), (h))                      \
    X(curl_slist_free_all, (struct curl_slist *list), (list))

/* Called only through the wrappers below and the load. */
#define WAIH_CURL_SLOT_ONLY(X) X(curl_easy_setopt) X(curl_easy_getinfo) X(curl_global_init)

static void global_init(void);
WAIH_LAZY_LIBRARY("libcurl.so.4", WAIH_CURL_FUNCTIONS, WAIH_CURL_VOID_FUNCTIONS, WAIH_CURL_SLOT_ONLY, global_init)
WAIH_LAZY_FORWARDS(WAIH_CURL_FUNCTIONS, WAIH_CURL_VOID_FUNCTIONS)

/* Runs inside the load, so straight from the slot: WAIH_LAZY_FUNCTION would wait on the load. */
static void global_init(void) {
    ((__typeof__(&curl_global_init))waih_library_slots[WAIH_LAZY_SLOT(curl_global_init)])(CURL_GLOBAL_DEFAULT);
}

const char *waih_curl_load(void) { return waih_lazy_library_load(&waih_library); }

#define SETOPT WAIH_LAZY_FUNCTION(curl_easy_setopt)
#define GETINFO WAIH_LAZY_FUNCTION(curl_easy_getinfo)

CURLcode waih_curl_setopt_long(CURL *h, CURLoption o, long v) { return SETOPT(h, o, v); }
CURLcode waih_curl_setopt_string(CURL *h, CURLoption o, const char *v) { return SETOPT(h, o, v); }
CURLcode waih_curl_setopt_pointer(CURL *h, CURLoption o, void *v) { return SETOPT(h, o, v); }
CURLcode waih_curl_setopt_write_function(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) {
    return SETOPT(h, CURLOPT_WRITEFUNCTION, f);
}
CURLcode waih_curl_setopt_xferinfo_function(
    CURL *h, int (*f)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t)) {
    return SETOPT(h, CURLOPT_XFERINFOFUNCTION, f);
}
CURLcode waih_curl_setopt_prereq_function(CURL *h, int (*f)(void *, char *, char *, int, int)) {
    return SETOPT(h, CURLOPT_PREREQFUNCTION, f);
}
CURLcode waih_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return GETINFO(h, i, v); }
CURLcode waih_curl_getinfo_off_t(CURL *h, CURLINFO i, curl_off_t *v) { return GETINFO(h, i, v); }
CURLcode waih_curl_getinfo_string(CURL *h, CURLINFO i, char **v) { return GETINFO(h, i, v); }
