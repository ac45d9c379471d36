/* AVX2 inner loops: int16 pairs through vpmaddwd (two products summed into an int32 lane)
 * followed by vpaddd. vpmaddwd wraps only for (-32768)^2 + (-32768)^2 = 2^31, a pair sum
 * the certificate excludes (it bounds every partial sum of the terms by int32). */
#include "kernels_internal.h"

#if CPUK_X86
#include <immintrin.h>

#define T256 __attribute__((target("avx2,fma")))
#define I256 static inline __attribute__((always_inline)) T256

/* acc[0..1] += the products of x0, x1 with the broadcast weight wv: int16 pair dot
 * products (PAIR16) or int32 products (I32). */
I256 void mac2(__m256i acc[2], __m256i x0, __m256i x1, __m256i wv, const int mode) {
    if (mode == CPUK_MODE_PAIR16) {
        acc[0] = _mm256_add_epi32(acc[0], _mm256_madd_epi16(x0, wv));
        acc[1] = _mm256_add_epi32(acc[1], _mm256_madd_epi16(x1, wv));
    } else {
        acc[0] = _mm256_add_epi32(acc[0], _mm256_mullo_epi32(x0, wv));
        acc[1] = _mm256_add_epi32(acc[1], _mm256_mullo_epi32(x1, wv));
    }
}

/* One (channel, tap) term of one block: the 16 input words at xt times OCB broadcast
 * weights wt[0..OCB), into acc[oi][0..1]. */
I256 void term(__m256i acc[][2], const int32_t *xt, const int32_t *wt, const int mode, const int OCB) {
    const __m256i x0 = _mm256_loadu_si256((const __m256i *)xt);
    const __m256i x1 = _mm256_loadu_si256((const __m256i *)(xt + 8));
    for (int oi = 0; oi < OCB; oi++) mac2(acc[oi], x0, x1, _mm256_set1_epi32(wt[oi]), mode);
}

/* OCB output channels x one block of 16 outputs (two 8-lane vectors). */
I256 void mk_body(const cpuk_mk_args *a, int32_t *out, const int32_t *x, const int mode, const int OCB) {
    __m256i acc[CPUK_OCB][2];
    for (int oi = 0; oi < OCB; oi++) {
        const __m256i b = _mm256_set1_epi32(a->bias[oi]);
        acc[oi][0] = a->accumulate ? _mm256_loadu_si256((const __m256i *)(out + oi * a->ldo)) : b;
        acc[oi][1] = a->accumulate ? _mm256_loadu_si256((const __m256i *)(out + oi * a->ldo + 8)) : b;
    }
    const int32_t *w = a->w;
    const int ntaps = a->ntaps;
    const ptrdiff_t *off = a->tap_off;
    if (ntaps == 1) {
        /* One tap (the inverse GDN's 1x1 sum, 1x1 convs): a loop over channels alone,
         * unrolled by two. Nested, the tap loop's own instructions ran once per two loads,
         * OCB broadcasts and 4*OCB multiply-adds, and on Zen 3 they held the kernel below
         * the multiply-add peak (docs/cpu-kernels.md §3.8). */
        const int32_t *xc = x + off[0];
#pragma clang loop unroll_count(2)
        for (int cp = 0; cp < a->ncp; cp++) term(acc, xc + cp * a->cp_stride, w + cp * OCB, mode, OCB);
    } else {
        const int32_t *xc = x;
        for (int cp = 0; cp < a->ncp; cp++, xc += a->cp_stride)
            for (int t = 0; t < ntaps; t++, w += OCB) term(acc, xc + off[t], w, mode, OCB);
    }
    for (int oi = 0; oi < OCB; oi++) {
        _mm256_storeu_si256((__m256i *)(out + oi * a->ldo), acc[oi][0]);
        _mm256_storeu_si256((__m256i *)(out + oi * a->ldo + 8), acc[oi][1]);
    }
}

#define MK(MODE, OCB) \
    static T256 void mk_##MODE##_##OCB(const cpuk_mk_args *a, int32_t *out, const int32_t *x) { mk_body(a, out, x, MODE, OCB); }
MK(0, 1) MK(0, 2) MK(0, 3) MK(0, 4)
MK(1, 1) MK(1, 2) MK(1, 3) MK(1, 4)

typedef void (*mk_fn)(const cpuk_mk_args *, int32_t *, const int32_t *);
static const mk_fn table[2][CPUK_OCB] = {
    { mk_0_1, mk_0_2, mk_0_3, mk_0_4 },
    { mk_1_1, mk_1_2, mk_1_3, mk_1_4 },
};

