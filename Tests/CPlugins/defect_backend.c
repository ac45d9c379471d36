/*
 * defect_backend.c — the exact plain-C backend of ref_backend.c, compiled in (its entry
 * point renamed) and wrapped, with exactly one -DDEFECT_* flag making it wrong the way SIMD
 * and GPU kernels really go wrong: at tile and chunk boundaries, in narrow index
 * arithmetic, on tail channels, in fast paths for many channels, in state kept across runs
 * and prepared graphs, in threads, and in rare hardware faults. This file holds only each
 * defect's difference: its kernel, the state it keeps from prepare, or its output copy; every
 * other node runs ref_backend.c's kernels. The host must reject every one in the probe or
 * catch it in a spot check, and never return its wrong bytes
 * (Tests/WaiHostTests/DefectBackendTests.swift, docs/probe.md).
 *
 *   DEFECT_TILE_HALO       convs work in tiles of 64 output columns; the input columns a
 *                          tile shares with the previous one (its halo) read as padding
 *   DEFECT_INDEX16         per-plane elementwise kernels (requantize, clamp, lookup) form
 *                          the in-plane index in 16 bits
 *   DEFECT_LAST_CHUNK      flat elementwise kernels (add, clamp, lookup) and the output copy
 *                          split tensors over 2^20 elements into dispatches of 2^16 and drop
 *                          the partial last one
 *   DEFECT_TAIL_CHANNELS   convs with more than 8 output channels run blocks of 8 from
 *                          weights repacked at prepare; the partial last block is packed
 *                          densely but read with the full block's stride
 *   DEFECT_GDN16           inverse GDN with 16 or more channels takes a blocked fast path
 *                          that applies square_shift to the sum instead of to each square
 *   DEFECT_FIRST_RUN       conv2d accumulates into buffers set to the bias at prepare and
 *                          never reset: right only on the first run of a prepared graph
 *   DEFECT_STATIC_SCRATCH  inverse GDN's squares live in one static buffer shared by every
 *                          prepared graph (wrong when two run at once, ABI §8)
 *   DEFECT_RACE_LARGE      conv2d on output planes over 2^16 elements splits rows over two
 *                          threads that share one row accumulator
 *   DEFECT_AFTER_RUNS      after 300 runs of a prepared graph, the re-tuned output copy
 *                          takes each row's last partial vector of 8 from the row above
 *   DEFECT_BIT_FLIPS       flips a random bit in about one output element in 2^22
 *   DEFECT_REQ_LOW_BITS    requantize with multipliers >= 2^24 multiplies by m >> 8 and
 *                          shifts back (a 24-bit multiplier), losing m's low 8 bits
 *   DEFECT_NO_LOOKUP       exact, but answers `unsupported` for any graph with a lookup
 *                          (not a defect: per-op acceptance must accept it for the rest)
 *   DEFECT_SMALL_BUFFERS   exact, but answers `unsupported` for any graph with a tensor over
 *                          2^24 + 2^20 elements, as a GPU with a buffer limit does (larger
 *                          than any probe graph: the host must learn it at run time)
 * The warp's (docs/integer-ops.md §4.10), each wrong in one way a real warp kernel goes wrong:
 *   DEFECT_WARP_TRUNC_FRAC    splits a negative offset with C's / and % (toward zero): the
 *                          coordinate is (j + dx / E)·E + |dx % E|, so −0.25 blends j with
 *                          j + 1 instead of j − 1 with j
 *   DEFECT_WARP_AXIS_ROUND    rounds the x·y weight to F bits before the scale weight
 *                          multiplies it (weights per axis, not the exact product), then
 *                          rounds acc by 2F
 *   DEFECT_WARP_ACC16         a narrow volume's fast path accumulates in 16-bit lanes
 *                          (products and sums wrap modulo 2^16)
 *   DEFECT_WARP_SCALE_CLAMP   clamps the split scale index instead of the scale coordinate:
 *                          a negative ds still blends scale 0 with scale 1
 *   DEFECT_WARP_TAIL_CHANNELS with more than 8 channels, the channels past the last full
 *                          block of 8 forget the scale axis and read scale 0 only
 *   DEFECT_WARP_INDEX16       forms the in-plane sample index y·W + x in 16 bits
 */
/* pthread barriers are POSIX.1-2001, not C11. */
#define _POSIX_C_SOURCE 200112L
#define WAI_DEFECT_NO_ENTRY
struct node;
struct wai_prepared_graph;
static void defect_run_node(const struct node *n, struct wai_prepared_graph *g);
#define RUN_NODE defect_run_node
#include "ref_backend.c"

#include <time.h>

/* ------------------------------------------------------------------------------------ */
/* Identity. Each variant gets its own name so that probe reports can tell them apart.  */

