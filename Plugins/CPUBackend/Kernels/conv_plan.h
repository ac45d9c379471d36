/* The polyphase plan of a conv (conv.c), shared with its AMX tile path (conv_amx.c). */
#ifndef WAI_CPU_CONV_PLAN_H
#define WAI_CPU_CONV_PLAN_H

#include "kernels_internal.h"

#define MAX_PH 8
#define MAX_TAPS 15

typedef struct axis_tap { int k, plane, d; } axis_tap;
typedef struct axis_phase { int base, count, ntaps; axis_tap taps[MAX_TAPS]; } axis_phase;
typedef struct axis_plan {
    int nphases, step;
    axis_phase ph[MAX_PH];
    int nplanes, plane_step;
    int plane_len[MAX_PH];
    int pad_lo, padded_len;
    uint64_t pairs;            /* (output, tap) pairs that read inside the input */
} axis_plan;

typedef struct phase2 {
    int ntaps;
    int tap_plane[MAX_TAPS * MAX_TAPS];
    int tap_dy[MAX_TAPS * MAX_TAPS];   /* padded row offset: pad_lo_y + d */
    int tap_dx[MAX_TAPS * MAX_TAPS];   /* padded column offset: pad_lo_x + d */
    int32_t *w;                /* [ob][cp][tap][oc in block] */
} phase2;

/* Both x-phases of a stride-2 transposed conv in one microkernel call (conv_xpair.c):
 * phase 0's output n and phase 1's output n read the input at n + d for their taps' d, so a
 * tap offset both phases have is loaded once for both. Per y-phase, the union of the
 * (y-tap, x-offset) pairs, those of both phases first, then phase 0's only, then phase 1's. */
#define XPAIR_MAX_TAPS (MAX_TAPS * 2 * MAX_TAPS)
typedef struct xpair_phase {
    int ntaps, n_both, n_first;
    int tap_plane[XPAIR_MAX_TAPS], tap_dy[XPAIR_MAX_TAPS], tap_dx[XPAIR_MAX_TAPS];
    int entries;               /* weight words per output channel and channel pair */
    int32_t *w;                /* [ob][cp][tap][phase of the tap][oc in block] */
} xpair_phase;

/* The padded input rows a y-phase reads, relative to its row m: m + lo … m + hi. */
typedef struct row_window { int any, lo, hi; } row_window;

struct cpuk_conv {
    cpuk_isa isa;
    int mode;
    int cin, h, w, cout, ho, wo, in_bits, out_bits;
    int ncp, nob;
    axis_plan ay, ax;
    int wp;                    /* padded plane width */
    int ring_rows;             /* R: rows of the per-thread ring */
    size_t row_words;          /* one packed row of one plane: ncp * wp */
    size_t ring_words;         /* per thread: [plane][R][ncp][wp] */
    int32_t *ring;
    int nbands;
    phase2 *ph;                /* [y-phase][x-phase] */
    row_window win[MAX_PH];    /* per y-phase */
    int32_t *bias;
    int post_kind;
    cpuk_post_ch *post;
    int cpb;                   /* channel pairs per cache-blocked chunk */
    int ldo;                   /* row buffer stride: widest x-phase, rounded to 16 */
    int32_t *rowbuf;           /* per thread: [x-phase][output channel][ldo] */
    size_t rowbuf_words;
    int nthreads;
    int *row_phase, *row_m;    /* output row -> (y-phase, row within the phase) */
    uint64_t macs;
    const void *run_in;        /* valid during a run */
    void *run_out;
    struct cpuk_amx *amx;      /* set: the conv runs on AMX tiles (conv_amx.c) */
    const cpuk_igdn *next;     /* during a fused run: applied to each finished output row */
    /* set: a transposed conv with few outputs run as a stride-1 conv whose output channels
     * are (channel, y-phase, x-phase), then depth_to_space (conv_phased.c) */
    struct cpuk_conv *phased;
    void *phased_out;          /* the stride-1 conv's output, cout*s*s x ho/s x wo/s */
    int phased_s;
    int16_t *fused_rows;       /* vector path, per thread [cout][wo]: a fused run's output row */
    int32_t *fused_sq;         /* AVX-512, per thread [(cout+1)/2][sq_stride]: its squares (cpuk_epi_row.sq) */
    size_t sq_stride, fused_sq_words;
    xpair_phase *xp;           /* set: [y-phase], both x-phases per call (AVX-512, int16 pairs) */
};

/* A weight of the op's descriptor by (input channel, output channel, tap). */
CPUK_INLINE int16_t cpuk_conv_weight(const cpuk_conv_desc *d, int c, int o, int ky, int kx) {
    size_t i = d->transposed
        ? (((size_t)c * d->cout + o) * d->kh + ky) * d->kw + kx
        : (((size_t)o * d->cin + c) * d->kh + ky) * d->kw + kx;
    return d->weights[i];
}

/* x-phase pairs: sets c->xp where they apply (0, also when they do not), -1 with a message
 * when out of memory. Called from cpuk_conv_create once the plain plan is set. */
int cpuk_xpair_init(cpuk_conv *c, const cpuk_conv_desc *d, char *err, size_t cap);
void cpuk_xpair_free(cpuk_conv *c);
/* The sums of output row (y-phase py, row m) of both x-phases into the row buffer, laid
 * out as compute_row's ([x-phase][output channel][ldo]). */
void cpuk_xpair_row(const cpuk_conv *c, const int32_t *ring, int py, int m, int32_t *rowbuf);

/* Below this many output channels most of each 16-row tile would be zero rows. */
#define AMX_MIN_COUT 8

struct cpuk_amx;
/* Decides from the certified input interval and the weights whether and how the conv runs
 * on tiles; leaves c->amx NULL when it does not (the VNNI kernels run). 0, or -1 with a
 * message when out of memory. Called at the end of cpuk_conv_create. */
int cpuk_amx_conv_init(cpuk_conv *c, const cpuk_conv_desc *d, char *err, size_t cap);
void cpuk_amx_conv_free(struct cpuk_amx *a);
/* One band of output rows on tiles: the counterpart of conv.c's band_task. */
void cpuk_amx_band(const cpuk_conv *c, int tid, size_t task);
const char *cpuk_amx_name(const struct cpuk_amx *a);

/* Phases as channels (conv_phased.c): on the AMX path, a transposed conv with fewer than
 * AMX_MIN_COUT outputs is rewritten as a stride-1 conv with cout*s*s outputs, which the
 * tiles take. 0 when the rewrite applies and c->phased is set, 1 when it does not apply
 * (the caller goes on with the plain plan), -1 with a message when out of memory. */
int cpuk_phased_init(cpuk_conv *c, const cpuk_conv_desc *d, int nthreads, char *err, size_t cap);
void cpuk_phased_run(cpuk_conv *c, cpuk_pool *pool, const void *in, void *out);
const char *cpuk_phased_name(const cpuk_conv *c);

#endif
