/*
 * ref_backend.c — a complete WaiHost decode backend in plain C, written against
 * wai_backend.h alone (docs/backend-abi.md). It exists to prove that the ABI is enough:
 * a backend that never saw the host's Swift code loads, negotiates, and passes the
 * exactness probe.
 *
 * Build:  cc -std=c11 -shared -fPIC -O2 -I Sources/BackendABI/include \
 *            -o libWaiPlainCBackend.so Tests/CPlugins/ref_backend.c -lpthread
 *
 * It computes exactly what docs/integer-ops.md §4 defines, the way a real backend would:
 * in 32-bit arithmetic, relying on the host-verified bounds certificate (§5) for the
 * absence of overflow, with narrow tensors stored as int16. It never relies on what C
 * leaves implementation-defined: right shifts of negative values go through floor_shift().
 *
 * The same source, compiled with exactly one -DWAI_DEFECT_* flag, becomes one of the
 * deliberately wrong backends the host must refuse (Tests/WaiHostTests/CPluginTests.swift):
 *
 *   WAI_DEFECT_SHIFT_ZERO_FILL  right shifts zero-fill negatives (logical shift)
 *   WAI_DEFECT_TIES_DOWN        rounding ties go toward -inf: (x + 2^(s-1) - 1) >> s
 *   WAI_DEFECT_NARROW_WRAP      narrow conv outputs saturate to the symmetric range +-32767
 *   WAI_DEFECT_TCONV_PAD        transposed conv puts output_pad at the top/left
 *   WAI_DEFECT_CRASH            graph_run dies of SIGSEGV
 *   WAI_DEFECT_HANG             graph_run waits forever on a fence that never signals
 *   WAI_DEFECT_ABI_MAJOR        speaks ABI 2.x and refuses a 1.x host
 *   WAI_DEFECT_TABLE_MAJOR      accepts any host but hands back a table claiming 2.0
 *   WAI_DEFECT_SHORT_TABLE      table's struct_size ends before graph_run
 *   WAI_DEFECT_NO_ENTRY         exports no wai_backend_entry
 *   WAI_DEFECT_OOM_LARGE        exact, but graph_prepare runs out of memory on any tensor of
 *                               more than 2^20 elements (passes the probe, fails big graphs)
 *   WAI_DEFECT_WARP_BORDER      warp clamps the integer sample index instead of the
 *                               coordinate, so past an edge it still blends with the next
 *                               sample inwards (docs/integer-ops.md §4.10)
 *   WAI_DEFECT_WARP_AWAY        warp rounds its ties away from zero (a C kernel's roundf
 *                               habit) instead of toward +inf
 * and WAI_NO_WARP builds it as an exact ABI 1.0 backend: it knows ops 1-9 only and answers
 * graph_prepare `unsupported` for a warp (docs/backend-abi.md §2.4).
 */
#include "wai_backend.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------ */
/* Identity. Each variant gets its own name so that probe reports can tell them apart.  */

#if defined(WAI_DEFECT_SHIFT_ZERO_FILL)
#define DEFECT_SUFFIX "-shift-zero-fill"
#elif defined(WAI_DEFECT_TIES_DOWN)
#define DEFECT_SUFFIX "-ties-down"
#elif defined(WAI_DEFECT_NARROW_WRAP)
#define DEFECT_SUFFIX "-narrow-wrap"
#elif defined(WAI_DEFECT_TCONV_PAD)
#define DEFECT_SUFFIX "-tconv-pad"
#elif defined(WAI_DEFECT_CRASH)
#define DEFECT_SUFFIX "-crash"
#elif defined(WAI_DEFECT_HANG)
#define DEFECT_SUFFIX "-hang"
#elif defined(WAI_DEFECT_ABI_MAJOR)
#define DEFECT_SUFFIX "-abi-major"
#elif defined(WAI_DEFECT_TABLE_MAJOR)
#define DEFECT_SUFFIX "-table-major"
#elif defined(WAI_DEFECT_SHORT_TABLE)
#define DEFECT_SUFFIX "-short-table"
#elif defined(WAI_DEFECT_NO_ENTRY)
#define DEFECT_SUFFIX "-no-entry"
#elif defined(WAI_DEFECT_OOM_LARGE)
#define DEFECT_SUFFIX "-oom-large"
#elif defined(WAI_DEFECT_WARP_BORDER)
#define DEFECT_SUFFIX "-warp-border"
#elif defined(WAI_DEFECT_WARP_AWAY)
#define DEFECT_SUFFIX "-warp-away"
#elif defined(WAI_NO_WARP)
#define DEFECT_SUFFIX "-abi-1-0"
#else
#define DEFECT_SUFFIX ""
#endif

#define PLUGIN_NAME "plainc" DEFECT_SUFFIX
#define PLUGIN_VERSION "1.0.0"
#define UNIT_DEVICE "plain C test unit"
/* The kind the unit reports; a test builds it as a GPU to exercise what the host does
 * differently for one (spot checks beside the run, docs/probe.md §7). */
#ifndef UNIT_KIND
#define UNIT_KIND WAI_UNIT_CPU
#endif
#if defined(WAI_NO_WARP)
#define UNIT_DRIVER "ref_backend.c " PLUGIN_VERSION " (ABI 1.0)"
#else
#define UNIT_DRIVER "ref_backend.c " PLUGIN_VERSION " (ABI 1.1)"
#endif

#if defined(WAI_DEFECT_ABI_MAJOR) || defined(WAI_DEFECT_TABLE_MAJOR)
#define PLUGIN_ABI_MAJOR 2u
#else
#define PLUGIN_ABI_MAJOR WAI_ABI_MAJOR
#endif

/* docs/integer-ops.md §1: no tensor has more than 2^28 elements. */
#define MAX_ELEMENTS ((uint64_t)1 << 28)

/* ------------------------------------------------------------------------------------ */
/* Errors: a status plus a message in the caller's buffer, never memory the host frees. */

static wai_status fail(char *err, size_t err_cap, wai_status status, const char *fmt, ...)
{
    if (err != NULL && err_cap > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, err_cap, fmt, ap);
        va_end(ap);
    }
    return status;
}

static void clear_err(char *err, size_t err_cap)
{
    if (err != NULL && err_cap > 0)
        err[0] = '\0';
}

/* The minor this file implements: 1.1 adds the warp; WAI_NO_WARP is the 1.0 backend. */
#if defined(WAI_NO_WARP) || defined(WAI_DEFECT_ABI_MAJOR) || defined(WAI_DEFECT_TABLE_MAJOR)
#define PLUGIN_ABI_MINOR 0u
#define LAST_OP WAI_OP_INVERSE_GDN
#else
#define PLUGIN_ABI_MINOR WAI_ABI_MINOR
#define LAST_OP WAI_OP_WARP
#endif

static int known_op(uint32_t op)
{
    return op >= WAI_OP_CONV2D && op <= LAST_OP;
}

static const char *op_name(uint32_t op)
{
    switch (op) {
    case WAI_OP_CONV2D: return "conv2d";
    case WAI_OP_CONV_TRANSPOSE2D: return "conv_transpose2d";
    case WAI_OP_REQUANTIZE: return "requantize";
    case WAI_OP_ADD: return "add";
    case WAI_OP_CLAMP: return "clamp";
    case WAI_OP_DEPTH_TO_SPACE: return "depth_to_space";
    case WAI_OP_CONCAT: return "concat";
    case WAI_OP_LOOKUP: return "lookup";
    case WAI_OP_INVERSE_GDN: return "inverse_gdn";
    case WAI_OP_WARP: return "warp";
    }
    return "unknown op";
}