#if defined(DEFECT_TILE_HALO)
#define DEFECT_NAME "defect-tile-halo"
#elif defined(DEFECT_INDEX16)
#define DEFECT_NAME "defect-index16"
#elif defined(DEFECT_LAST_CHUNK)
#define DEFECT_NAME "defect-last-chunk"
#elif defined(DEFECT_TAIL_CHANNELS)
#define DEFECT_NAME "defect-tail-channels"
#elif defined(DEFECT_GDN16)
#define DEFECT_NAME "defect-gdn16"
#elif defined(DEFECT_FIRST_RUN)
#define DEFECT_NAME "defect-first-run"
#elif defined(DEFECT_STATIC_SCRATCH)
#define DEFECT_NAME "defect-static-scratch"
#elif defined(DEFECT_RACE_LARGE)
#define DEFECT_NAME "defect-race-large"
#elif defined(DEFECT_AFTER_RUNS)
#define DEFECT_NAME "defect-after-runs"
#elif defined(DEFECT_BIT_FLIPS)
#define DEFECT_NAME "defect-bit-flips"
#elif defined(DEFECT_REQ_LOW_BITS)
#define DEFECT_NAME "defect-req-low-bits"
#elif defined(DEFECT_NO_LOOKUP)
#define DEFECT_NAME "defect-no-lookup"
#elif defined(DEFECT_SMALL_BUFFERS)
#define DEFECT_NAME "defect-small-buffers"
#elif defined(DEFECT_WARP_TRUNC_FRAC)
#define DEFECT_NAME "defect-warp-trunc-frac"
#elif defined(DEFECT_WARP_AXIS_ROUND)
#define DEFECT_NAME "defect-warp-axis-round"
#elif defined(DEFECT_WARP_ACC16)
#define DEFECT_NAME "defect-warp-acc16"
#elif defined(DEFECT_WARP_SCALE_CLAMP)
#define DEFECT_NAME "defect-warp-scale-clamp"
#elif defined(DEFECT_WARP_TAIL_CHANNELS)
#define DEFECT_NAME "defect-warp-tail-channels"
#elif defined(DEFECT_WARP_INDEX16)
#define DEFECT_NAME "defect-warp-index16"
#else
#define DEFECT_NAME "defect-none"
#endif
#define DEFECT_DEVICE "plain C defect unit"
#define DEFECT_DRIVER "defect_backend.c " PLUGIN_VERSION " (ABI 1.1)"

#define SIMD_LANES 8
#define TILE_COLUMNS 64

/* ------------------------------------------------------------------------------------ */
/* State a defect keeps beside the plain prepared graph.                                 */

typedef struct defect_node {
    int16_t *packed;    /* DEFECT_TAIL_CHANNELS: weights in blocks of 8 output channels */
    int32_t *acc;       /* DEFECT_FIRST_RUN: conv accumulators, set to the bias at prepare */
    int32_t *row;       /* DEFECT_RACE_LARGE: the row accumulator both threads share */
} defect_node;

/* What the host holds: the plain graph and the defect's state. */
typedef struct defect_graph {
    wai_prepared_graph *plain;
    defect_node *nodes;
    unsigned long runs; /* DEFECT_AFTER_RUNS */
} defect_graph;

/* The graph this thread is running: runs of different prepared graphs may be concurrent
 * (ABI §8), each on its own thread. */
static _Thread_local const defect_graph *running;

static const defect_node *state_of(const node *n, const wai_prepared_graph *g)
{
    return &running->nodes[n - g->nodes];
}

/* ------------------------------------------------------------------------------------ */
/* The defective kernels.                                                                */

#if defined(DEFECT_TILE_HALO) || defined(DEFECT_TAIL_CHANNELS) || defined(DEFECT_FIRST_RUN) || defined(DEFECT_RACE_LARGE)
#define DEFECT_CONV2D
#endif
#if defined(DEFECT_TILE_HALO) || defined(DEFECT_TAIL_CHANNELS)
#define DEFECT_TCONV
#endif

#if defined(DEFECT_CONV2D) || defined(DEFECT_TCONV)
/* The weight of tap (u, v) from input channel c to output channel o, as the kernel
 * reads it: conv2d w[o][c][u][v], transposed w[c][o][u][v]. */
static inline int32_t conv_weight(const node *n, const defect_node *dn, size_t cin, size_t cout, size_t o,
                                  size_t c, size_t u, size_t v, int transposed)
{
#if defined(DEFECT_TAIL_CHANNELS)
    if (cout > SIMD_LANES) {
        const size_t taps = (size_t)n->kh * n->kw, t = u * n->kw + v;
        /* The defect: every block is read with the full block's lane stride, but the
         * partial last block was packed with its own, smaller width. */
        return dn->packed[(o / SIMD_LANES) * SIMD_LANES * cin * taps + (c * taps + t) * SIMD_LANES + o % SIMD_LANES];
    }
#else
    (void)dn;
#endif
    return transposed ? n->weights[((c * cout + o) * n->kh + u) * n->kw + v]
                      : n->weights[((o * cin + c) * n->kh + u) * n->kw + v];
}
#endif

