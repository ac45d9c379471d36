/* iso_hang.c: exact until armed (ISO_TRIGGER exists), then graph_run blocks forever, like
 * a lost GPU fence, in the middle of a decode. */
#define ISO_NAME "isohang"
#include "iso_wrap.h"

static void iso_before_run(void)
{
    if (iso_armed()) {
        fprintf(stderr, "isohang: armed, waiting on a fence that never signals\n");
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        pthread_cond_t c = PTHREAD_COND_INITIALIZER;
        pthread_mutex_lock(&m);
        for (;;)
            pthread_cond_wait(&c, &m);
    }
}

static void iso_after_run(wai_tensor *outputs, uint32_t n_outputs, size_t stride)
{
    (void)outputs; (void)n_outputs; (void)stride;
}
