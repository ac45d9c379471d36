/* Element-wise and data-movement ops (§4.3–4.8) over CHW buffers of either width. Each
 * splits into chunks for the pool; the loops are written per width pair so the compiler
 * vectorises them. */
#include "kernels_internal.h"

#include <string.h>

#define CHUNK ((size_t)1 << 15)

static size_t nchunks(size_t count) { return (count + CHUNK - 1) / CHUNK; }

/* Instantiates BODY for the four (input, output) width pairs with typed pointers IN, OUT. */
#define BY_WIDTHS(in_bits, in_ptr, out_bits, out_ptr, BODY)                                 \
    do {                                                                                     \
        if ((in_bits) == 16 && (out_bits) == 16) { const int16_t *IN = (in_ptr); int16_t *OUT = (out_ptr); BODY } \
        else if ((in_bits) == 16) { const int16_t *IN = (in_ptr); int32_t *OUT = (out_ptr); BODY }               \
        else if ((out_bits) == 16) { const int32_t *IN = (in_ptr); int16_t *OUT = (out_ptr); BODY }              \
        else { const int32_t *IN = (in_ptr); int32_t *OUT = (out_ptr); BODY }                                    \
    } while (0)

/* ---- requantize: tasks are (channel, chunk of that channel) ---- */
typedef struct req_ctx {
    const void *in; void *out; int in_bits, out_bits;
    size_t hw, per_channel;
    const int32_t *m, *s;
    int32_t lo, hi;
} req_ctx;

static void req_task(void *raw, int tid, size_t task) {
    (void)tid;
    const req_ctx *c = raw;
    const size_t ch = task / c->per_channel, k = task % c->per_channel;
    const size_t begin = ch * c->hw + k * CHUNK;
    const size_t end = begin + (c->hw - k * CHUNK < CHUNK ? c->hw - k * CHUNK : CHUNK);
    const int32_t m = c->m[ch], lo = c->lo, hi = c->hi;
    const int s = c->s[ch];
    const int32_t r = cpuk_rnd_const(s);
    BY_WIDTHS(c->in_bits, c->in, c->out_bits, c->out, {
        for (size_t i = begin; i < end; i++) OUT[i] = cpuk_clamp32(cpuk_asr(IN[i] * m + r, s), lo, hi);
    });
}

void cpuk_requantize(cpuk_pool *pool, const void *in, int in_bits, void *out, int out_bits,
                     int channels, size_t hw, const int32_t *multiplier, const int32_t *shift,
                     int32_t lo, int32_t hi) {
    req_ctx c = { in, out, in_bits, out_bits, hw, nchunks(hw), multiplier, shift, lo, hi };
    cpuk_pool_run(pool, (size_t)channels * c.per_channel, req_task, &c);
}

/* ---- clamp ---- */
typedef struct clamp_ctx { const void *in; void *out; int in_bits, out_bits; size_t count; int32_t lo, hi; } clamp_ctx;

static void clamp_task(void *raw, int tid, size_t task) {
    (void)tid;
    const clamp_ctx *c = raw;
    const size_t begin = task * CHUNK, end = c->count - begin < CHUNK ? c->count : begin + CHUNK;
    const int32_t lo = c->lo, hi = c->hi;
    BY_WIDTHS(c->in_bits, c->in, c->out_bits, c->out, {
        for (size_t i = begin; i < end; i++) OUT[i] = cpuk_clamp32(IN[i], lo, hi);
    });
}

void cpuk_clamp(cpuk_pool *pool, const void *in, int in_bits, void *out, int out_bits,
                size_t count, int32_t lo, int32_t hi) {
    clamp_ctx c = { in, out, in_bits, out_bits, count, lo, hi };
    cpuk_pool_run(pool, nchunks(count), clamp_task, &c);
}

/* ---- add ---- */
typedef struct add_ctx { const void *a, *b; void *out; int a_bits, b_bits, out_bits; size_t count; } add_ctx;