/* ------------------------------------------------------------------------------------ */
/* Integer semantics (docs/integer-ops.md §3).                                           */

/* x >> s rounding toward -inf. C leaves >> of a negative value implementation-defined,
 * so negatives are shifted as their one's complement, which is non-negative:
 * floor(x / 2^s) = ~(~x >> s) for x < 0. */
static inline int32_t floor_shift(int32_t x, uint32_t s)
{
#if defined(WAI_DEFECT_SHIFT_ZERO_FILL)
    /* The defect: a logical shift, as a shader compiler that treats >> as unsigned does. */
    return (int32_t)((uint32_t)x >> s);
#else
    return x >= 0 ? (int32_t)((uint32_t)x >> s) : ~(int32_t)((uint32_t)~x >> s);
#endif
}

/* rnd(x, s) = (x + 2^(s-1)) >> s, ties toward +inf; the certificate guarantees that the
 * sum fits int32. */
static inline int32_t round_shift(int32_t x, uint32_t s)
{
    if (s == 0)
        return x;
#if defined(WAI_DEFECT_TIES_DOWN)
    /* The defect: "round half down", a bias a hand-written kernel easily picks up. */
    return floor_shift(x + ((int32_t)1 << (s - 1)) - 1, s);
#else
    return floor_shift(x + ((int32_t)1 << (s - 1)), s);
#endif
}