void cpuk_mk_avx2(int mode, int ocb, int nb, const cpuk_mk_args *a) {
    const mk_fn f = table[mode][ocb - 1];
    for (int k = 0; k < nb; k++) f(a, a->out + CPUK_BLK * k, a->x + CPUK_BLK * k);
}

/* x-phase pairs (conv_xpair.c), one block of 16: OCB x 2 phases x 2 vectors of 8 = up to
 * 12 accumulators, the two inputs, a weight and the product in the 16 registers, so only
 * OCB <= 3 (a shared tap's loads then feed twice the accumulators of the plain kernel). */
I256 void mkx_body(const cpuk_mkx_args *a, int32_t *out, const int32_t *x, const int OCB) {
    __m256i acc[2][3][2];
    for (int p = 0; p < 2; p++)
        for (int oi = 0; oi < OCB; oi++) {
            const __m256i b = _mm256_set1_epi32(a->bias[oi]);
            const int32_t *o = out + p * a->phase_stride + oi * a->ldo;
            acc[p][oi][0] = a->accumulate ? _mm256_loadu_si256((const __m256i *)o) : b;
            acc[p][oi][1] = a->accumulate ? _mm256_loadu_si256((const __m256i *)(o + 8)) : b;
        }
    const int32_t *w = a->w;
    const ptrdiff_t *off = a->tap_off;
    const int t1 = a->n_both, t2 = t1 + a->n_first, t3 = t2 + a->n_second;
    const int32_t *xc = x;
    for (int cp = 0; cp < a->ncp; cp++, xc += a->cp_stride) {
        int t = 0;
        for (; t < t1; t++, w += 2 * OCB) {
            const __m256i x0 = _mm256_loadu_si256((const __m256i *)(xc + off[t]));
            const __m256i x1 = _mm256_loadu_si256((const __m256i *)(xc + off[t] + 8));
            for (int p = 0; p < 2; p++)
                for (int oi = 0; oi < OCB; oi++)
                    mac2(acc[p][oi], x0, x1, _mm256_set1_epi32(w[p * OCB + oi]), CPUK_MODE_PAIR16);
        }
        /* Phase 0's own taps, then phase 1's: each loop indexes acc with a constant, which
         * keeps it in registers. */
        for (; t < t2; t++, w += OCB) term(acc[0], xc + off[t], w, CPUK_MODE_PAIR16, OCB);
        for (; t < t3; t++, w += OCB) term(acc[1], xc + off[t], w, CPUK_MODE_PAIR16, OCB);
    }
    for (int p = 0; p < 2; p++)
        for (int oi = 0; oi < OCB; oi++) {
            int32_t *o = out + p * a->phase_stride + oi * a->ldo;
            _mm256_storeu_si256((__m256i *)o, acc[p][oi][0]);
            _mm256_storeu_si256((__m256i *)(o + 8), acc[p][oi][1]);
        }
}

#define MKX(OCB) static T256 void mkx_##OCB(const cpuk_mkx_args *a, int32_t *out, const int32_t *x) { mkx_body(a, out, x, OCB); }
MKX(1) MKX(2) MKX(3)

typedef void (*mkx_fn)(const cpuk_mkx_args *, int32_t *, const int32_t *);
static const mkx_fn xtable[3] = { mkx_1, mkx_2, mkx_3 };

/* ocb <= 3 (the caller's contract: conv_xpair.c takes AVX2 only below 4 outputs). */
void cpuk_mkx_avx2(int ocb, int nb, const cpuk_mkx_args *a) {
    const mkx_fn f = xtable[ocb - 1];
    for (int k = 0; k < nb; k++) f(a, a->out + CPUK_BLK * k, a->x + CPUK_BLK * k);
}

/* ---- epilogues (the AVX-512 file's, in 8 lanes; tails go through the portable code) ---- */

I256 __m256i post8(__m256i v, int kind, const cpuk_post_ch *p) {
    if (kind == CPUK_POST_REQUANTIZE) {
        v = _mm256_add_epi32(_mm256_mullo_epi32(v, _mm256_set1_epi32(p->m)), _mm256_set1_epi32(p->r));
        v = _mm256_sra_epi32(v, _mm_cvtsi32_si128(p->s));   /* vpsrad: arithmetic, floor */
    }
    if (kind != CPUK_POST_NONE)
        v = _mm256_min_epi32(_mm256_max_epi32(v, _mm256_set1_epi32(p->lo)), _mm256_set1_epi32(p->hi));
    return v;
}