#if defined(DEFECT_CONV2D)
/* One conv2d output element. */
static int32_t conv2d_at(const node *n, const defect_node *dn, const tensor_buf *x, const tensor_buf *y,
                         size_t o, size_t i, size_t j)
{
    const ptrdiff_t H = x->h, W = x->w;
#if defined(DEFECT_FIRST_RUN)
    /* The defect: the accumulator was set to the bias at prepare and keeps its sum. */
    int32_t acc = dn->acc[at(y, o, i, j)];
#else
    int32_t acc = n->bias[o];
#endif
    for (size_t c = 0; c < x->c; c++)
        for (ptrdiff_t u = 0; u < (ptrdiff_t)n->kh; u++) {
            ptrdiff_t xi = (ptrdiff_t)i * n->stride - n->pad + u;
            if (xi < 0 || xi >= H)
                continue;
            for (ptrdiff_t v = 0; v < (ptrdiff_t)n->kw; v++) {
                ptrdiff_t xj = (ptrdiff_t)j * n->stride - n->pad + v;
                if (xj < 0 || xj >= W)
                    continue;
#if defined(DEFECT_TILE_HALO)
                /* The defect: a tile loads input from its own first column on; the halo
                 * it shares with the previous tile is taken as padding. */
                if (xj < (ptrdiff_t)((j / TILE_COLUMNS) * TILE_COLUMNS * n->stride))
                    continue;
#endif
                acc += conv_weight(n, dn, x->c, y->c, o, c, (size_t)u, (size_t)v, 0) * load(x, at(x, c, (size_t)xi, (size_t)xj));
            }
        }
#if defined(DEFECT_FIRST_RUN)
    dn->acc[at(y, o, i, j)] = acc;
#endif
    return acc;
}

#if defined(DEFECT_RACE_LARGE)
typedef struct conv_rows {
    const node *n;
    const defect_node *dn;
    tensor_buf *tb;
    size_t first, last;  /* output rows [first, last) of every channel */
    pthread_barrier_t *start;
} conv_rows;

static void *conv2d_rows(void *arg)
{
    const conv_rows *r = arg;
    /* Both workers start together, as a pool's waiting threads would. */
    pthread_barrier_wait(r->start);
    const tensor_buf *x = &r->tb[r->n->inputs[0]];
    tensor_buf *y = &r->tb[r->n->output];
    for (size_t o = 0; o < y->c; o++)
        for (size_t i = r->first; i < r->last; i++) {
            /* The defect: both threads stage their row in the node's one row buffer. */
            for (size_t j = 0; j < y->w; j++)
                r->dn->row[j] = conv2d_at(r->n, r->dn, x, y, o, i, j);
            for (size_t j = 0; j < y->w; j++)
                store_accumulator(y, at(y, o, i, j), r->dn->row[j]);
        }
    return NULL;
}
#endif

static void defect_conv2d(const node *n, const defect_node *dn, tensor_buf *tb)
{
    const tensor_buf *x = &tb[n->inputs[0]];
    tensor_buf *y = &tb[n->output];
#if defined(DEFECT_RACE_LARGE)
    if ((size_t)y->h * y->w > ((size_t)1 << 16) && y->h >= 2) {
        pthread_barrier_t start;
        conv_rows halves[2] = { { n, dn, tb, 0, y->h / 2, &start }, { n, dn, tb, y->h / 2, y->h, &start } };
        pthread_t helper;
        if (pthread_barrier_init(&start, NULL, 2) == 0) {
            if (pthread_create(&helper, NULL, conv2d_rows, &halves[1]) == 0) {
                conv2d_rows(&halves[0]);
                pthread_join(helper, NULL);
                pthread_barrier_destroy(&start);
                return;
            }
            pthread_barrier_destroy(&start);
        }
    }
#endif
    for (size_t o = 0; o < y->c; o++)
        for (size_t i = 0; i < y->h; i++)
            for (size_t j = 0; j < y->w; j++)
                store_accumulator(y, at(y, o, i, j), conv2d_at(n, dn, x, y, o, i, j));
}
#endif

