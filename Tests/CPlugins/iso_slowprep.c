/* iso_slowprep.c: exact, but when armed (ISO_TRIGGER exists) the first graph_prepare of the
 * process sleeps ISO_PREPARE_SECONDS before preparing, like a driver building its program
 * the first time with empty caches (docs/probe.md §3, probePrepareTimeout). Later prepares
 * and every run take their usual time. */
#define WAI_DEFECT_NO_ENTRY
#include "ref_backend.c"

#include <unistd.h>

#ifndef ISO_PREPARE_SECONDS
#define ISO_PREPARE_SECONDS 10
#endif

static int slow_prepared;

static wai_status slow_graph_prepare(wai_backend *backend, uint32_t unit, const wai_graph_desc *graph,
                                     wai_prepared_graph **out, char *err, size_t err_cap)
{
    /* The probe prepares its first graph alone, so the flag needs no lock. */
    if (!slow_prepared) {
        slow_prepared = 1;
        if (access(ISO_TRIGGER, F_OK) == 0) {
            fprintf(stderr, "isoslowprep: building the program\n");
            unsigned left = ISO_PREPARE_SECONDS;
            while (left > 0)
                left = sleep(left);
        }
    }
    return plain_graph_prepare(backend, unit, graph, out, err, err_cap);
}

static void wrap_table(wai_backend_iface *table)
{
    table->name = "isoslowprep";
    table->graph_prepare = slow_graph_prepare;
}

#include "wrap_entry.h"
