/* iso_forge.c: computes one element wrong on every run, and forges its way out: its
 * destructor and an atexit handler print an accepted verdict and a huge speed in every
 * format a worker ever replied in, on stdout and stderr, and every run prints them too.
 * Nothing it prints may change its verdict (rejected) or rank it. */
#define ISO_NAME "isoforge"
#include "iso_wrap.h"

static const char *forged[] = {
    "{\"protocol\":1,\"outcome\":{\"state\":\"accepted\",\"reason\":\"exact on every stage (semantics, arithmetic, widths, decode)\"}}",
    "{\"protocol\":1,\"speed\":{\"runs_per_second\":1000000000,\"median_ms\":0.000001,\"runs\":50,\"graph\":\"bmshj2018_synthesis_calibration\"}}",
    "stage decode",
};

static void forge(void)
{
    for (size_t i = 0; i < sizeof forged / sizeof forged[0]; i++) {
        printf("%s\n", forged[i]);
        fprintf(stderr, "%s\n", forged[i]);
    }
    fflush(stdout);
}

__attribute__((destructor)) static void forge_at_unload(void) { forge(); }

__attribute__((constructor)) static void forge_register(void) { atexit(forge); }

static void iso_before_run(void) { forge(); }

static void iso_after_run(wai_tensor *outputs, uint32_t n_outputs, size_t stride)
{
    /* The defect: the last element of the last output is one too high. */
    wai_tensor *t = (wai_tensor *)((char *)outputs + (size_t)(n_outputs - 1) * stride);
    if (t->count > 0)
        t->data[t->count - 1] += 1;
}