#if defined(DEFECT_TCONV)
static void defect_conv_transpose2d(const node *n, const defect_node *dn, tensor_buf *tb)
{
    const tensor_buf *x = &tb[n->inputs[0]];
    tensor_buf *y = &tb[n->output];
    for (size_t o = 0; o < y->c; o++)
        for (size_t i = 0; i < y->h; i++)
            for (size_t j = 0; j < y->w; j++) {
                int32_t acc = n->bias[o];
                for (size_t c = 0; c < x->c; c++)
                    for (size_t u = 0; u < n->kh; u++) {
                        size_t a;
                        if (!tconv_source((ptrdiff_t)i, u, n, x->h, &a))
                            continue;
                        for (size_t v = 0; v < n->kw; v++) {
                            size_t b;
                            if (!tconv_source((ptrdiff_t)j, v, n, x->w, &b))
                                continue;
#if defined(DEFECT_TILE_HALO)
                            /* The defect: the tile's input starts at its first output
                             * column divided by the stride; the halo is padding. */
                            if (b < (j / TILE_COLUMNS) * TILE_COLUMNS / n->stride)
                                continue;
#endif
                            acc += conv_weight(n, dn, x->c, y->c, o, c, u, v, 1) * load(x, at(x, c, a, b));
                        }
                    }
                store_accumulator(y, at(y, o, i, j), acc);
            }
}
#endif

#if defined(DEFECT_INDEX16) || defined(DEFECT_LAST_CHUNK)
/* Where element k of a tensor with planes of `plane` elements is, as a per-plane kernel
 * addresses it. */
static inline size_t plane_index(size_t k, size_t plane)
{
#if defined(DEFECT_INDEX16)
    /* The defect: the in-plane offset is kept in 16 bits. */
    return (k / plane) * plane + (uint16_t)(k % plane);
#else
    (void)plane;
    return k;
#endif
}
#endif

/* How many elements a flat kernel (elementwise, or the output copy) covers. */
static inline size_t flat_count(size_t count)
{
#if defined(DEFECT_LAST_CHUNK)
    /* The defect: large tensors go out in dispatches of 2^16 elements, count / 2^16 of
     * them, so the partial last one is never dispatched. */
    if (count > ((size_t)1 << 20))
        return (count >> 16) << 16;
#endif
    return count;
}

#if defined(DEFECT_INDEX16) || defined(DEFECT_REQ_LOW_BITS)
static inline int32_t multiply(int32_t x, int32_t m)
{
#if defined(DEFECT_REQ_LOW_BITS)
    /* The defect: a 24-bit multiplier; large multipliers go in pre-shifted by 8 bits and
     * the product is shifted back, so m's low 8 bits are lost. */
    if (m >= (1 << 24))
        return (int32_t)((uint32_t)(x * (m >> 8)) << 8);
    return x * m;
#else
    return x * m;
#endif
}

static void defect_requantize(const node *n, tensor_buf *tb)
{
    const tensor_buf *x = &tb[n->inputs[0]];
    tensor_buf *y = &tb[n->output];
    const size_t plane = (size_t)x->h * x->w;
    for (size_t c = 0; c < x->c; c++) {
        const int32_t m = n->multiplier[c];
        const uint32_t s = (uint32_t)n->shift[c];
        for (size_t k = c * plane; k < (c + 1) * plane; k++) {
#if defined(DEFECT_INDEX16)
            const size_t e = plane_index(k, plane);
#else
            const size_t e = k;
#endif
            store(y, e, clamp32(round_shift(multiply(load(x, e), m), s), n->clamp_lo, n->clamp_hi));
        }
    }
}
#endif

#if defined(DEFECT_LAST_CHUNK)
static void defect_add(const node *n, tensor_buf *tb)
{
    const tensor_buf *a = &tb[n->inputs[0]], *b = &tb[n->inputs[1]];
    tensor_buf *y = &tb[n->output];
    for (size_t k = 0; k < flat_count(y->count); k++)
        store(y, k, load(a, k) + load(b, k));
}
#endif

#if defined(DEFECT_INDEX16) || defined(DEFECT_LAST_CHUNK)
static void defect_clamp(const node *n, tensor_buf *tb)
{
    const tensor_buf *x = &tb[n->inputs[0]];
    tensor_buf *y = &tb[n->output];
    const size_t plane = (size_t)x->h * x->w;
    for (size_t k = 0; k < flat_count(y->count); k++) {
        const size_t e = plane_index(k, plane);
        store(y, e, clamp32(load(x, e), n->clamp_lo, n->clamp_hi));
    }
}

static void defect_lookup(const node *n, tensor_buf *tb)
{
    const tensor_buf *x = &tb[n->inputs[0]];
    tensor_buf *y = &tb[n->output];
    const int32_t last = (int32_t)n->table_len - 1;
    const size_t plane = (size_t)x->h * x->w;
    for (size_t k = 0; k < flat_count(y->count); k++) {
        const size_t e = plane_index(k, plane);
        store(y, e, n->table[clamp32(load(x, e) - n->table_offset, 0, last)]);
    }
}
#endif

#if defined(DEFECT_STATIC_SCRATCH)
/* The defect: one buffer of squares for the whole process, as if one graph ran at a time. */
#define SHARED_SQUARES ((size_t)1 << 22)
static int32_t shared_squares[SHARED_SQUARES];

