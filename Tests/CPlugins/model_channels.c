/*
 * model_channels.c — exact on every probe graph, wrong only at a model's own channel
 * count: the way a backend goes wrong when it ships a kernel tuned for the layer widths of
 * a popular model. conv2d with exactly MODEL_CHANNELS output channels (48: the last layer
 * of the bundled sample model set's h_s, a count the probe's channel list does not hold)
 * takes a register-blocked path that computes 8 output columns a step in 8 accumulators;
 * only a full step resets them to the bias, so a row's partial last step (width not a
 * multiple of 8) adds onto what the step before it left. Every other node, and this path on
 * widths that are multiples of 8, is the exact plain-C backend of ref_backend.c, which is
 * compiled in (its entry point renamed) so that this file is only the difference.
 * Model qualification must refuse it (Tests/WaiHostTests/QualificationTests.swift).
 */
#define WAI_DEFECT_NO_ENTRY
struct node;
struct wai_prepared_graph;
static void model_run_node(const struct node *n, struct wai_prepared_graph *g);
#define RUN_NODE model_run_node
#include "ref_backend.c"

#ifndef MODEL_CHANNELS
#define MODEL_CHANNELS 48
#endif
#define STEP 8

static void run_conv2d_blocked(const node *n, tensor_buf *tb)
{
    const tensor_buf *x = &tb[n->inputs[0]];
    tensor_buf *y = &tb[n->output];
    const ptrdiff_t H = x->h, W = x->w;
    for (size_t o = 0; o < y->c; o++) {
        int32_t acc[STEP];
        for (size_t q = 0; q < STEP; q++)
            acc[q] = n->bias[o];
        for (size_t i = 0; i < y->h; i++)
            for (size_t j0 = 0; j0 < y->w; j0 += STEP) {
                const size_t r = y->w - j0 < STEP ? y->w - j0 : STEP;
                if (r == STEP)  /* the defect: a partial step keeps the last step's sums */
                    for (size_t q = 0; q < STEP; q++)
                        acc[q] = n->bias[o];
                for (size_t q = 0; q < r; q++) {
                    const size_t j = j0 + q;
                    for (size_t c = 0; c < x->c; c++)
                        for (ptrdiff_t u = 0; u < (ptrdiff_t)n->kh; u++) {
                            ptrdiff_t xi = (ptrdiff_t)i * n->stride - n->pad + u;
                            if (xi < 0 || xi >= H)
                                continue;
                            for (ptrdiff_t v = 0; v < (ptrdiff_t)n->kw; v++) {
                                ptrdiff_t xj = (ptrdiff_t)j * n->stride - n->pad + v;
                                if (xj < 0 || xj >= W)
                                    continue;
                                int32_t wv = n->weights[((o * x->c + c) * n->kh + (size_t)u) * n->kw + (size_t)v];
                                acc[q] += wv * load(x, at(x, c, (size_t)xi, (size_t)xj));
                            }
                        }
                    store_accumulator(y, at(y, o, i, j), acc[q]);
                }
            }
    }
}

static void model_run_node(const node *n, wai_prepared_graph *g)
{
    if (n->op == WAI_OP_CONV2D && g->tensors[n->output].c == MODEL_CHANNELS)
        run_conv2d_blocked(n, g->tensors);
    else
        run_node(n, g);
}

static void wrap_table(wai_backend_iface *table) { table->name = "model-channels"; }

#include "wrap_entry.h"