static inline int32_t clamp32(int32_t x, int32_t lo, int32_t hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

/* The largest r with r*r <= n, digit by digit: exact, no floating point. */
static int32_t isqrt32(int32_t n)
{
    uint32_t x = (uint32_t)n, r = 0, bit = (uint32_t)1 << 30;
    while (bit > x)
        bit >>= 2;
    while (bit != 0) {
        if (x >= r + bit) {
            x -= r + bit;
            r = (r >> 1) + bit;
        } else {
            r >>= 1;
        }
        bit >>= 2;
    }
    return (int32_t)r;
}

/* ------------------------------------------------------------------------------------ */
/* Tensors inside the backend: narrow ones as int16, wide ones as int32 (§2).            */

typedef struct tensor_buf {
    uint32_t c, h, w;
    size_t count;
    int narrow;
    int32_t lo, hi;     /* certificate interval, checked against host inputs */
    void *data;         /* int16_t[count] or int32_t[count] */
} tensor_buf;

static inline int32_t load(const tensor_buf *t, size_t i)
{
    /* The cast from int16_t sign-extends: the whole point of narrow storage (§2). */
    return t->narrow ? (int32_t)((const int16_t *)t->data)[i] : ((const int32_t *)t->data)[i];
}

static inline void store(tensor_buf *t, size_t i, int32_t v)
{
    /* In range by the certificate: every value lies inside its tensor's storage (§2). */
    if (t->narrow)
        ((int16_t *)t->data)[i] = (int16_t)v;
    else
        ((int32_t *)t->data)[i] = v;
}

/* The epilogue of the convolution kernels: writes one finished accumulator. */
static inline void store_accumulator(tensor_buf *y, size_t i, int32_t acc)
{
#if defined(WAI_DEFECT_NARROW_WRAP)
    /* The defect: the narrow epilogue saturates to the symmetric range +-32767, the habit
     * of symmetric int16 quantisers. Only the bound's very edge, -32768, is damaged, and
     * only where a convolution writes a narrow tensor: what the probe's graphs at the
     * edge of the narrow kernels' bound must catch. */
    if (y->narrow && acc < -32767)
        acc = -32767;
#endif
    store(y, i, acc);
}

static inline size_t at(const tensor_buf *t, size_t c, size_t i, size_t j)
{
    return (c * t->h + i) * t->w + j;
}

/* ------------------------------------------------------------------------------------ */
/* Nodes as the prepared graph keeps them: copies, since the host's arrays live only    */
/* until graph_prepare returns.                                                          */

typedef struct node {
    uint32_t op;
    uint32_t n_inputs;
    uint32_t *inputs;
    uint32_t output;
    uint32_t kh, kw, stride, pad, output_pad, block;
    int16_t *weights;
    int32_t *bias, *multiplier, *shift, *table, *beta, *gamma;
    int32_t clamp_lo, clamp_hi, table_offset;
    uint32_t table_len, square_shift, out_shift;
} node;

struct wai_prepared_graph {
    uint32_t n_tensors;
    tensor_buf *tensors;
    uint32_t n_nodes;
    node *nodes;
    uint32_t n_inputs, n_outputs;
    uint32_t *inputs, *outputs;
    int32_t *scratch;   /* inverse_gdn's per-position squares; one run at a time (§8) */
};

struct wai_backend {
    int unused;  /* the plain C unit keeps no state between graphs */
};

/* ------------------------------------------------------------------------------------ */
/* The kernels. Every value product and sum fits int32 by the certificate; index        */
/* arithmetic uses ptrdiff_t because it is not covered by the certificate.              */

static void run_conv2d(const node *n, tensor_buf *tb)
{
    const tensor_buf *x = &tb[n->inputs[0]];
    tensor_buf *y = &tb[n->output];
    const ptrdiff_t H = x->h, W = x->w;
    for (size_t o = 0; o < y->c; o++)
        for (size_t i = 0; i < y->h; i++)
            for (size_t j = 0; j < y->w; j++) {
                int32_t acc = n->bias[o];
                for (size_t c = 0; c < x->c; c++)
                    for (ptrdiff_t u = 0; u < (ptrdiff_t)n->kh; u++) {
                        ptrdiff_t xi = (ptrdiff_t)i * n->stride - n->pad + u;
                        if (xi < 0 || xi >= H)
                            continue;  /* zero padding contributes nothing */
                        for (ptrdiff_t v = 0; v < (ptrdiff_t)n->kw; v++) {
                            ptrdiff_t xj = (ptrdiff_t)j * n->stride - n->pad + v;
                            if (xj < 0 || xj >= W)
                                continue;
                            int32_t wv = n->weights[((o * x->c + c) * n->kh + (size_t)u) * n->kw + (size_t)v];
                            acc += wv * load(x, at(x, c, (size_t)xi, (size_t)xj));
                        }
                    }
                store_accumulator(y, at(y, o, i, j), acc);
            }
}

/* The input position a that output coordinate `out` takes from tap `u`, if any:
 * a*stride - pad + u = out. Only non-negative operands reach % and /, so both are exact. */
static int tconv_source(ptrdiff_t out, size_t u, const node *n, size_t len, size_t *a)
{
    ptrdiff_t t = out + (ptrdiff_t)n->pad - (ptrdiff_t)u;
    if (t < 0 || (size_t)t % n->stride != 0)
        return 0;
    *a = (size_t)t / n->stride;
    return *a < len;
}

static void run_conv_transpose2d(const node *n, tensor_buf *tb)
{
    const tensor_buf *x = &tb[n->inputs[0]];
    tensor_buf *y = &tb[n->output];
    /* Gather form of §4.2: every output element sums the taps that land on it. */
    for (size_t o = 0; o < y->c; o++)
        for (size_t i = 0; i < y->h; i++)
            for (size_t j = 0; j < y->w; j++) {
#if defined(WAI_DEFECT_TCONV_PAD)
                /* The defect: the extra output_pad rows/columns go to the top/left (as if
                 * the dilated input were padded there), shifting the whole output. */
                const ptrdiff_t oi = (ptrdiff_t)i - (ptrdiff_t)n->output_pad;
                const ptrdiff_t oj = (ptrdiff_t)j - (ptrdiff_t)n->output_pad;
#else
                const ptrdiff_t oi = (ptrdiff_t)i, oj = (ptrdiff_t)j;
#endif
                int32_t acc = n->bias[o];
                for (size_t c = 0; c < x->c; c++)
                    for (size_t u = 0; u < n->kh; u++) {
                        size_t a;
                        if (!tconv_source(oi, u, n, x->h, &a))
                            continue;
                        for (size_t v = 0; v < n->kw; v++) {
                            size_t b;
                            if (!tconv_source(oj, v, n, x->w, &b))
                                continue;
                            int32_t wv = n->weights[((c * y->c + o) * n->kh + u) * n->kw + v];
                            acc += wv * load(x, at(x, c, a, b));
                        }
                    }
                store_accumulator(y, at(y, o, i, j), acc);
            }
}

static void run_requantize(const node *n, tensor_buf *tb)
{
    const tensor_buf *x = &tb[n->inputs[0]];
    tensor_buf *y = &tb[n->output];
    const size_t plane = (size_t)x->h * x->w;
    for (size_t c = 0; c < x->c; c++) {
        const int32_t m = n->multiplier[c];
        const uint32_t s = (uint32_t)n->shift[c];
        for (size_t k = c * plane; k < (c + 1) * plane; k++)
            store(y, k, clamp32(round_shift(load(x, k) * m, s), n->clamp_lo, n->clamp_hi));
    }
}

static void run_add(const node *n, tensor_buf *tb)
{
    const tensor_buf *a = &tb[n->inputs[0]], *b = &tb[n->inputs[1]];
    tensor_buf *y = &tb[n->output];
    for (size_t k = 0; k < y->count; k++)
        store(y, k, load(a, k) + load(b, k));
}

static void run_clamp(const node *n, tensor_buf *tb)
{
    const tensor_buf *x = &tb[n->inputs[0]];
    tensor_buf *y = &tb[n->output];
    for (size_t k = 0; k < y->count; k++)
        store(y, k, clamp32(load(x, k), n->clamp_lo, n->clamp_hi));
}

static void run_depth_to_space(const node *n, tensor_buf *tb)
{
    const tensor_buf *x = &tb[n->inputs[0]];
    tensor_buf *y = &tb[n->output];
    const size_t r = n->block;
    for (size_t c = 0; c < y->c; c++)
        for (size_t u = 0; u < r; u++)
            for (size_t v = 0; v < r; v++)
                for (size_t i = 0; i < x->h; i++)
                    for (size_t j = 0; j < x->w; j++)
                        store(y, at(y, c, i * r + u, j * r + v),
                              load(x, at(x, c * r * r + u * r + v, i, j)));
}

static void run_concat(const node *n, tensor_buf *tb)
{
    tensor_buf *y = &tb[n->output];
    size_t k = 0;  /* CHW: each input is one contiguous run of channels */
    for (uint32_t q = 0; q < n->n_inputs; q++) {
        const tensor_buf *x = &tb[n->inputs[q]];
        for (size_t e = 0; e < x->count; e++)
            store(y, k++, load(x, e));
    }
}

static void run_lookup(const node *n, tensor_buf *tb)
{
    const tensor_buf *x = &tb[n->inputs[0]];
    tensor_buf *y = &tb[n->output];
    const int32_t last = (int32_t)n->table_len - 1;
    for (size_t k = 0; k < y->count; k++)
        store(y, k, n->table[clamp32(load(x, k) - n->table_offset, 0, last)]);
}

static void run_inverse_gdn(const node *n, tensor_buf *tb, int32_t *sq)
{
    const tensor_buf *x = &tb[n->inputs[0]];
    tensor_buf *y = &tb[n->output];
    const size_t C = x->c, plane = (size_t)x->h * x->w;
    for (size_t p = 0; p < plane; p++) {
        for (size_t k = 0; k < C; k++) {
            int32_t v = load(x, k * plane + p);
            sq[k] = floor_shift(v * v, n->square_shift);
        }
        for (size_t c = 0; c < C; c++) {
            int32_t norm = n->beta[c];
            for (size_t k = 0; k < C; k++)
                norm += n->gamma[c * C + k] * sq[k];
            int32_t v = load(x, c * plane + p);
            store(y, c * plane + p, round_shift(v * isqrt32(norm), n->out_shift));
        }
    }
}

/* docs/integer-ops.md §4.10: clamp each coordinate to the border, split it into a sample
 * index and a fraction of F bits, blend the eight neighbours with exact weights, round
 * once by 3F bits. The certificate keeps every sum in int32. */
static int32_t clamp_coordinate(int32_t u, int32_t n, int32_t e, int32_t *index, int32_t *frac, uint32_t f)
{
#if defined(WAI_DEFECT_WARP_BORDER)
    /* The defect: the index is clamped, the fraction kept, as a kernel that splits first
     * does: past an edge it still blends with the next sample inwards. */
    int32_t i0 = clamp32(floor_shift(u, f), 0, n - 1);
    *frac = u - floor_shift(u, f) * e;
    if (i0 == n - 1)
        *frac = 0;
    *index = i0;
    return i0;
#else
    int32_t c = clamp32(u, 0, (n - 1) * e);
    *index = floor_shift(c, f);
    *frac = c - *index * e;
    return *index;
#endif
}

static void run_warp(const node *n, tensor_buf *tb)
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
            clamp_coordinate(j * e + load(fl, p), W, e, &x0, &ax, f);
            clamp_coordinate(i * e + load(fl, plane + p), H, e, &y0, &ay, f);
            clamp_coordinate(load(fl, 2 * plane + p), S, e, &z0, &az, f);
            const int32_t xs[2] = { x0, x0 + 1 < W ? x0 + 1 : W - 1 };
            const int32_t ys[2] = { y0, y0 + 1 < H ? y0 + 1 : H - 1 };
            const int32_t zs[2] = { z0, z0 + 1 < S ? z0 + 1 : S - 1 };
            const int32_t wx[2] = { e - ax, ax }, wy[2] = { e - ay, ay }, wz[2] = { e - az, az };
            for (int32_t c = 0; c < C; c++) {
                int32_t acc = 0;
                for (int r = 0; r < 2; r++)
                    for (int q = 0; q < 2; q++)
                        for (int s = 0; s < 2; s++)
                            acc += wz[r] * wy[q] * wx[s] * load(v, at(v, (size_t)zs[r] * C + c, ys[q], xs[s]));
#if defined(WAI_DEFECT_WARP_AWAY)
                /* The defect: |acc| rounded and the sign put back, ties away from zero. */
                int32_t mag = round_shift(acc < 0 ? -acc : acc, 3 * f);
                store(y, (size_t)c * plane + p, acc < 0 ? -mag : mag);
#else
                store(y, (size_t)c * plane + p, round_shift(acc, 3 * f));
#endif
            }
        }
}