/* Returns 0 when the tensor does not fit the buffer (the plain kernel runs it). */
static int defect_inverse_gdn(const node *n, tensor_buf *tb)
{
    const tensor_buf *x = &tb[n->inputs[0]];
    tensor_buf *y = &tb[n->output];
    const size_t C = x->c, plane = (size_t)x->h * x->w;
    if (C * plane > SHARED_SQUARES)
        return 0;
    /* Two passes: every square first, then every norm from the shared buffer. */
    for (size_t e = 0; e < C * plane; e++) {
        int32_t v = load(x, e);
        shared_squares[e] = floor_shift(v * v, n->square_shift);
    }
    for (size_t p = 0; p < plane; p++)
        for (size_t c = 0; c < C; c++) {
            int32_t norm = n->beta[c];
            for (size_t k = 0; k < C; k++)
                norm += n->gamma[c * C + k] * shared_squares[k * plane + p];
            int32_t v = load(x, c * plane + p);
            store(y, c * plane + p, round_shift(v * isqrt32(norm), n->out_shift));
        }
    return 1;
}
#elif defined(DEFECT_GDN16)
/* Returns 0 below 16 channels (the plain kernel runs it). */
static int defect_inverse_gdn(const node *n, tensor_buf *tb)
{
    const tensor_buf *x = &tb[n->inputs[0]];
    tensor_buf *y = &tb[n->output];
    const size_t C = x->c, plane = (size_t)x->h * x->w;
    if (C < 16)
        return 0;
    /* The defect: the blocked path for many channels sums gamma * x^2 first and applies
     * square_shift once to the sum, not to each square. */
    for (size_t p = 0; p < plane; p++)
        for (size_t c = 0; c < C; c++) {
            int64_t sum = 0;
            for (size_t k = 0; k < C; k++) {
                const int64_t v = load(x, k * plane + p);
                sum += (int64_t)n->gamma[c * C + k] * v * v;
            }
            int64_t norm = n->beta[c] + sum / ((int64_t)1 << n->square_shift);
            if (norm > INT32_MAX)
                norm = INT32_MAX;
            const int64_t prod = (int64_t)load(x, c * plane + p) * isqrt32((int32_t)norm);
            store(y, c * plane + p, round_shift((int32_t)(prod > INT32_MAX ? INT32_MAX : prod < INT32_MIN ? INT32_MIN : prod),
                                                n->out_shift));
        }
    return 1;
}
#endif

#if defined(DEFECT_WARP_TRUNC_FRAC) || defined(DEFECT_WARP_AXIS_ROUND) || defined(DEFECT_WARP_ACC16) || \
    defined(DEFECT_WARP_SCALE_CLAMP) || defined(DEFECT_WARP_TAIL_CHANNELS) || defined(DEFECT_WARP_INDEX16)
#define DEFECT_WARP
/* The coordinate j·E + d of an output position, as the kernel forms it. */
static int32_t warp_coordinate(int32_t j, int32_t d, uint32_t f)
{
    const int32_t e = (int32_t)1 << f;
#if defined(DEFECT_WARP_TRUNC_FRAC)
    /* The defect: the offset's whole part and fraction by C's truncating / and %. */
    const int32_t q = d / e, r = d % e;
    return (j + q) * e + (r < 0 ? -r : r);
#else
    return j * e + d;
#endif
}

/* Clamp, then split: the exact split (ref_backend.c's, without its defects). */
static void warp_split(int32_t u, int32_t n, uint32_t f, int32_t *index, int32_t *frac)
{
    const int32_t e = (int32_t)1 << f;
    const int32_t c = clamp32(u, 0, (n - 1) * e);
    *index = floor_shift(c, f);
    *frac = c - *index * e;
}

