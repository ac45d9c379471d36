/*
 * cpu_kernels.h — the C kernels of the WaiHost CPU backend (Plugins/CPUBackend).
 *
 * Every kernel computes exactly the integers of docs/integer-ops.md §4. The callers hand
 * only certified graphs (docs/integer-ops.md §5): every intermediate an op names fits int32,
 * so kernels use plain 32-bit arithmetic. Tensors live in CHW order, each stored as int16 or
 * int32 (`bits`), which the caller chooses from the certified interval.
 *
 * ISA paths (chosen per backend at open, never mixed inside one prepared object):
 *   scalar  portable C, any architecture;
 *   avx2    x86-64 AVX2, int16 pairs through vpmaddwd;
 *   avx512  x86-64 AVX-512 F/BW + VNNI, int16 pairs through vpdpwssd;
 *   amx     x86-64 AMX-INT8 tiles for the int16 convolutions (docs/cpu-kernels.md), the
 *           AVX-512 VNNI kernels for everything else. Needs the OS to grant the tile data
 *           state (Linux: arch_prctl(ARCH_REQ_XCOMP_PERM)), which detection requests.
 */
#ifndef WAI_CPU_KERNELS_H
#define WAI_CPU_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cpuk_isa {
    CPUK_ISA_SCALAR = 0,
    CPUK_ISA_AVX2 = 1,
    CPUK_ISA_AVX512 = 2,
    CPUK_ISA_AMX = 3
} cpuk_isa;

#define CPUK_ISA_COUNT 4

/* 1 when this CPU (CPUID + XGETBV: the OS saves the registers) runs `isa`. */
int cpuk_isa_supported(cpuk_isa isa);
/* The fastest supported path. */
cpuk_isa cpuk_isa_best(void);
/* "scalar", "avx2", "avx512-vnni", "amx-int8": the name that goes into the unit's driver
 * string. */
const char *cpuk_isa_name(cpuk_isa isa);
/* Parses one WAI_CPU_ISA name: "scalar", "avx2", "avx512" (or "avx512-vnni"), "amx" (or
 * "amx-int8"); 0 if unknown. */
int cpuk_isa_parse(const char *text, cpuk_isa *out);

/* The CPU's model name from /proc/cpuinfo (or the machine name where it has none). */
void cpuk_cpu_model(char *buf, size_t cap);
/* Online CPUs, at least 1. */
int cpuk_online_cpus(void);

/* ---- thread pool: created at backend open; parallel regions are serialised. ---- */
typedef struct cpuk_pool cpuk_pool;
/* NULL when a thread cannot be started. nthreads >= 1 counts the calling thread. */
cpuk_pool *cpuk_pool_create(int nthreads);
void cpuk_pool_destroy(cpuk_pool *pool);
int cpuk_pool_threads(const cpuk_pool *pool);
/* Runs fn(ctx, tid, task) for every task in [0, ntasks) on the pool's threads (the caller
 * is thread 0); returns when all are done. tid < cpuk_pool_threads(pool). */
typedef void (*cpuk_task_fn)(void *ctx, int tid, size_t task);
void cpuk_pool_run(cpuk_pool *pool, size_t ntasks, cpuk_task_fn fn, void *ctx);

/* ---- per-channel epilogue fused after a conv or inverse GDN ---- */
typedef enum cpuk_post_kind {
    CPUK_POST_NONE = 0,
    CPUK_POST_REQUANTIZE = 1, /* clamp(rnd(v*m[c], s[c]), lo, hi), §4.3 */
    CPUK_POST_CLAMP = 2       /* clamp(v, lo, hi), §4.5 */
} cpuk_post_kind;

typedef struct cpuk_post {
    int kind;                    /* cpuk_post_kind */
    const int32_t *multiplier;   /* [channels], REQUANTIZE only; copied at create */
    const int32_t *shift;        /* [channels], 0..31 */
    int32_t lo, hi;
} cpuk_post;

/* ---- conv2d (§4.1) and conv_transpose2d (§4.2) ---- */
typedef struct cpuk_conv_desc {
    int transposed;
    int cin, h, w;               /* input shape */
    int cout, ho, wo;            /* output shape, already checked against the formulas */
    int kh, kw, stride, pad, output_pad;
    const int16_t *weights;      /* conv [cout][cin][kh][kw]; transposed [cin][cout][kh][kw] */
    const int32_t *bias;         /* [cout] */
    int in_bits, out_bits;       /* 16 or 32: storage of the input and output buffers */
    int32_t in_lo, in_hi;        /* the input's certified interval: picks the AMX decomposition */
    cpuk_post post;
} cpuk_conv_desc;

typedef struct cpuk_conv cpuk_conv;
/* Packs weights and allocates every buffer a run needs for `nthreads` threads. NULL with a
 * message when out of memory. Input values must fit int16 when in_bits is 16. */
cpuk_conv *cpuk_conv_create(const cpuk_conv_desc *desc, cpuk_isa isa, int nthreads,
                            char *err, size_t err_cap);
