/*
 * iso_wrap.h — the isolation test backends (Tests/WaiHostTests/Worker*Tests.swift): each is
 * the exact plain-C backend of ref_backend.c with hooks around its calls, built against the
 * installed header alone. ref_backend.c is compiled in with its entry point renamed (the
 * NO_ENTRY spelling); the entry point (wrap_entry.h) hands out a copy of its table under
 * ISO_NAME, with graph_run going through the hooks first.
 *
 * A test backend defines ISO_NAME and, as it needs them:
 *   void iso_before_run(void)                        before every graph_run
 *   void iso_after_run(wai_tensor *outputs, uint32_t n, size_t stride)   after a run that succeeded
 */
#define WAI_DEFECT_NO_ENTRY
#include "ref_backend.c"

#include <unistd.h>

static void iso_before_run(void);
static void iso_after_run(wai_tensor *outputs, uint32_t n_outputs, size_t stride);

/* Set when the file at ISO_TRIGGER exists: the test arms a backend after its probe. */
#ifdef ISO_TRIGGER
__attribute__((unused)) static int iso_armed(void) { return access(ISO_TRIGGER, F_OK) == 0; }
#endif

static wai_status iso_graph_run(wai_prepared_graph *g, const wai_tensor *inputs, uint32_t n_inputs,
                                wai_tensor *outputs, uint32_t n_outputs, char *err, size_t err_cap)
{
    iso_before_run();
    wai_status st = plain_graph_run(g, inputs, n_inputs, outputs, n_outputs, err, err_cap);
    if (st == WAI_OK && n_outputs > 0)
        iso_after_run(outputs, n_outputs, outputs[0].struct_size);
    return st;
}

static void wrap_table(wai_backend_iface *table)
{
    table->name = ISO_NAME;
    table->graph_run = iso_graph_run;
}

#include "wrap_entry.h"