static void run_node(const node *n, wai_prepared_graph *g)
{
    switch (n->op) {
    case WAI_OP_CONV2D: run_conv2d(n, g->tensors); break;
    case WAI_OP_CONV_TRANSPOSE2D: run_conv_transpose2d(n, g->tensors); break;
    case WAI_OP_REQUANTIZE: run_requantize(n, g->tensors); break;
    case WAI_OP_ADD: run_add(n, g->tensors); break;
    case WAI_OP_CLAMP: run_clamp(n, g->tensors); break;
    case WAI_OP_DEPTH_TO_SPACE: run_depth_to_space(n, g->tensors); break;
    case WAI_OP_CONCAT: run_concat(n, g->tensors); break;
    case WAI_OP_LOOKUP: run_lookup(n, g->tensors); break;
    case WAI_OP_INVERSE_GDN: run_inverse_gdn(n, g->tensors, g->scratch); break;
    case WAI_OP_WARP: run_warp(n, g->tensors); break;
    }
}

/* ------------------------------------------------------------------------------------ */
/* Reading the host's descriptors (docs/backend-abi.md §2, §6).                          */

/* Element i of an array of ABI structs. A newer host's structs may be longer than the
 * ones this file was compiled with, so arrays are strided by the struct_size their
 * elements carry, never by our sizeof. */
/* A member appended after 1.0 is read only when the peer's struct_size covers it
 * (docs/backend-abi.md §2.3). WAI_FUTURE_MEMBER is defined only when this file is built
 * against the struct-size test's header, where every struct has one appended member
 * (Tests/WaiHostTests/ABIStructSizeTests.swift); its default, 0, means "as before". */
#define WAI_COVERS(p, type, member) ((p)->struct_size >= WAI_STRUCT_SIZE(type, member))
#ifdef WAI_FUTURE_MEMBER
#define FUTURE_SET(p, type) (WAI_COVERS(p, type, WAI_FUTURE_MEMBER) && (p)->WAI_FUTURE_MEMBER != 0)
#else
#define FUTURE_SET(p, type) 0
#endif

static const void *abi_elem(const void *base, size_t stride, uint32_t i)
{
    return (const char *)base + (size_t)i * stride;
}

/* The stride of an array of ABI structs, or 0 when an element is too small for a
 * 1.0 reader or the elements disagree about their size. */
static size_t abi_stride(const void *base, uint32_t count, size_t min_size)
{
    const size_t first = *(const size_t *)base;
    if (first < min_size)
        return 0;
    for (uint32_t i = 1; i < count; i++)
        if (*(const size_t *)abi_elem(base, first, i) != first)
            return 0;
    return first;
}

static int mul_size(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a)
        return 0;
    *out = a * b;
    return 1;
}

/* Copies `count` elements of `elem` bytes into new memory; 0 on NULL input or no memory. */
static void *copy_array(const void *src, size_t count, size_t elem)
{
    size_t bytes;
    if (src == NULL || !mul_size(count, elem, &bytes))
        return NULL;
    void *dst = malloc(bytes > 0 ? bytes : 1);
    if (dst != NULL && bytes > 0)
        memcpy(dst, src, bytes);
    return dst;
}

typedef struct checker {
    const wai_graph_desc *g;
    size_t tensor_stride;
    char *err;
    size_t err_cap;
} checker;

static const wai_tensor_desc *tdesc(const checker *ck, uint32_t t)
{
    return (const wai_tensor_desc *)abi_elem(ck->g->tensors, ck->tensor_stride, t);
}

static wai_status check_tensor(const checker *ck, uint32_t t)
{
    const wai_tensor_desc *d = tdesc(ck, t);
    if (d->channels == 0 || d->height == 0 || d->width == 0)
        return fail(ck->err, ck->err_cap, WAI_ERR_INVALID_ARGUMENT,
                    "tensor %u: shape %ux%ux%u has an empty dimension", t, d->channels,
                    d->height, d->width);
    if ((uint64_t)d->channels * d->height * d->width > MAX_ELEMENTS)
        return fail(ck->err, ck->err_cap, WAI_ERR_INVALID_ARGUMENT,
                    "tensor %u: shape %ux%ux%u has more than 2^28 elements", t, d->channels,
                    d->height, d->width);
    if (d->storage_bits != 16 && d->storage_bits != 32)
        return fail(ck->err, ck->err_cap, WAI_ERR_INVALID_ARGUMENT,
                    "tensor %u: storage_bits is %u, not 16 or 32", t, d->storage_bits);
    if (d->lo > d->hi)
        return fail(ck->err, ck->err_cap, WAI_ERR_INVALID_ARGUMENT,
                    "tensor %u: interval [%d, %d] is empty", t, d->lo, d->hi);
    if (d->storage_bits == 16 && (d->lo < INT16_MIN || d->hi > INT16_MAX))
        return fail(ck->err, ck->err_cap, WAI_ERR_INVALID_ARGUMENT,
                    "tensor %u: interval [%d, %d] does not fit narrow storage", t, d->lo, d->hi);
    return WAI_OK;
}

static int same_shape(const wai_tensor_desc *a, const wai_tensor_desc *b)
{
    return a->channels == b->channels && a->height == b->height && a->width == b->width;
}

/* Fails with "node N (op): ..."; used inside the node checks, whose parameters are
 * always named ck, index and d. */
#define NODE_FAIL(status, ...) \
    node_fail(ck, index, d->op, status, __VA_ARGS__)

static wai_status node_fail(const checker *ck, uint32_t index, uint32_t op, wai_status status,
                            const char *fmt, ...)
{
    if (ck->err == NULL || ck->err_cap == 0)
        return status;
    int n = snprintf(ck->err, ck->err_cap, "node %u (%s): ", index, op_name(op));
    if (n >= 0 && (size_t)n < ck->err_cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ck->err + n, ck->err_cap - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return status;
}

static wai_status check_conv(const checker *ck, uint32_t index, const wai_node_desc *d,
                             const wai_tensor_desc *x, const wai_tensor_desc *y)
{
    const int transposed = d->op == WAI_OP_CONV_TRANSPOSE2D;
    if (d->kernel_h < 1 || d->kernel_h > 15 || d->kernel_w < 1 || d->kernel_w > 15)
        return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "kernel %ux%u outside 1..15",
                         d->kernel_h, d->kernel_w);
    if (d->stride < 1 || d->stride > 8)
        return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "stride %u outside 1..8", d->stride);
    if (d->pad >= d->kernel_h || d->pad >= d->kernel_w)
        return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "pad %u not below kernel %ux%u", d->pad,
                         d->kernel_h, d->kernel_w);
    if (transposed ? d->output_pad >= d->stride : d->output_pad != 0)
        return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "output_pad %u invalid (stride %u)",
                         d->output_pad, d->stride);
    if (d->weights == NULL || d->bias == NULL)
        return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "weights or bias is NULL");
    int64_t ho, wo;
    if (transposed) {
        ho = ((int64_t)x->height - 1) * d->stride - 2 * (int64_t)d->pad + d->kernel_h + d->output_pad;
        wo = ((int64_t)x->width - 1) * d->stride - 2 * (int64_t)d->pad + d->kernel_w + d->output_pad;
    } else {
        int64_t th = (int64_t)x->height + 2 * (int64_t)d->pad - d->kernel_h;
        int64_t tw = (int64_t)x->width + 2 * (int64_t)d->pad - d->kernel_w;
        if (th < 0 || tw < 0)
            return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "input %ux%u smaller than kernel %ux%u",
                             x->height, x->width, d->kernel_h, d->kernel_w);
        ho = th / d->stride + 1;  /* non-negative: exact floor */
        wo = tw / d->stride + 1;
    }
    if (ho != (int64_t)y->height || wo != (int64_t)y->width)
        return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "output is %ux%u, the op gives %lldx%lld",
                         y->height, y->width, (long long)ho, (long long)wo);
    return WAI_OK;
}