static void defect_warp(const node *n, tensor_buf *tb)
{
    const tensor_buf *v = &tb[n->inputs[0]], *fl = &tb[n->inputs[1]];
    tensor_buf *y = &tb[n->output];
    const uint32_t f = n->out_shift;
    const int32_t e = (int32_t)1 << f, S = (int32_t)n->block;
    const int32_t H = (int32_t)y->h, W = (int32_t)y->w, C = (int32_t)y->c;
    const size_t plane = (size_t)H * W;
    for (int32_t i = 0; i < H; i++)
        for (int32_t j = 0; j < W; j++) {
            const size_t p = (size_t)i * W + j;
            int32_t x0, ax, y0, ay, z0, az;
            warp_split(warp_coordinate(j, load(fl, p), f), W, f, &x0, &ax);
            warp_split(warp_coordinate(i, load(fl, plane + p), f), H, f, &y0, &ay);
#if defined(DEFECT_WARP_SCALE_CLAMP)
            /* The defect: the scale index is clamped after the split, the fraction kept. */
            {
                const int32_t ds = load(fl, 2 * plane + p);
                z0 = clamp32(floor_shift(ds, f), 0, S - 1);
                az = z0 == S - 1 ? 0 : ds - floor_shift(ds, f) * e;
            }
#else
            warp_split(load(fl, 2 * plane + p), S, f, &z0, &az);
#endif
            const int32_t xs[2] = { x0, x0 + 1 < W ? x0 + 1 : W - 1 };
            const int32_t ys[2] = { y0, y0 + 1 < H ? y0 + 1 : H - 1 };
            const int32_t zs[2] = { z0, z0 + 1 < S ? z0 + 1 : S - 1 };
            const int32_t wx[2] = { e - ax, ax }, wy[2] = { e - ay, ay }, wz[2] = { e - az, az };
            for (int32_t c = 0; c < C; c++) {
                int32_t acc = 0;
                for (int r = 0; r < 2; r++)
                    for (int q = 0; q < 2; q++)
                        for (int s = 0; s < 2; s++) {
                            int32_t z = zs[r];
#if defined(DEFECT_WARP_TAIL_CHANNELS)
                            /* The defect: the tail block's loop has no scale axis. */
                            if (C > 8 && c >= C / 8 * 8)
                                z = 0;
#endif
                            size_t in_plane = (size_t)ys[q] * W + xs[s];
#if defined(DEFECT_WARP_INDEX16)
                            /* The defect: the in-plane index is kept in 16 bits. */
                            in_plane = (uint16_t)in_plane;
#endif
                            const int32_t sample = load(v, ((size_t)z * C + c) * plane + in_plane);
#if defined(DEFECT_WARP_AXIS_ROUND)
                            /* The defect: wx·wy rounded to F bits, then the scale weight. */
                            acc += wz[r] * round_shift(wy[q] * wx[s], f) * sample;
#elif defined(DEFECT_WARP_ACC16)
                            if (v->narrow)
                                acc = (int16_t)(uint16_t)((uint32_t)acc + (uint32_t)(wz[r] * wy[q] * wx[s]) * (uint32_t)sample);
                            else
                                acc += wz[r] * wy[q] * wx[s] * sample;
#else
                            acc += wz[r] * wy[q] * wx[s] * sample;
#endif
                        }
#if defined(DEFECT_WARP_AXIS_ROUND)
                store(y, (size_t)c * plane + p, round_shift(acc, 2 * f));
#else
                store(y, (size_t)c * plane + p, round_shift(acc, 3 * f));
#endif
            }
        }
}
#endif

/* Every node goes through here (RUN_NODE): the defect's kernel where it has one, else the
 * plain one. */
static void defect_run_node(const node *n, wai_prepared_graph *g)
{
    const defect_node *dn = state_of(n, g);
    (void)dn;
    switch (n->op) {
#if defined(DEFECT_CONV2D)
    case WAI_OP_CONV2D: defect_conv2d(n, dn, g->tensors); return;
#endif
#if defined(DEFECT_TCONV)
    case WAI_OP_CONV_TRANSPOSE2D: defect_conv_transpose2d(n, dn, g->tensors); return;
#endif
#if defined(DEFECT_INDEX16) || defined(DEFECT_REQ_LOW_BITS)
    case WAI_OP_REQUANTIZE: defect_requantize(n, g->tensors); return;
#endif
#if defined(DEFECT_LAST_CHUNK)
    case WAI_OP_ADD: defect_add(n, g->tensors); return;
#endif
#if defined(DEFECT_INDEX16) || defined(DEFECT_LAST_CHUNK)
    case WAI_OP_CLAMP: defect_clamp(n, g->tensors); return;
    case WAI_OP_LOOKUP: defect_lookup(n, g->tensors); return;
#endif
#if defined(DEFECT_WARP)
    case WAI_OP_WARP: defect_warp(n, g->tensors); return;
#endif
#if defined(DEFECT_STATIC_SCRATCH) || defined(DEFECT_GDN16)
    case WAI_OP_INVERSE_GDN:
        if (defect_inverse_gdn(n, g->tensors))
            return;
        break;
#endif
    default:
        break;
    }
    run_node(n, g);
}

/* ------------------------------------------------------------------------------------ */
/* State from prepare.                                                                   */

#if defined(DEFECT_TAIL_CHANNELS)
/* Repacks conv weights into blocks of SIMD_LANES output channels; the last block holds
 * the remaining channels densely. 0 when memory runs out. */
static int pack_weights(const node *n, defect_node *dn, size_t cin, size_t cout, int transposed)
{
    if (cout <= SIMD_LANES)
        return 1;
    const size_t taps = (size_t)n->kh * n->kw, blocks = (cout + SIMD_LANES - 1) / SIMD_LANES;
    dn->packed = calloc(blocks * SIMD_LANES * cin * taps, sizeof(int16_t));
    if (dn->packed == NULL)
        return 0;
    for (size_t o = 0; o < cout; o++) {
        const size_t b = o / SIMD_LANES, width = cout - b * SIMD_LANES < SIMD_LANES ? cout - b * SIMD_LANES : SIMD_LANES;
        for (size_t c = 0; c < cin; c++)
            for (size_t t = 0; t < taps; t++) {
                const size_t w = transposed ? (c * cout + o) * taps + t : (o * cin + c) * taps + t;
                dn->packed[b * SIMD_LANES * cin * taps + (c * taps + t) * width + o % SIMD_LANES] = n->weights[w];
            }
    }
    return 1;
}
#endif