static void add_task(void *raw, int tid, size_t task) {
    (void)tid;
    const add_ctx *c = raw;
    const size_t begin = task * CHUNK, end = c->count - begin < CHUNK ? c->count : begin + CHUNK;
    if (c->b_bits == 16) {
        const int16_t *B = c->b;
        BY_WIDTHS(c->a_bits, c->a, c->out_bits, c->out, { for (size_t i = begin; i < end; i++) OUT[i] = IN[i] + B[i]; });
    } else {
        const int32_t *B = c->b;
        BY_WIDTHS(c->a_bits, c->a, c->out_bits, c->out, { for (size_t i = begin; i < end; i++) OUT[i] = IN[i] + B[i]; });
    }
}

void cpuk_add(cpuk_pool *pool, const void *a, int a_bits, const void *b, int b_bits,
              void *out, int out_bits, size_t count) {
    add_ctx c = { a, b, out, a_bits, b_bits, out_bits, count };
    cpuk_pool_run(pool, nchunks(count), add_task, &c);
}

/* ---- lookup: the index x - offset is clamped before it touches the table ---- */
typedef struct lookup_ctx {
    const void *in; void *out; int in_bits, out_bits; size_t count;
    const int32_t *table; int32_t last, offset;
} lookup_ctx;

static void lookup_task(void *raw, int tid, size_t task) {
    (void)tid;
    const lookup_ctx *c = raw;
    const size_t begin = task * CHUNK, end = c->count - begin < CHUNK ? c->count : begin + CHUNK;
    const int32_t *t = c->table;
    const int32_t last = c->last, offset = c->offset;
    BY_WIDTHS(c->in_bits, c->in, c->out_bits, c->out, {
        for (size_t i = begin; i < end; i++) OUT[i] = t[cpuk_clamp32(IN[i] - offset, 0, last)];
    });
}

void cpuk_lookup(cpuk_pool *pool, const void *in, int in_bits, void *out, int out_bits,
                 size_t count, const int32_t *table, uint32_t table_len, int32_t offset) {
    lookup_ctx c = { in, out, in_bits, out_bits, count, table, (int32_t)table_len - 1, offset };
    cpuk_pool_run(pool, nchunks(count), lookup_task, &c);
}

/* ---- depth_to_space: one task per output row ---- */
typedef struct d2s_ctx { const void *in; void *out; int in_bits, out_bits, c, h, w, r; } d2s_ctx;

static void d2s_task(void *raw, int tid, size_t task) {
    (void)tid;
    const d2s_ctx *c = raw;
    const int r = c->r, W = c->w * r, H = c->h * r;
    const int ch = (int)(task / (size_t)H), y = (int)(task % (size_t)H);
    const int i = y / r, u = y % r;
    const size_t hw = (size_t)c->h * c->w;
    const size_t out0 = ((size_t)ch * H + y) * W;
    for (int v = 0; v < r; v++) {
        const size_t in0 = (size_t)(ch * r * r + u * r + v) * hw + (size_t)i * c->w;
        BY_WIDTHS(c->in_bits, c->in, c->out_bits, c->out, {
            for (int j = 0; j < c->w; j++) OUT[out0 + (size_t)j * r + v] = IN[in0 + j];
        });
    }
}

void cpuk_depth_to_space(cpuk_pool *pool, const void *in, int in_bits, void *out, int out_bits,
                         int c, int h, int w, int block) {
    d2s_ctx x = { in, out, in_bits, out_bits, c, h, w, block };
    cpuk_pool_run(pool, (size_t)c * h * block, d2s_task, &x);
}

void cpuk_convert(const void *in, int in_bits, void *out, int out_bits, size_t count) {
    if (in_bits == out_bits) { memcpy(out, in, count * (size_t)(in_bits / 8)); return; }
    BY_WIDTHS(in_bits, in, out_bits, out, { for (size_t i = 0; i < count; i++) OUT[i] = IN[i]; });
}

size_t cpuk_find_outside_i32(const int32_t *v, size_t count, int32_t lo, int32_t hi) {
    for (size_t i = 0; i < count; i++) if (v[i] < lo || v[i] > hi) return i;
    return count;
}