/* in: CHW of in_bits; out: CHW of out_bits. One run at a time per object. */
void cpuk_conv_run(cpuk_conv *conv, cpuk_pool *pool, const void *in, void *out);
void cpuk_conv_destroy(cpuk_conv *conv);
/* Multiply-accumulates of one run as the op defines them (taps inside the input only). */
uint64_t cpuk_conv_macs(const cpuk_conv *conv);
/* How the conv runs: "vnni" (or the path's vector kernel), or on AMX tiles "amx 1x1",
 * "amx 2x1" (input split in two bytes, weights int8), "amx 1x2", "amx 2x2" (four passes). */
const char *cpuk_conv_kernel_name(const cpuk_conv *conv);

/* ---- inverse_gdn (§4.9) ---- */
typedef struct cpuk_igdn_desc {
    int c, h, w;
    const int32_t *beta;         /* [c] */
    const int32_t *gamma;        /* [c][c], row = output channel */
    int square_shift, out_shift;
    int32_t in_lo, in_hi;        /* the input's certified interval: picks the kernel */
    int in_bits, out_bits;
    cpuk_post post;
} cpuk_igdn_desc;

typedef struct cpuk_igdn cpuk_igdn;
cpuk_igdn *cpuk_igdn_create(const cpuk_igdn_desc *desc, cpuk_isa isa, int nthreads,
                            char *err, size_t err_cap);
void cpuk_igdn_run(cpuk_igdn *igdn, cpuk_pool *pool, const void *in, void *out);
void cpuk_igdn_destroy(cpuk_igdn *igdn);
/* conv then inverse GDN on its output, one run: each thread applies the inverse GDN to an
 * output row as soon as it has every channel of it, while the row is still in its cache,
 * instead of reading the whole conv output back from memory. The same integers as
 * cpuk_conv_run then cpuk_igdn_run. Where the conv's output is int16 on the AMX tile or
 * AVX-512 path, mid is not written (each output row goes from a per-thread row buffer into
 * the inverse GDN); otherwise it is. 0 when the pair does not fit
 * (the GDN's channels and positions must be the conv's outputs, its input width the
 * conv's output width, both made for the same thread count) or fusing does not pay (the
 * inverse GDN neither on tiles nor on AVX-512). */
int cpuk_conv_igdn_fusable(const cpuk_conv *conv, const cpuk_igdn *igdn);
void cpuk_conv_igdn_run(cpuk_conv *conv, cpuk_igdn *igdn, cpuk_pool *pool, const void *in, void *mid, void *out);
/* "vnni", "avx2", "scalar", or on AMX tiles "amx XxW" as for convs. */
const char *cpuk_igdn_kernel_name(const cpuk_igdn *igdn);

/* ---- element-wise and data-movement ops; `hw` = H*W, buffers CHW ---- */
void cpuk_requantize(cpuk_pool *pool, const void *in, int in_bits, void *out, int out_bits,
                     int channels, size_t hw, const int32_t *multiplier, const int32_t *shift,
                     int32_t lo, int32_t hi);
void cpuk_clamp(cpuk_pool *pool, const void *in, int in_bits, void *out, int out_bits,
                size_t count, int32_t lo, int32_t hi);
void cpuk_add(cpuk_pool *pool, const void *a, int a_bits, const void *b, int b_bits,
              void *out, int out_bits, size_t count);
void cpuk_lookup(cpuk_pool *pool, const void *in, int in_bits, void *out, int out_bits,
                 size_t count, const int32_t *table, uint32_t table_len, int32_t offset);
/* in: (c*r*r) x h x w; out: c x (h*r) x (w*r). */
void cpuk_depth_to_space(cpuk_pool *pool, const void *in, int in_bits, void *out, int out_bits,
                         int c, int h, int w, int block);
/* docs/integer-ops.md §4.10: vol (s*c) x h x w (scale-major), flow 3 x h x w (dx, dy, ds
 * with frac_bits fractional bits); out c x h x w. Relies on the verified certificate.
 * `isa` picks the rows' vector path (AMX runs AVX-512); every path gives the same integers. */
void cpuk_warp(cpuk_pool *pool, cpuk_isa isa, const void *vol, int vol_bits, const void *flow, int flow_bits,
               void *out, int out_bits, int c, int s, int h, int w, int frac_bits);
/* Converts `count` values between storage widths (a plain copy when they agree). */
void cpuk_convert(const void *in, int in_bits, void *out, int out_bits, size_t count);
/* First index whose value lies outside [lo, hi], or `count` when all lie inside. */
size_t cpuk_find_outside_i32(const int32_t *values, size_t count, int32_t lo, int32_t hi);

/* ---- buffers: 64-byte aligned, zero-filled; NULL when out of memory ---- */
void *cpuk_alloc(size_t bytes);
void cpuk_free(void *p);

/* ---- measurement: `iters` rounds of a vpdpwssd-only loop on every pool thread, using the
 * given ISA's int16-pair instruction (for CPUK_ISA_AMX: TDPBSSD, int8 x int8, `iters`
 * divided by 4 so a round takes about as long); returns multiply-accumulates performed. ---- */
uint64_t cpuk_peak_loop(cpuk_pool *pool, cpuk_isa isa, uint64_t iters);

#ifdef __cplusplus
}
#endif

#endif /* WAI_CPU_KERNELS_H */