static wai_status check_op(const checker *ck, uint32_t index, const wai_node_desc *d)
{
    const wai_tensor_desc *y = tdesc(ck, d->output);
    const wai_tensor_desc *x = tdesc(ck, d->inputs[0]);
    const uint32_t want_inputs = d->op == WAI_OP_ADD || d->op == WAI_OP_WARP ? 2 : 1;
    if (d->op != WAI_OP_CONCAT && d->n_inputs != want_inputs)
        return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "%u inputs, the op takes %u", d->n_inputs,
                         want_inputs);

    switch (d->op) {
    case WAI_OP_CONV2D:
    case WAI_OP_CONV_TRANSPOSE2D:
        return check_conv(ck, index, d, x, y);
    case WAI_OP_REQUANTIZE:
        if (!same_shape(x, y))
            return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "output shape differs from input");
        if (d->multiplier == NULL || d->shift == NULL)
            return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "multiplier or shift is NULL");
        for (uint32_t c = 0; c < x->channels; c++)
            if (d->multiplier[c] < 1 || d->shift[c] < 0 || d->shift[c] > 31)
                return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "channel %u: multiplier %d, shift %d",
                                 c, d->multiplier[c], d->shift[c]);
        if (d->clamp_lo > d->clamp_hi)
            return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "clamp [%d, %d] is empty", d->clamp_lo,
                             d->clamp_hi);
        return WAI_OK;
    case WAI_OP_ADD:
        if (!same_shape(x, y) || !same_shape(tdesc(ck, d->inputs[1]), y))
            return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "operand shapes differ");
        return WAI_OK;
    case WAI_OP_CLAMP:
        if (!same_shape(x, y))
            return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "output shape differs from input");
        if (d->clamp_lo > d->clamp_hi)
            return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "clamp [%d, %d] is empty", d->clamp_lo,
                             d->clamp_hi);
        return WAI_OK;
    case WAI_OP_DEPTH_TO_SPACE: {
        const uint64_t r = d->block;
        if (r < 2 || (uint64_t)y->channels * r * r != x->channels ||
            (uint64_t)x->height * r != y->height || (uint64_t)x->width * r != y->width)
            return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "block %u does not map %ux%ux%u to %ux%ux%u",
                             d->block, x->channels, x->height, x->width, y->channels,
                             y->height, y->width);
        return WAI_OK;
    }
    case WAI_OP_CONCAT: {
        if (d->n_inputs < 1)
            return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "no inputs");
        uint64_t channels = 0;
        for (uint32_t q = 0; q < d->n_inputs; q++) {
            const wai_tensor_desc *in = tdesc(ck, d->inputs[q]);
            if (in->height != y->height || in->width != y->width)
                return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "input %u is %ux%u, output %ux%u", q,
                                 in->height, in->width, y->height, y->width);
            channels += in->channels;
        }
        if (channels != y->channels)
            return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "inputs have %llu channels, output %u",
                             (unsigned long long)channels, y->channels);
        return WAI_OK;
    }
    case WAI_OP_LOOKUP:
        if (!same_shape(x, y))
            return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "output shape differs from input");
        if (d->table == NULL || d->table_len < 1 || d->table_len > 65536)
            return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "table missing or length %u outside 1..65536",
                             d->table_len);
        return WAI_OK;
    case WAI_OP_INVERSE_GDN:
        if (!same_shape(x, y))
            return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "output shape differs from input");
        if (d->beta == NULL || d->gamma == NULL)
            return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "beta or gamma is NULL");
        if (d->square_shift > 30 || d->out_shift > 31)
            return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "square_shift %u or out_shift %u too large",
                             d->square_shift, d->out_shift);
        /* isqrt of a negative norm has no meaning; the certificate assumes these signs. */
        for (uint64_t k = 0; k < (uint64_t)x->channels * x->channels; k++)
            if (d->gamma[k] < 0 || (k < x->channels && d->beta[k] < 0))
                return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "negative beta or gamma");
        return WAI_OK;
    case WAI_OP_WARP: {
        const wai_tensor_desc *fl = tdesc(ck, d->inputs[1]);
        if (d->block < 1 || d->block > 64 || d->out_shift > 10)
            return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "scales %u outside 1..64 or frac_bits %u outside 0..10",
                             d->block, d->out_shift);
        if ((uint64_t)y->channels * d->block != x->channels || y->height != x->height || y->width != x->width ||
            fl->channels != 3 || fl->height != x->height || fl->width != x->width)
            return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "volume %ux%ux%u, flow %ux%ux%u, output %ux%ux%u do not fit %u scales",
                             x->channels, x->height, x->width, fl->channels, fl->height, fl->width,
                             y->channels, y->height, y->width, d->block);
        return WAI_OK;
    }
    }
    return NODE_FAIL(WAI_ERR_UNSUPPORTED, "op code %u is not an op this backend knows (1..%u)", d->op, (unsigned)LAST_OP);
}

/* Structure of one node: known op, indices in range, written once, inputs already written. */
static wai_status check_node(const checker *ck, uint32_t index, const wai_node_desc *d,
                             unsigned char *written)
{
    if (!known_op(d->op))
        return NODE_FAIL(WAI_ERR_UNSUPPORTED, "op code %u is not an op this backend knows (1..%u)", d->op, (unsigned)LAST_OP);
    if (d->n_inputs < 1 || d->inputs == NULL)
        return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "no inputs");
    for (uint32_t q = 0; q < d->n_inputs; q++) {
        if (d->inputs[q] >= ck->g->n_tensors)
            return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "input %u is tensor %u of %u", q,
                             d->inputs[q], ck->g->n_tensors);
        if (!written[d->inputs[q]])
            return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT,
                             "reads tensor %u before any node writes it", d->inputs[q]);
    }
    if (d->output >= ck->g->n_tensors)
        return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT, "output is tensor %u of %u", d->output,
                         ck->g->n_tensors);
    if (written[d->output])
        return NODE_FAIL(WAI_ERR_INVALID_ARGUMENT,
                         "writes tensor %u, already a graph input or written", d->output);
    wai_status st = check_op(ck, index, d);
    if (st != WAI_OK)
        return st;
    written[d->output] = 1;
    return WAI_OK;
}