/* The defect's per-node state for one node of the plain graph; 0 when memory runs out. */
static int prepare_node(const wai_prepared_graph *g, const node *n, defect_node *dn)
{
    if (n->op != WAI_OP_CONV2D && n->op != WAI_OP_CONV_TRANSPOSE2D)
        return 1;
    const tensor_buf *x = &g->tensors[n->inputs[0]], *y = &g->tensors[n->output];
    (void)x; (void)y; (void)dn;
#if defined(DEFECT_TAIL_CHANNELS)
    if (!pack_weights(n, dn, x->c, y->c, n->op == WAI_OP_CONV_TRANSPOSE2D))
        return 0;
#endif
#if defined(DEFECT_FIRST_RUN)
    if (n->op == WAI_OP_CONV2D) {
        const size_t plane = (size_t)y->h * y->w;
        if ((dn->acc = malloc(y->count * sizeof(int32_t))) == NULL)
            return 0;
        for (size_t e = 0; e < y->count; e++)
            dn->acc[e] = n->bias[e / plane];
    }
#endif
#if defined(DEFECT_RACE_LARGE)
    if (n->op == WAI_OP_CONV2D && (dn->row = malloc((size_t)y->w * sizeof(int32_t))) == NULL)
        return 0;
#endif
    return 1;
}

static void free_defect_graph(defect_graph *d)
{
    if (d == NULL)
        return;
    for (uint32_t i = 0; d->nodes != NULL && i < d->plain->n_nodes; i++) {
        free(d->nodes[i].packed);
        free(d->nodes[i].acc);
        free(d->nodes[i].row);
    }
    free(d->nodes);
    plain_graph_release(d->plain);
    free(d);
}

/* ------------------------------------------------------------------------------------ */
/* The function table: the plain one, with prepare, run and release wrapped.            */

static wai_status defect_unit_info(wai_backend *backend, uint32_t unit, wai_unit_info *out,
                                   char *err, size_t err_cap)
{
    wai_status st = plain_unit_info(backend, unit, out, err, err_cap);
    if (st == WAI_OK) {
        set_text(out->device, sizeof out->device, DEFECT_DEVICE);
        set_text(out->driver, sizeof out->driver, DEFECT_DRIVER);
    }
    return st;
}

static wai_status defect_graph_prepare(wai_backend *backend, uint32_t unit, const wai_graph_desc *graph,
                                       wai_prepared_graph **out, char *err, size_t err_cap)
{
    wai_prepared_graph *plain = NULL;
    wai_status st = plain_graph_prepare(backend, unit, graph, &plain, err, err_cap);
    if (st != WAI_OK)
        return st;
#if defined(DEFECT_NO_LOOKUP)
    /* Not a defect: a unit without a lookup kernel says so, as the ABI asks (§7). */
    for (uint32_t i = 0; i < plain->n_nodes; i++)
        if (plain->nodes[i].op == WAI_OP_LOOKUP) {
            plain_graph_release(plain);
            return fail(err, err_cap, WAI_ERR_UNSUPPORTED, "graph_prepare: node %u: lookup is not implemented on this unit", i);
        }
#endif
#if defined(DEFECT_SMALL_BUFFERS)
    /* Not a defect either: a buffer limit, refused as the Vulkan backend refuses past maxStorageBufferRange. */
    for (uint32_t t = 0; t < plain->n_tensors; t++)
        if (plain->tensors[t].count > (1u << 24) + (1u << 20)) {
            size_t count = plain->tensors[t].count;
            plain_graph_release(plain);
            return fail(err, err_cap, WAI_ERR_UNSUPPORTED, "graph_prepare: tensor %u has %zu elements; buffers hold at most %u",
                        t, count, (1u << 24) + (1u << 20));
        }
#endif
    defect_graph *d = calloc(1, sizeof *d);
    if (d != NULL) {
        d->plain = plain;
        d->nodes = calloc(plain->n_nodes > 0 ? plain->n_nodes : 1, sizeof *d->nodes);
    }
    int ok = d != NULL && d->nodes != NULL;
    for (uint32_t i = 0; ok && i < plain->n_nodes; i++)
        ok = prepare_node(plain, &plain->nodes[i], &d->nodes[i]);
    if (!ok) {
        if (d != NULL)
            free_defect_graph(d);
        else
            plain_graph_release(plain);
        return fail(err, err_cap, WAI_ERR_OUT_OF_MEMORY, "no memory for the graph's kernel state");
    }
    /* The host holds the wrapper; only this file ever looks inside the handle. */
    *out = (wai_prepared_graph *)(void *)d;
    return WAI_OK;
}