/* Stores 8 lanes at out[at..at+8) (the caller guarantees all 8 are inside the row). */
I256 void store8(void *out, int bits, int at, __m256i v) {
    if (bits == 16) {
        /* Values fit int16 (certificate), so the saturating pack is exact. */
        const __m256i p = _mm256_permute4x64_epi64(_mm256_packs_epi32(v, v), 0x08);
        _mm_storeu_si128((__m128i *)((int16_t *)out + at), _mm256_castsi256_si128(p));
    } else {
        _mm256_storeu_si256((__m256i *)((int32_t *)out + at), v);
    }
}

I256 void epi_conv(const cpuk_epi_row *e, const int kind, const int pairs) {
    int j = 0;
    if (!pairs) {
        const int32_t *src = e->src[0];
        for (; j + 8 <= e->wo; j += 8)
            store8(e->out, e->out_bits, j, post8(_mm256_loadu_si256((const __m256i *)(src + j)), kind, &e->post));
        for (; j < e->wo; j++) cpuk_store(e->out, e->out_bits, (size_t)j, cpuk_post_apply(kind, src[j], &e->post));
        return;
    }
    const int32_t *ev = e->base[0] == 0 ? e->src[0] : e->src[1];
    const int32_t *od = e->base[0] == 0 ? e->src[1] : e->src[0];
    for (; j + 16 <= e->wo; j += 16) {
        const __m256i a = _mm256_loadu_si256((const __m256i *)(ev + j / 2));
        const __m256i b = _mm256_loadu_si256((const __m256i *)(od + j / 2));
        const __m256i lo = _mm256_unpacklo_epi32(a, b), hi = _mm256_unpackhi_epi32(a, b);
        store8(e->out, e->out_bits, j, post8(_mm256_permute2x128_si256(lo, hi, 0x20), kind, &e->post));
        store8(e->out, e->out_bits, j + 8, post8(_mm256_permute2x128_si256(lo, hi, 0x31), kind, &e->post));
    }
    for (; j < e->wo; j++) {
        const int32_t v = (j & 1) ? od[j / 2] : ev[j / 2];
        cpuk_store(e->out, e->out_bits, (size_t)j, cpuk_post_apply(kind, v, &e->post));
    }
}

T256 void cpuk_epi_conv_avx2(const cpuk_epi_row *e) {
    const int dense = e->nph == 1 && e->step == 1 && e->base[0] == 0 && e->count[0] == e->wo;
    const int pairs = e->nph == 2 && e->step == 2 && e->base[0] + e->base[1] == 1 &&
                      e->count[e->base[0] == 0 ? 0 : 1] == (e->wo + 1) / 2 &&
                      e->count[e->base[0] == 0 ? 1 : 0] == e->wo / 2;
    if (!dense && !pairs) { cpuk_epi_conv_generic(e); return; }
    switch (e->kind) {
    case CPUK_POST_REQUANTIZE: epi_conv(e, CPUK_POST_REQUANTIZE, pairs); break;
    case CPUK_POST_CLAMP: epi_conv(e, CPUK_POST_CLAMP, pairs); break;
    default: epi_conv(e, CPUK_POST_NONE, pairs); break;
    }
}

/* Unsigned a > b on 8 lanes: flip the sign bits, compare signed. */
I256 __m256i gt_u32(__m256i a, __m256i b) {
    const __m256i flip = _mm256_set1_epi32((int)0x80000000u);
    return _mm256_cmpgt_epi32(_mm256_xor_si256(a, flip), _mm256_xor_si256(b, flip));
}

/* isqrt of 8 lanes 0 <= n <= 2^31-1 from the single-precision root less 1/4 and one
 * correction, as isqrt16 in mk_avx512.c (docs/cpu-kernels.md §3.4): r is floor(sqrt(n)) or
 * one less, and (r+1)^2 <= n picks. With SMALL (n <= 32766^2, so r + 1 <= 32767 with a
 * zero high half) (r+1)^2 is vpmaddwd of the lane with itself and fits int32, compared
 * signed; otherwise vpmulld, compared unsigned (46341^2 exceeds int32). */
