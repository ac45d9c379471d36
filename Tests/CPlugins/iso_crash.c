/* iso_crash.c: exact until armed (the test creates ISO_TRIGGER after the probe), then
 * graph_run says so on stderr and dereferences a wild pointer: a real SIGSEGV in the
 * middle of a decode. */
#define ISO_NAME "isocrash"
#include "iso_wrap.h"

static void iso_before_run(void)
{
    if (iso_armed()) {
        fprintf(stderr, "isocrash: armed, about to touch a wild pointer\n");
        static volatile uintptr_t wild = 16;
        *(volatile int *)wild = 1;
    }
}

static void iso_after_run(wai_tensor *outputs, uint32_t n_outputs, size_t stride)
{
    (void)outputs; (void)n_outputs; (void)stride;
}
