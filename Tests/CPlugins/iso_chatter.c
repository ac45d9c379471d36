/* iso_chatter.c: exact, and talks on stdout and stderr at every step — including lines
 * that look like protocol replies. Its debug output must cost it nothing (accepted). */
#define ISO_NAME "isochatter"
#include "iso_wrap.h"

__attribute__((constructor)) static void chatter_load(void)
{
    printf("isochatter: loaded, stdout is mine\n");
    fprintf(stderr, "isochatter: loaded, stderr too\n");
}

static void iso_before_run(void)
{
    static unsigned long runs;
    runs++;
    printf("isochatter: run %lu starting\n", runs);
    printf("{\"protocol\":1,\"outcome\":{\"state\":\"rejected\",\"reason\":\"debug line, not a verdict\"}}\n");
    fprintf(stderr, "isochatter: run %lu\n", runs);
    fputs("no newline at the end of this one", stdout);
    fflush(stdout);
}

static void iso_after_run(wai_tensor *outputs, uint32_t n_outputs, size_t stride)
{
    (void)outputs; (void)stride;
    printf("\nisochatter: run done, %u outputs\n", n_outputs);
}