static wai_status check_index_list(const checker *ck, const char *what, uint32_t count,
                                   const uint32_t *list)
{
    if (count < 1 || list == NULL)
        return fail(ck->err, ck->err_cap, WAI_ERR_INVALID_ARGUMENT, "graph has no %s", what);
    for (uint32_t k = 0; k < count; k++)
        if (list[k] >= ck->g->n_tensors)
            return fail(ck->err, ck->err_cap, WAI_ERR_INVALID_ARGUMENT,
                        "%s %u is tensor %u of %u", what, k, list[k], ck->g->n_tensors);
    return WAI_OK;
}

/* Validates the whole descriptor before anything is copied, so a bad one costs nothing. */
static wai_status check_graph(checker *ck, size_t *node_stride)
{
    const wai_graph_desc *g = ck->g;
    if (g->struct_size < WAI_GRAPH_DESC_SIZE_1_0)
        return fail(ck->err, ck->err_cap, WAI_ERR_INVALID_ARGUMENT,
                    "wai_graph_desc.struct_size %zu < %zu (ABI 1.0)", g->struct_size,
                    (size_t)WAI_GRAPH_DESC_SIZE_1_0);
    if (FUTURE_SET(g, wai_graph_desc))
        return fail(ck->err, ck->err_cap, WAI_ERR_UNSUPPORTED, "wai_graph_desc: appended member set");
    if (g->n_tensors < 1 || g->tensors == NULL)
        return fail(ck->err, ck->err_cap, WAI_ERR_INVALID_ARGUMENT, "graph has no tensors");
    ck->tensor_stride = abi_stride(g->tensors, g->n_tensors, WAI_TENSOR_DESC_SIZE_1_0);
    if (ck->tensor_stride == 0)
        return fail(ck->err, ck->err_cap, WAI_ERR_INVALID_ARGUMENT,
                    "tensor descriptors: struct_size below %zu or not the same in every element",
                    (size_t)WAI_TENSOR_DESC_SIZE_1_0);
    for (uint32_t t = 0; t < g->n_tensors; t++) {
        wai_status st = check_tensor(ck, t);
        if (st != WAI_OK)
            return st;
    }
    wai_status st = check_index_list(ck, "input", g->n_inputs, g->inputs);
    if (st == WAI_OK)
        st = check_index_list(ck, "output", g->n_outputs, g->outputs);
    if (st != WAI_OK)
        return st;
    if (g->n_nodes > 0 && g->nodes == NULL)
        return fail(ck->err, ck->err_cap, WAI_ERR_INVALID_ARGUMENT, "nodes is NULL");
    *node_stride = g->n_nodes > 0 ? abi_stride(g->nodes, g->n_nodes, WAI_NODE_DESC_SIZE_1_0)
                                  : sizeof(wai_node_desc);
    if (*node_stride == 0)
        return fail(ck->err, ck->err_cap, WAI_ERR_INVALID_ARGUMENT,
                    "node descriptors: struct_size below %zu or not the same in every element",
                    (size_t)WAI_NODE_DESC_SIZE_1_0);
    for (uint32_t i = 0; i < g->n_nodes; i++)
        if (FUTURE_SET((const wai_node_desc *)abi_elem(g->nodes, *node_stride, i), wai_node_desc))
            return fail(ck->err, ck->err_cap, WAI_ERR_UNSUPPORTED, "node %u: appended member set", i);
    for (uint32_t t = 0; t < g->n_tensors; t++)
        if (FUTURE_SET((const wai_tensor_desc *)abi_elem(g->tensors, ck->tensor_stride, t), wai_tensor_desc))
            return fail(ck->err, ck->err_cap, WAI_ERR_UNSUPPORTED, "tensor %u: appended member set", t);

    unsigned char *written = calloc(g->n_tensors, 1);
    if (written == NULL)
        return fail(ck->err, ck->err_cap, WAI_ERR_OUT_OF_MEMORY, "no memory to check the graph");
    for (uint32_t k = 0; k < g->n_inputs && st == WAI_OK; k++) {
        if (written[g->inputs[k]])
            st = fail(ck->err, ck->err_cap, WAI_ERR_INVALID_ARGUMENT,
                      "tensor %u is listed twice as a graph input", g->inputs[k]);
        written[g->inputs[k]] = 1;
    }
    for (uint32_t i = 0; i < g->n_nodes && st == WAI_OK; i++)
        st = check_node(ck, i, (const wai_node_desc *)abi_elem(g->nodes, *node_stride, i), written);
    for (uint32_t k = 0; k < g->n_outputs && st == WAI_OK; k++)
        if (!written[g->outputs[k]])
            st = fail(ck->err, ck->err_cap, WAI_ERR_INVALID_ARGUMENT,
                      "output %u (tensor %u) is never written", k, g->outputs[k]);
    free(written);
    return st;
}

/* ------------------------------------------------------------------------------------ */
/* Preparing: copy everything the graph needs, allocate every tensor once.              */

static void free_graph(wai_prepared_graph *g)
{
    if (g == NULL)
        return;
    for (uint32_t t = 0; g->tensors != NULL && t < g->n_tensors; t++)
        free(g->tensors[t].data);
    for (uint32_t i = 0; g->nodes != NULL && i < g->n_nodes; i++) {
        node *n = &g->nodes[i];
        free(n->inputs);
        free(n->weights);
        free(n->bias);
        free(n->multiplier);
        free(n->shift);
        free(n->table);
        free(n->beta);
        free(n->gamma);
    }
    free(g->tensors);
    free(g->nodes);
    free(g->inputs);
    free(g->outputs);
    free(g->scratch);
    free(g);
}

/* Copies one node's parameters; 0 when memory runs out. */
static int copy_node(node *n, const wai_node_desc *d, const checker *ck)
{
    const wai_tensor_desc *x = tdesc(ck, d->inputs[0]), *y = tdesc(ck, d->output);
    n->op = d->op;
    n->n_inputs = d->n_inputs;
    n->output = d->output;
    n->inputs = copy_array(d->inputs, d->n_inputs, sizeof(uint32_t));
    if (n->inputs == NULL)
        return 0;
    n->kh = d->kernel_h;
    n->kw = d->kernel_w;
    n->stride = d->stride;
    n->pad = d->pad;
    n->output_pad = d->output_pad;
    n->block = d->block;
    n->clamp_lo = d->clamp_lo;
    n->clamp_hi = d->clamp_hi;
    n->table_offset = d->table_offset;
    n->table_len = d->table_len;
    n->square_shift = d->square_shift;
    n->out_shift = d->out_shift;
    switch (d->op) {
    case WAI_OP_CONV2D:
    case WAI_OP_CONV_TRANSPOSE2D: {
        size_t count;
        if (!mul_size((size_t)x->channels * y->channels, (size_t)d->kernel_h * d->kernel_w, &count))
            return 0;
        n->weights = copy_array(d->weights, count, sizeof(int16_t));
        n->bias = copy_array(d->bias, y->channels, sizeof(int32_t));
        return n->weights != NULL && n->bias != NULL;
    }
    case WAI_OP_REQUANTIZE:
        n->multiplier = copy_array(d->multiplier, x->channels, sizeof(int32_t));
        n->shift = copy_array(d->shift, x->channels, sizeof(int32_t));
        return n->multiplier != NULL && n->shift != NULL;
    case WAI_OP_LOOKUP:
        n->table = copy_array(d->table, d->table_len, sizeof(int32_t));
        return n->table != NULL;
    case WAI_OP_INVERSE_GDN:
        n->beta = copy_array(d->beta, x->channels, sizeof(int32_t));
        n->gamma = copy_array(d->gamma, (size_t)x->channels * x->channels, sizeof(int32_t));
        return n->beta != NULL && n->gamma != NULL;
    }
    return 1;
}