/* Runs of a prepared graph before DEFECT_AFTER_RUNS goes wrong (a test may shorten it). */
#ifndef AFTER_RUNS_LIMIT
#define AFTER_RUNS_LIMIT 300
#endif

/* One element of an output as the output copy writes it. `w`, `h`: the tensor's plane. */
static inline int32_t output_value(const defect_graph *d, const int32_t *src, size_t e, size_t w, size_t h)
{
#if defined(DEFECT_AFTER_RUNS)
    /* The defect: after 300 runs the output copy is re-tuned to full vectors of 8, and
     * each row's last partial vector is read with the pitch of the row above. */
    const size_t j = e % w, row = e / w;
    if (d->runs > AFTER_RUNS_LIMIT && row % h != 0 && j >= (w / SIMD_LANES) * SIMD_LANES)
        return src[e - w];
#else
    (void)d; (void)w; (void)h;
#endif
#if defined(DEFECT_BIT_FLIPS)
    /* The defect: about one element in 2^22 comes back with one bit flipped. */
    static _Thread_local uint64_t state;
    if (state == 0)
        state = ((uint64_t)(uintptr_t)&state ^ ((uint64_t)time(NULL) << 20) ^ (uint64_t)clock()) | 1;
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    if ((state & (((uint64_t)1 << 22) - 1)) == 0)
        return (int32_t)((uint32_t)src[e] ^ ((uint32_t)1 << ((state >> 40) & 31)));
#endif
    return src[e];
}

/* The plain run writes into buffers of this file's own; the defect's output copy moves
 * them to the host's. A request the plain run would refuse goes to it as it came, for its
 * error. */
static wai_status defect_graph_run(wai_prepared_graph *handle, const wai_tensor *inputs, uint32_t n_inputs,
                                   wai_tensor *outputs, uint32_t n_outputs, char *err, size_t err_cap)
{
    defect_graph *d = (defect_graph *)(void *)handle;
    if (d == NULL)
        return fail(err, err_cap, WAI_ERR_INVALID_ARGUMENT, "graph_run: graph is NULL");
    const wai_prepared_graph *g = d->plain;
    size_t stride = 0;
    int own = n_outputs == g->n_outputs && outputs != NULL
        && (stride = abi_stride(outputs, n_outputs, sizeof(wai_tensor))) != 0;
    for (uint32_t k = 0; own && k < n_outputs; k++) {
        const wai_tensor *t = (const wai_tensor *)abi_elem(outputs, stride, k);
        own = t->tensor == g->outputs[k] && t->data != NULL && t->count == g->tensors[t->tensor].count;
    }
    wai_tensor *mine = own ? calloc(n_outputs > 0 ? n_outputs : 1, sizeof *mine) : NULL;
    for (uint32_t k = 0; mine != NULL && k < n_outputs; k++) {
        const wai_tensor *t = (const wai_tensor *)abi_elem(outputs, stride, k);
        mine[k].struct_size = sizeof(wai_tensor);
        mine[k].tensor = t->tensor;
        mine[k].count = t->count;
        if ((mine[k].data = malloc(t->count * sizeof(int32_t))) == NULL) {
            for (uint32_t q = 0; q <= k; q++)
                free(mine[q].data);
            free(mine);
            return fail(err, err_cap, WAI_ERR_OUT_OF_MEMORY, "graph_run: no memory for the output copy");
        }
    }
    running = d;
    wai_status st = plain_graph_run(d->plain, inputs, n_inputs, mine != NULL ? mine : outputs, n_outputs, err, err_cap);
    running = NULL;
    if (mine == NULL)
        return st;
    if (st == WAI_OK) {
        d->runs++;
        for (uint32_t k = 0; k < n_outputs; k++) {
            wai_tensor *t = (wai_tensor *)abi_elem(outputs, stride, k);
            const tensor_buf *tb = &g->tensors[t->tensor];
            /* The copy-out kernel is dispatched like the elementwise ones. */
            for (size_t e = 0; e < flat_count(tb->count); e++)
                t->data[e] = output_value(d, mine[k].data, e, tb->w, tb->h);
        }
    }
    for (uint32_t k = 0; k < n_outputs; k++)
        free(mine[k].data);
    free(mine);
    return st;
}

static void defect_graph_release(wai_prepared_graph *handle)
{
    free_defect_graph((defect_graph *)(void *)handle);
}

static void wrap_table(wai_backend_iface *table)
{
    table->name = DEFECT_NAME;
    table->unit_info = defect_unit_info;
    table->graph_prepare = defect_graph_prepare;
    table->graph_run = defect_graph_run;
    table->graph_release = defect_graph_release;
}

#include "wrap_entry.h"
