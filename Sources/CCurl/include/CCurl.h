/* libcurl for the relay's origin client (Sources/Relay/Origin) and the audit's sending
 * (Sources/Audit/HTTPPost.swift), loaded on first use (Sources/CLazyLibrary): curl.c defines
 * the functions below and libcurl's own that the host calls. */
#include <curl/curl.h>

/* Loads libcurl.so.4 once per process and runs curl_global_init: NULL, or why it cannot be
 * loaded. Call before any other function of this module. */
const char *waih_curl_load(void);

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: these typed
   wrappers are the only way in. */
CURLcode waih_curl_setopt_long(CURL *h, CURLoption o, long v);
CURLcode waih_curl_setopt_string(CURL *h, CURLoption o, const char *v);
CURLcode waih_curl_setopt_pointer(CURL *h, CURLoption o, void *v);
CURLcode waih_curl_setopt_write_function(CURL *h, size_t (*f)(char *, size_t, size_t, void *));
CURLcode waih_curl_setopt_xferinfo_function(
    CURL *h, int (*f)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t));
/* The relay checks the address of every connection (redirects included) before a request is
   sent on it (Sources/Relay/Origin/AddressPolicy.swift). */
CURLcode waih_curl_setopt_prereq_function(CURL *h, int (*f)(void *, char *, char *, int, int));
CURLcode waih_curl_getinfo_long(CURL *h, CURLINFO i, long *v);
CURLcode waih_curl_getinfo_off_t(CURL *h, CURLINFO i, curl_off_t *v);
CURLcode waih_curl_getinfo_string(CURL *h, CURLINFO i, char **v);