static wai_status build_graph(const checker *ck, size_t node_stride, wai_prepared_graph **out)
{
    const wai_graph_desc *d = ck->g;
    wai_prepared_graph *g = calloc(1, sizeof *g);
    if (g == NULL)
        return fail(ck->err, ck->err_cap, WAI_ERR_OUT_OF_MEMORY, "no memory for the graph");
    g->n_tensors = d->n_tensors;
    g->n_nodes = d->n_nodes;
    g->n_inputs = d->n_inputs;
    g->n_outputs = d->n_outputs;
    g->tensors = calloc(d->n_tensors, sizeof *g->tensors);
    g->nodes = calloc(d->n_nodes > 0 ? d->n_nodes : 1, sizeof *g->nodes);
    g->inputs = copy_array(d->inputs, d->n_inputs, sizeof(uint32_t));
    g->outputs = copy_array(d->outputs, d->n_outputs, sizeof(uint32_t));
    int ok = g->tensors != NULL && g->nodes != NULL && g->inputs != NULL && g->outputs != NULL;

    size_t max_gdn_channels = 1;
    for (uint32_t t = 0; ok && t < d->n_tensors; t++) {
        const wai_tensor_desc *td = tdesc(ck, t);
        tensor_buf *tb = &g->tensors[t];
        tb->c = td->channels;
        tb->h = td->height;
        tb->w = td->width;
        tb->count = (size_t)td->channels * td->height * td->width;
        tb->narrow = td->storage_bits == 16;
        tb->lo = td->lo;
        tb->hi = td->hi;
        tb->data = malloc(tb->count * (tb->narrow ? sizeof(int16_t) : sizeof(int32_t)));
        ok = tb->data != NULL;
    }
    for (uint32_t i = 0; ok && i < d->n_nodes; i++) {
        const wai_node_desc *nd = (const wai_node_desc *)abi_elem(d->nodes, node_stride, i);
        ok = copy_node(&g->nodes[i], nd, ck);
        if (nd->op == WAI_OP_INVERSE_GDN && tdesc(ck, nd->inputs[0])->channels > max_gdn_channels)
            max_gdn_channels = tdesc(ck, nd->inputs[0])->channels;
    }
    if (ok)
        ok = (g->scratch = malloc(max_gdn_channels * sizeof(int32_t))) != NULL;
    if (!ok) {
        free_graph(g);
        return fail(ck->err, ck->err_cap, WAI_ERR_OUT_OF_MEMORY, "no memory for the graph's tensors");
    }
    *out = g;
    return WAI_OK;
}

/* ------------------------------------------------------------------------------------ */
/* The function table.                                                                   */

static wai_status plain_open(wai_backend **out, char *err, size_t err_cap)
{
    if (out == NULL)
        return fail(err, err_cap, WAI_ERR_INVALID_ARGUMENT, "open: out is NULL");
    wai_backend *b = calloc(1, sizeof *b);
    if (b == NULL)
        return fail(err, err_cap, WAI_ERR_OUT_OF_MEMORY, "open: no memory");
    clear_err(err, err_cap);
    *out = b;
    return WAI_OK;
}

static void plain_close(wai_backend *backend)
{
    free(backend);
}

static wai_status plain_unit_count(wai_backend *backend, uint32_t *count, char *err, size_t err_cap)
{
    if (backend == NULL || count == NULL)
        return fail(err, err_cap, WAI_ERR_INVALID_ARGUMENT, "unit_count: NULL argument");
    clear_err(err, err_cap);
    *count = 1;
    return WAI_OK;
}