I256 __m256i isqrt8(__m256i n, const int SMALL) {
    const __m256 s = _mm256_sub_ps(_mm256_sqrt_ps(_mm256_cvtepi32_ps(n)), _mm256_set1_ps(0.25f));
    const __m256i r1 = _mm256_add_epi32(_mm256_cvttps_epi32(s), _mm256_set1_epi32(1));
    const __m256i over = SMALL ? _mm256_cmpgt_epi32(_mm256_madd_epi16(r1, r1), n)
                               : gt_u32(_mm256_mullo_epi32(r1, r1), n);
    return _mm256_add_epi32(r1, over);                        /* r1 - 1 where (r+1)^2 > n */
}

/* With SMALL, r <= 32766: x * r is one vpmaddwd of the sign-extended x (low half x, high
 * half its sign) with r (high half zero), exactly x*r. */
I256 void epi_igdn(const cpuk_epi_igdn *e, const int kind, const int SMALL) {
    const __m256i rnd = _mm256_set1_epi32(cpuk_rnd_const(e->out_shift));
    const __m128i sh = _mm_cvtsi32_si128(e->out_shift);
    int i = 0;
    for (; i + 8 <= e->count; i += 8) {
        const __m256i x = e->x_bits == 16
            ? _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)((const int16_t *)e->x + i)))
            : _mm256_loadu_si256((const __m256i *)((const int32_t *)e->x + i));
        const __m256i r = isqrt8(_mm256_loadu_si256((const __m256i *)(e->n + i)), SMALL);
        const __m256i xr = SMALL ? _mm256_madd_epi16(x, r) : _mm256_mullo_epi32(x, r);
        const __m256i v = _mm256_sra_epi32(_mm256_add_epi32(xr, rnd), sh);
        store8(e->out, e->out_bits, i, post8(v, kind, &e->post));
    }
    if (i < e->count) {
        cpuk_epi_igdn tail = *e;
        tail.n = e->n + i;
        tail.x = e->x_bits == 16 ? (const void *)((const int16_t *)e->x + i) : (const void *)((const int32_t *)e->x + i);
        tail.out = e->out_bits == 16 ? (void *)((int16_t *)e->out + i) : (void *)((int32_t *)e->out + i);
        tail.count = e->count - i;
        cpuk_epi_igdn_generic(&tail);
    }
}

T256 void cpuk_epi_igdn_avx2(const cpuk_epi_igdn *e) {
    const int small = e->x_bits == 16 && e->n_small;
    switch (e->kind) {
    case CPUK_POST_REQUANTIZE: if (small) epi_igdn(e, CPUK_POST_REQUANTIZE, 1); else epi_igdn(e, CPUK_POST_REQUANTIZE, 0); break;
    case CPUK_POST_CLAMP: if (small) epi_igdn(e, CPUK_POST_CLAMP, 1); else epi_igdn(e, CPUK_POST_CLAMP, 0); break;
    default: if (small) epi_igdn(e, CPUK_POST_NONE, 1); else epi_igdn(e, CPUK_POST_NONE, 0); break;
    }
}

/* 12 independent vpmaddwd + vpaddd chains. Each chain multiplies its own accumulator, so
 * the compiler cannot share one product between chains. */
T256 uint64_t cpuk_peak_avx2(uint64_t iters) {
    __m256i acc[12];
    for (int k = 0; k < 12; k++) acc[k] = _mm256_set1_epi32(k);
    __m256i w = _mm256_set1_epi32(0x00020003);
    for (uint64_t i = 0; i < iters; i++) {
        for (int k = 0; k < 12; k++) acc[k] = _mm256_add_epi32(acc[k], _mm256_madd_epi16(acc[k], w));
        __asm__ volatile("" : "+x"(w));
    }
    __m256i s = acc[0];
    for (int k = 1; k < 12; k++) s = _mm256_xor_si256(s, acc[k]);
    volatile int sink = _mm256_extract_epi32(s, 0);
    (void)sink;
    return iters * 12 * 16;
}

#else
void cpuk_mk_avx2(int mode, int ocb, int nb, const cpuk_mk_args *a) { cpuk_mk_scalar(mode, ocb, nb, a); }
void cpuk_mkx_avx2(int ocb, int nb, const cpuk_mkx_args *a) { cpuk_mkx_scalar(ocb, nb, a); }
void cpuk_epi_conv_avx2(const cpuk_epi_row *e) { cpuk_epi_conv_generic(e); }
void cpuk_epi_igdn_avx2(const cpuk_epi_igdn *e) { cpuk_epi_igdn_generic(e); }
uint64_t cpuk_peak_avx2(uint64_t iters) { return cpuk_peak_scalar(iters); }
#endif
