#include "lazy_library.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

/* pthread_once takes no argument, so the library being loaded is handed over in a
 * thread-local; the once routine runs on the calling thread. */
static _Thread_local struct waih_lazy_library *loading;

static void load_once(void) {
    struct waih_lazy_library *lib = loading;
    /* RTLD_LOCAL: the library's symbols stay out of the global scope, so they never bind to
     * anything else in the process; its own dependencies (libcrypto) are shared as usual. */
    void *handle = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        snprintf(lib->error, sizeof lib->error, "%s could not be loaded: %s", lib->soname,
                 why ? why : "unknown error");
        lib->failed = 1;
        return;
    }
    for (size_t i = 0; i < lib->count; i++) {
        void *p = dlsym(handle, lib->symbols[i]);
        if (!p) {
            snprintf(lib->error, sizeof lib->error, "%s has no function %s (a version older than the one WaiHost was built against?)",
                     lib->soname, lib->symbols[i]);
            for (size_t j = 0; j < i; j++) lib->slots[j] = NULL;
            lib->failed = 1;
            dlclose(handle);
            return;
        }
        lib->slots[i] = p;
    }
    if (lib->after_load) lib->after_load();
}

const char *waih_lazy_library_load(struct waih_lazy_library *lib) {
    loading = lib;
    pthread_once(&lib->once, load_once);
    loading = NULL;
    return lib->failed ? lib->error : NULL;
}

void *waih_lazy_library_slot(struct waih_lazy_library *lib, size_t i) {
    const char *error = waih_lazy_library_load(lib);
    if (error) {
        fprintf(stderr, "waihost: internal error: a function of %s was called without loading it first: %s\n",
                lib->soname, error);
        abort();
    }
    return lib->slots[i];
}