/* Copies a string into a fixed-size member, truncating, always NUL-terminated. */
static void set_text(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static wai_status plain_unit_info(wai_backend *backend, uint32_t unit, wai_unit_info *out,
                                  char *err, size_t err_cap)
{
    if (backend == NULL || out == NULL)
        return fail(err, err_cap, WAI_ERR_INVALID_ARGUMENT, "unit_info: NULL argument");
    if (unit != 0)
        return fail(err, err_cap, WAI_ERR_INVALID_ARGUMENT, "unit_info: unit %u of 1", unit);
    /* The caller says how much it can take; a 1.0 reader needs all 1.0 members. Members a
     * newer caller appended stay as it initialised them. */
    if (out->struct_size < WAI_UNIT_INFO_SIZE_1_0)
        return fail(err, err_cap, WAI_ERR_INVALID_ARGUMENT,
                    "unit_info: struct_size %zu < %zu (ABI 1.0)", out->struct_size,
                    (size_t)WAI_UNIT_INFO_SIZE_1_0);
    out->kind = UNIT_KIND;
    set_text(out->device, sizeof out->device, UNIT_DEVICE);
    set_text(out->driver, sizeof out->driver, UNIT_DRIVER);
    out->narrow_storage = 1;
#ifdef WAI_FUTURE_MEMBER
    if (WAI_COVERS(out, wai_unit_info, WAI_FUTURE_MEMBER))
        out->WAI_FUTURE_MEMBER = 1;   /* only into a caller's struct that has room for it */
#endif
    clear_err(err, err_cap);
    return WAI_OK;
}

static wai_status plain_graph_prepare(wai_backend *backend, uint32_t unit,
                                      const wai_graph_desc *graph, wai_prepared_graph **out,
                                      char *err, size_t err_cap)
{
    if (backend == NULL || graph == NULL || out == NULL)
        return fail(err, err_cap, WAI_ERR_INVALID_ARGUMENT, "graph_prepare: NULL argument");
    if (unit != 0)
        return fail(err, err_cap, WAI_ERR_INVALID_ARGUMENT, "graph_prepare: unit %u of 1", unit);
    checker ck = { graph, 0, err, err_cap };
    size_t node_stride = 0;
    wai_status st = check_graph(&ck, &node_stride);
#if defined(WAI_DEFECT_OOM_LARGE)
    /* A unit with little memory: the probe's graphs fit, a large one does not, so the host
     * must mark the unit failed at run time and run the graph elsewhere. */
    if (st == WAI_OK) {
        size_t stride = abi_stride(graph->tensors, graph->n_tensors, WAI_TENSOR_DESC_SIZE_1_0);
        for (uint32_t t = 0; t < graph->n_tensors; t++) {
            const wai_tensor_desc *d = (const wai_tensor_desc *)abi_elem(graph->tensors, stride, t);
            size_t n = (size_t)d->channels * d->height * d->width;
            if (n > ((size_t)1 << 20))
                return fail(err, err_cap, WAI_ERR_OUT_OF_MEMORY,
                            "graph_prepare: tensor %u needs %zu bytes, more than this unit has", t, n * 4);
        }
    }
#endif
    if (st == WAI_OK)
        st = build_graph(&ck, node_stride, out);
    if (st == WAI_OK)
        clear_err(err, err_cap);
    return st;
}

/* Checks a run request's tensors against the graph: one per graph input/output, in the
 * graph's order, each the right tensor and size. */
static wai_status check_request(const wai_prepared_graph *g, const char *what,
                                const wai_tensor *list, uint32_t n, uint32_t want,
                                const uint32_t *order, size_t *stride, char *err, size_t err_cap)
{
    if (n != want)
        return fail(err, err_cap, WAI_ERR_INVALID_ARGUMENT, "graph_run: %u %ss, graph has %u",
                    n, what, want);
    if (list == NULL || (*stride = abi_stride(list, n, WAI_TENSOR_SIZE_1_0)) == 0)
        return fail(err, err_cap, WAI_ERR_INVALID_ARGUMENT,
                    "graph_run: %ss missing or struct_size below %zu", what, (size_t)WAI_TENSOR_SIZE_1_0);
    for (uint32_t k = 0; k < n; k++)
        if (FUTURE_SET((const wai_tensor *)abi_elem(list, *stride, k), wai_tensor))
            return fail(err, err_cap, WAI_ERR_UNSUPPORTED, "graph_run: %s %u: appended member set", what, k);
    for (uint32_t k = 0; k < n; k++) {
        const wai_tensor *t = (const wai_tensor *)abi_elem(list, *stride, k);
        const tensor_buf *tb = &g->tensors[order[k]];
        if (t->tensor != order[k])
            return fail(err, err_cap, WAI_ERR_INVALID_ARGUMENT,
                        "graph_run: %s %u names tensor %u, the graph's is tensor %u", what, k,
                        t->tensor, order[k]);
        if (t->data == NULL || t->count != tb->count)
            return fail(err, err_cap, WAI_ERR_INVALID_ARGUMENT,
                        "graph_run: %s %u has %zu elements at %p, tensor %u needs %zu", what, k,
                        t->count, (void *)t->data, order[k], tb->count);
    }
    return WAI_OK;
}

#if defined(WAI_DEFECT_HANG)
/* The defect: waits for a completion that never comes, like a lost GPU fence. Blocking
 * (rather than spinning) keeps the test machine's cores free while the probe times out. */
static void wait_forever(void)
{
    static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
    static pthread_cond_t fence = PTHREAD_COND_INITIALIZER;
    static volatile int signalled = 0;
    pthread_mutex_lock(&mutex);
    while (!signalled)
        pthread_cond_wait(&fence, &mutex);
    pthread_mutex_unlock(&mutex);
}
#endif

/* A test backend that wraps this one (defect_backend.c, model_channels.c) may send nodes
 * through its own kernels: it defines RUN_NODE, declared before it includes this file, and
 * calls run_node for every node it does not take over. */
#ifndef RUN_NODE
#define RUN_NODE run_node
#endif

static wai_status plain_graph_run(wai_prepared_graph *g, const wai_tensor *inputs,
                                  uint32_t n_inputs, wai_tensor *outputs, uint32_t n_outputs,
                                  char *err, size_t err_cap)
{
#if defined(WAI_DEFECT_CRASH)
    raise(SIGSEGV);  /* the defect: dies in the middle of a run */
#elif defined(WAI_DEFECT_HANG)
    wait_forever();
#endif
    if (g == NULL)
        return fail(err, err_cap, WAI_ERR_INVALID_ARGUMENT, "graph_run: graph is NULL");
    size_t in_stride = 0, out_stride = 0;
    wai_status st = check_request(g, "input", inputs, n_inputs, g->n_inputs, g->inputs,
                                  &in_stride, err, err_cap);
    if (st == WAI_OK)
        st = check_request(g, "output", outputs, n_outputs, g->n_outputs, g->outputs,
                           &out_stride, err, err_cap);
    if (st != WAI_OK)
        return st;

    /* The certificate's intervals hold only for inputs inside them (integer-ops.md §5). */
    for (uint32_t k = 0; k < n_inputs; k++) {
        const wai_tensor *t = (const wai_tensor *)abi_elem(inputs, in_stride, k);
        tensor_buf *tb = &g->tensors[t->tensor];
        for (size_t e = 0; e < tb->count; e++) {
            if (t->data[e] < tb->lo || t->data[e] > tb->hi)
                return fail(err, err_cap, WAI_ERR_INVALID_ARGUMENT,
                            "graph_run: input %u element %zu is %d, outside [%d, %d]", k, e,
                            t->data[e], tb->lo, tb->hi);
            store(tb, e, t->data[e]);
        }
    }
    for (uint32_t i = 0; i < g->n_nodes; i++)
        RUN_NODE(&g->nodes[i], g);
    for (uint32_t k = 0; k < n_outputs; k++) {
        wai_tensor *t = (wai_tensor *)abi_elem(outputs, out_stride, k);
        const tensor_buf *tb = &g->tensors[t->tensor];
        for (size_t e = 0; e < tb->count; e++)
            t->data[e] = load(tb, e);
    }
    clear_err(err, err_cap);
    return WAI_OK;
}

static void plain_graph_release(wai_prepared_graph *graph)
{
    free_graph(graph);
}

static const wai_backend_iface plain_iface = {
#if defined(WAI_DEFECT_SHORT_TABLE)
    /* The defect: a table that ends before graph_run, as if built from a truncated header. */
    .struct_size = offsetof(wai_backend_iface, graph_run),
#else
    .struct_size = sizeof(wai_backend_iface),
#endif
    .abi_major = PLUGIN_ABI_MAJOR,
    .abi_minor = PLUGIN_ABI_MINOR,
    .name = PLUGIN_NAME,
    .version = PLUGIN_VERSION,
    .open = plain_open,
    .close = plain_close,
    .unit_count = plain_unit_count,
    .unit_info = plain_unit_info,
    .graph_prepare = plain_graph_prepare,
    .graph_run = plain_graph_run,
    .graph_release = plain_graph_release,
};

/* ------------------------------------------------------------------------------------ */
/* The one exported symbol (docs/backend-abi.md §2). Default visibility is what exports */
/* it; everything else above is static.                                                  */

#if defined(WAI_DEFECT_NO_ENTRY)
/* The defect: a misspelt entry point, so the host finds no wai_backend_entry. */
#define ENTRY_NAME wai_backend_entry_v1
#else
#define ENTRY_NAME wai_backend_entry
#endif

__attribute__((visibility("default")))
wai_status ENTRY_NAME(uint32_t host_major, uint32_t host_minor, const wai_backend_iface **out,
                      char *err, size_t err_cap);

wai_status ENTRY_NAME(uint32_t host_major, uint32_t host_minor, const wai_backend_iface **out,
                      char *err, size_t err_cap)
{
    if (out == NULL)
        return fail(err, err_cap, WAI_ERR_INVALID_ARGUMENT, "wai_backend_entry: out is NULL");
#if defined(WAI_DEFECT_TABLE_MAJOR)
    (void)host_major;  /* the defect: skips the check, and the table claims 2.0 */
#else
    /* Majors must match; any minor of our major is fine: minors only append, and this
     * plugin reads nothing a 1.0 host would not send. */
    if (host_major != PLUGIN_ABI_MAJOR)
        return fail(err, err_cap, WAI_ERR_ABI_MISMATCH,
                    "plugin %s implements backend ABI %u.%u; host offers %u.%u", PLUGIN_NAME,
                    PLUGIN_ABI_MAJOR, PLUGIN_ABI_MINOR, host_major, host_minor);
#endif
    (void)host_minor;
    clear_err(err, err_cap);
    *out = &plain_iface;
    return WAI_OK;
}
