/* AVX-512 inner loops. int16 pairs go through vpdpwssd (AVX-512 VNNI): one instruction
 * multiplies 16 lanes of channel pairs by a broadcast weight pair and adds both products
 * into int32 lanes. The certificate bounds every partial sum, so no lane ever leaves int32.
 * Compiled with function-level target attributes: the file builds for any x86-64 and these
 * functions run only after run-time detection chose them. */
#include "kernels_internal.h"

#if CPUK_X86
#include <immintrin.h>

#define T512 CPUK_TARGET_512("avx512f,avx512bw,avx512vnni,avx512vl")
#define I512 static inline __attribute__((always_inline)) T512

I512 void mk_body(const cpuk_mk_args *a, const int mode, const int OCB, const int NB) {
    __m512i acc[CPUK_OCB][CPUK_MAX_NB];
    for (int oi = 0; oi < OCB; oi++) {
        const __m512i b = _mm512_set1_epi32(a->bias[oi]);
        for (int k = 0; k < NB; k++)
            acc[oi][k] = a->accumulate ? _mm512_loadu_si512((const void *)(a->out + oi * a->ldo + CPUK_BLK * k)) : b;
    }
    const int32_t *w = a->w;
    const int ntaps = a->ntaps;
    const ptrdiff_t *off = a->tap_off;
    const int32_t *xc = a->x;
    for (int cp = 0; cp < a->ncp; cp++, xc += a->cp_stride) {
        for (int t = 0; t < ntaps; t++, w += OCB) {
            const int32_t *xt = xc + off[t];
            __m512i xv[CPUK_MAX_NB];
            for (int k = 0; k < NB; k++) xv[k] = _mm512_loadu_si512((const void *)(xt + CPUK_BLK * k));
            for (int oi = 0; oi < OCB; oi++) {
                const __m512i wv = _mm512_set1_epi32(w[oi]);
                for (int k = 0; k < NB; k++) {
                    if (mode == CPUK_MODE_PAIR16) acc[oi][k] = _mm512_dpwssd_epi32(acc[oi][k], xv[k], wv);
                    else acc[oi][k] = _mm512_add_epi32(acc[oi][k], _mm512_mullo_epi32(xv[k], wv));
                }
            }
        }
    }
    for (int oi = 0; oi < OCB; oi++)
        for (int k = 0; k < NB; k++)
            _mm512_storeu_si512((void *)(a->out + oi * a->ldo + CPUK_BLK * k), acc[oi][k]);
}

#define MK(MODE, OCB, NB) \
    static T512 void mk_##MODE##_##OCB##_##NB(const cpuk_mk_args *a) { mk_body(a, MODE, OCB, NB); }
#define MK_NB(MODE, OCB) MK(MODE, OCB, 1) MK(MODE, OCB, 2) MK(MODE, OCB, 3) MK(MODE, OCB, 4) MK(MODE, OCB, 5) MK(MODE, OCB, 6) \
                         MK(MODE, OCB, 7) MK(MODE, OCB, 8)
#define MK_ALL(MODE) MK_NB(MODE, 1) MK_NB(MODE, 2) MK_NB(MODE, 3) MK_NB(MODE, 4)
MK_ALL(0)
MK_ALL(1)

typedef void (*mk_fn)(const cpuk_mk_args *);
#define ROW(MODE, OCB) { mk_##MODE##_##OCB##_1, mk_##MODE##_##OCB##_2, mk_##MODE##_##OCB##_3, \
                         mk_##MODE##_##OCB##_4, mk_##MODE##_##OCB##_5, mk_##MODE##_##OCB##_6, \
                         mk_##MODE##_##OCB##_7, mk_##MODE##_##OCB##_8 }
static const mk_fn table[2][CPUK_OCB][CPUK_MAX_NB] = {
    { ROW(0, 1), ROW(0, 2), ROW(0, 3), ROW(0, 4) },
    { ROW(1, 1), ROW(1, 2), ROW(1, 3), ROW(1, 4) },
};

void cpuk_mk_avx512(int mode, int ocb, int nb, const cpuk_mk_args *a) {
    table[mode][ocb - 1][nb - 1](a);
}

/* Both x-phases per call (conv_xpair.c): a shared tap's NB loads feed 2 * OCB * NB
 * accumulators. The three tap groups are separate loops so that every accumulator index is
 * a constant and all of them stay in registers. */
I512 void mkx_body(const cpuk_mkx_args *a, const int OCB, const int NB) {
    __m512i acc[2][CPUK_OCB][CPUK_MAX_NB];
    for (int p = 0; p < 2; p++)
        for (int oi = 0; oi < OCB; oi++) {
            const __m512i b = _mm512_set1_epi32(a->bias[oi]);
            const int32_t *o = a->out + p * a->phase_stride + oi * a->ldo;
            for (int k = 0; k < NB; k++)
                acc[p][oi][k] = a->accumulate ? _mm512_loadu_si512((const void *)(o + CPUK_BLK * k)) : b;
        }
    const int32_t *w = a->w;
    const ptrdiff_t *off = a->tap_off;
    const int t1 = a->n_both, t2 = t1 + a->n_first, t3 = t2 + a->n_second;
    const int32_t *xc = a->x;
    for (int cp = 0; cp < a->ncp; cp++, xc += a->cp_stride) {
        int t = 0;
        for (; t < t1; t++, w += 2 * OCB) {
            __m512i xv[CPUK_MAX_NB];
            for (int k = 0; k < NB; k++) xv[k] = _mm512_loadu_si512((const void *)(xc + off[t] + CPUK_BLK * k));
            for (int p = 0; p < 2; p++)
                for (int oi = 0; oi < OCB; oi++) {
                    const __m512i wv = _mm512_set1_epi32(w[p * OCB + oi]);
                    for (int k = 0; k < NB; k++) acc[p][oi][k] = _mm512_dpwssd_epi32(acc[p][oi][k], xv[k], wv);
                }
        }
        for (; t < t2; t++, w += OCB) {
            __m512i xv[CPUK_MAX_NB];
            for (int k = 0; k < NB; k++) xv[k] = _mm512_loadu_si512((const void *)(xc + off[t] + CPUK_BLK * k));
            for (int oi = 0; oi < OCB; oi++) {
                const __m512i wv = _mm512_set1_epi32(w[oi]);
                for (int k = 0; k < NB; k++) acc[0][oi][k] = _mm512_dpwssd_epi32(acc[0][oi][k], xv[k], wv);
            }
        }
        for (; t < t3; t++, w += OCB) {
            __m512i xv[CPUK_MAX_NB];
            for (int k = 0; k < NB; k++) xv[k] = _mm512_loadu_si512((const void *)(xc + off[t] + CPUK_BLK * k));
            for (int oi = 0; oi < OCB; oi++) {
                const __m512i wv = _mm512_set1_epi32(w[oi]);
                for (int k = 0; k < NB; k++) acc[1][oi][k] = _mm512_dpwssd_epi32(acc[1][oi][k], xv[k], wv);
            }
        }
    }
    for (int p = 0; p < 2; p++)
        for (int oi = 0; oi < OCB; oi++) {
            int32_t *o = a->out + p * a->phase_stride + oi * a->ldo;
            for (int k = 0; k < NB; k++) _mm512_storeu_si512((void *)(o + CPUK_BLK * k), acc[p][oi][k]);
        }
}

#define MKX(OCB, NB) static T512 void mkx_##OCB##_##NB(const cpuk_mkx_args *a) { mkx_body(a, OCB, NB); }
MKX(1, 1) MKX(1, 2) MKX(1, 3) MKX(1, 4) MKX(1, 5) MKX(1, 6) MKX(1, 7) MKX(1, 8)
MKX(2, 1) MKX(2, 2) MKX(2, 3) MKX(2, 4) MKX(2, 5) MKX(2, 6)
MKX(3, 1) MKX(3, 2) MKX(3, 3) MKX(3, 4)
MKX(4, 1) MKX(4, 2) MKX(4, 3)

typedef void (*mkx_fn)(const cpuk_mkx_args *);
static const mkx_fn xtable[CPUK_OCB][CPUK_MAX_NB] = {
    { mkx_1_1, mkx_1_2, mkx_1_3, mkx_1_4, mkx_1_5, mkx_1_6, mkx_1_7, mkx_1_8 },
    { mkx_2_1, mkx_2_2, mkx_2_3, mkx_2_4, mkx_2_5, mkx_2_6, NULL, NULL },
    { mkx_3_1, mkx_3_2, mkx_3_3, mkx_3_4, NULL, NULL, NULL, NULL },
    { mkx_4_1, mkx_4_2, mkx_4_3, NULL, NULL, NULL, NULL, NULL },
};

/* nb <= cpuk_mkx_nb_for_ocb[ocb] (the caller's contract). */
void cpuk_mkx_avx512(int ocb, int nb, const cpuk_mkx_args *a) {
    xtable[ocb - 1][nb - 1](a);
}

/* ---- epilogues ---- */

/* Applies the post-op to 16 lanes; multiplier/rounding/shift per channel (one channel per
 * row here). vpsrad is an arithmetic shift: floor division, as §3 requires. */
I512 __m512i post16(__m512i v, int kind, const cpuk_post_ch *p) {
    if (kind == CPUK_POST_REQUANTIZE) {
        v = _mm512_add_epi32(_mm512_mullo_epi32(v, _mm512_set1_epi32(p->m)), _mm512_set1_epi32(p->r));
        v = _mm512_sra_epi32(v, _mm_cvtsi32_si128(p->s));
    }
    if (kind != CPUK_POST_NONE)
        v = _mm512_min_epi32(_mm512_max_epi32(v, _mm512_set1_epi32(p->lo)), _mm512_set1_epi32(p->hi));
    return v;
}

I512 void store16(void *out, int bits, int at, int n, __m512i v) {
    /* A full vector: the register form of vpmovdw and a plain store (the masked memory
     * form is several times slower on Intel cores). Values fit int16 (certificate). */
    if (n >= 16) {
        if (bits == 16) _mm256_storeu_si256((__m256i *)((int16_t *)out + at), _mm512_cvtepi32_epi16(v));
        else _mm512_storeu_si512((void *)((int32_t *)out + at), v);
        return;
    }
    const __mmask16 m = (__mmask16)((1u << n) - 1);
    if (bits == 16) _mm512_mask_cvtepi32_storeu_epi16((int16_t *)out + at, m, v);
    else _mm512_mask_storeu_epi32((int32_t *)out + at, m, v);
}

/* The squares of n <= 16 output values v (columns at ...) into their halves of e->sq (see
 * cpuk_epi_row): v fits int16, so with the high half cleared vpmaddwd of the lane with itself
 * is exactly v*v; the shift is logical, as v*v >= 0; the result fits the half (the inverse
 * GDN's int16 pair mode: every square <= 32767). */
I512 void store_sq(const cpuk_epi_row *e, int at, int n, __m512i v) {
    const __m512i vz = _mm512_and_si512(v, _mm512_set1_epi32(0xffff));
    __m512i s = _mm512_srl_epi32(_mm512_madd_epi16(vz, vz), _mm_cvtsi32_si128(e->sq_q));
    __mmask32 m = (__mmask32)0x55555555u;
    if (e->sq_hi) { s = _mm512_slli_epi32(s, 16); m = (__mmask32)0xAAAAAAAAu; }
    if (n < 16) m &= (__mmask32)((1u << (2 * n)) - 1);
    _mm512_mask_storeu_epi16((void *)(e->sq + at), m, s);
}

/* Both epilogues work on a local copy of their descriptor: through the pointer, every
 * store to the output could alias it, and the compiler reloaded the post-op's constants and
 * the bounds after each store (4K-aliased reloads stalled behind the stores). */
I512 void epi_conv(const cpuk_epi_row *desc, const int kind, const int SQ) {
    const cpuk_epi_row copy = *desc;
    const cpuk_epi_row *e = &copy;
    if (e->nph == 1 && e->step == 1 && e->base[0] == 0 && e->count[0] == e->wo) {
        const int32_t *src = e->src[0];
        for (int j = 0; j < e->wo; j += 16) {
            __m512i v = post16(_mm512_loadu_si512((const void *)(src + j)), kind, &e->post);
            store16(e->out, e->out_bits, j, e->wo - j, v);
            if (SQ) store_sq(e, j, e->wo - j < 16 ? e->wo - j : 16, v);
        }
        return;
    }
    /* Two x-phases at stride 2 with columns 0 and 1: interleave 16 + 16 lanes. */
    const int32_t *ev = e->base[0] == 0 ? e->src[0] : e->src[1];
    const int32_t *od = e->base[0] == 0 ? e->src[1] : e->src[0];
    const __m512i lo_idx = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const __m512i hi_idx = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    for (int n = 0; 2 * n < e->wo; n += 16) {
        const __m512i a = _mm512_loadu_si512((const void *)(ev + n));
        const __m512i b = _mm512_loadu_si512((const void *)(od + n));
        const __m512i lo = post16(_mm512_permutex2var_epi32(a, lo_idx, b), kind, &e->post);
        const __m512i hi = post16(_mm512_permutex2var_epi32(a, hi_idx, b), kind, &e->post);
        const int j = 2 * n;
        store16(e->out, e->out_bits, j, e->wo - j, lo);
        if (SQ) store_sq(e, j, e->wo - j < 16 ? e->wo - j : 16, lo);
        if (e->wo - j > 16) {
            store16(e->out, e->out_bits, j + 16, e->wo - j - 16, hi);
            if (SQ) store_sq(e, j + 16, e->wo - j - 16 < 16 ? e->wo - j - 16 : 16, hi);
        }
    }
}

/* The squares of an int16 output row the plain C epilogue wrote. */
static void sq_from_row(const cpuk_epi_row *e) {
    const int16_t *o = e->out;
    int16_t *h = (int16_t *)(void *)e->sq;
    for (int j = 0; j < e->wo; j++) h[2 * j + e->sq_hi] = (int16_t)((uint32_t)(o[j] * o[j]) >> e->sq_q);
}

T512 void cpuk_epi_conv_avx512(const cpuk_epi_row *e) {
    const int dense = e->nph == 1 && e->step == 1 && e->base[0] == 0 && e->count[0] == e->wo;
    const int pairs = e->nph == 2 && e->step == 2 && e->base[0] + e->base[1] == 1 &&
                      e->count[e->base[0] == 0 ? 0 : 1] == (e->wo + 1) / 2 &&
                      e->count[e->base[0] == 0 ? 1 : 0] == e->wo / 2;
    if (!dense && !pairs) {
        cpuk_epi_conv_generic(e);
        if (e->sq) sq_from_row(e);
        return;
    }
    const int sq = e->sq != NULL;
    switch (e->kind) {
    case CPUK_POST_REQUANTIZE: if (sq) epi_conv(e, CPUK_POST_REQUANTIZE, 1); else epi_conv(e, CPUK_POST_REQUANTIZE, 0); break;
    case CPUK_POST_CLAMP: if (sq) epi_conv(e, CPUK_POST_CLAMP, 1); else epi_conv(e, CPUK_POST_CLAMP, 0); break;
    default: if (sq) epi_conv(e, CPUK_POST_NONE, 1); else epi_conv(e, CPUK_POST_NONE, 0); break;
    }
}

/* isqrt of 16 lanes 0 <= n <= 2^31-1 with one correction (docs/cpu-kernels.md §3.4): the
 * single-precision root s of n is within 0.0042 of sqrt(n) (n rounds to 24 bits, the root
 * adds one rounding) and s - 1/4 rounds within 0.002 more, so trunc(s - 1/4) is floor(sqrt(n))
 * or one less, never more (and 0 for n = 0, where s - 1/4 < 0 truncates to 0). One exact
 * test, (r+1)^2 <= n, picks between them. SMALL: n <= 32766^2 is certified, so r + 1 <=
 * 32767 and (r+1)^2 is one vpmaddwd of the lane with itself (high halves zero); otherwise
 * vpmulld, compared unsigned (46341^2 exceeds int32). */
I512 __m512i isqrt16(__m512i n, const int SMALL) {
    const __m512 s = _mm512_sub_ps(_mm512_sqrt_ps(_mm512_cvtepi32_ps(n)), _mm512_set1_ps(0.25f));
    const __m512i r = _mm512_cvttps_epi32(s);
    const __m512i r1 = _mm512_add_epi32(r, _mm512_set1_epi32(1));
    const __mmask16 up = SMALL ? _mm512_cmple_epi32_mask(_mm512_madd_epi16(r1, r1), n)
                               : _mm512_cmple_epu32_mask(_mm512_mullo_epi32(r1, r1), n);
    return _mm512_mask_mov_epi32(r, up, r1);
}

/* With SMALL, r <= 32766: x * r is one vpmaddwd of the sign-extended x (low half x, high
 * half its sign) with r (high half zero), exactly x*r. */
I512 void epi_igdn(const cpuk_epi_igdn *desc, const int kind, const int SMALL) {
    const cpuk_epi_igdn copy = *desc;
    const cpuk_epi_igdn *e = &copy;
    const __m512i rnd = _mm512_set1_epi32(cpuk_rnd_const(e->out_shift));
    const __m512i sh = _mm512_set1_epi32(e->out_shift);
    for (int i = 0; i < e->count; i += 16) {
        const int left = e->count - i;
        const __mmask16 m = left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1);
        const __m512i x = e->x_bits == 16
            ? _mm512_cvtepi16_epi32(_mm256_maskz_loadu_epi16(m, (const int16_t *)e->x + i))
            : _mm512_maskz_loadu_epi32(m, (const int32_t *)e->x + i);
        const __m512i r = isqrt16(_mm512_loadu_si512((const void *)(e->n + i)), SMALL);
        const __m512i xr = SMALL ? _mm512_madd_epi16(x, r) : _mm512_mullo_epi32(x, r);
        __m512i v = _mm512_srav_epi32(_mm512_add_epi32(xr, rnd), sh);
        store16(e->out, e->out_bits, i, left, post16(v, kind, &e->post));
    }
}

T512 void cpuk_epi_igdn_avx512(const cpuk_epi_igdn *e) {
    const int small = e->x_bits == 16 && e->n_small;
    switch (e->kind) {
    case CPUK_POST_REQUANTIZE: if (small) epi_igdn(e, CPUK_POST_REQUANTIZE, 1); else epi_igdn(e, CPUK_POST_REQUANTIZE, 0); break;
    case CPUK_POST_CLAMP: if (small) epi_igdn(e, CPUK_POST_CLAMP, 1); else epi_igdn(e, CPUK_POST_CLAMP, 0); break;
    default: if (small) epi_igdn(e, CPUK_POST_NONE, 1); else epi_igdn(e, CPUK_POST_NONE, 0); break;
    }
}

/* 24 independent vpdpwssd chains: the instruction's throughput, not its latency. */
T512 uint64_t cpuk_peak_avx512(uint64_t iters) {
    __m512i acc[24];
    for (int k = 0; k < 24; k++) acc[k] = _mm512_set1_epi32(k);
    __m512i x = _mm512_set1_epi32(0x00010001), w = _mm512_set1_epi32(0x00020003);
    for (uint64_t i = 0; i < iters; i++) {
        for (int k = 0; k < 24; k++) acc[k] = _mm512_dpwssd_epi32(acc[k], x, w);
        CPUK_OPAQUE_512(x);
    }
    __m512i s = acc[0];
    for (int k = 1; k < 24; k++) s = _mm512_xor_si512(s, acc[k]);
    volatile int sink = _mm512_reduce_add_epi32(s);
    (void)sink;
    return iters * 24 * 32;
}

#else
void cpuk_mk_avx512(int mode, int ocb, int nb, const cpuk_mk_args *a) { cpuk_mk_scalar(mode, ocb, nb, a); }
void cpuk_mkx_avx512(int ocb, int nb, const cpuk_mkx_args *a) { cpuk_mkx_scalar(ocb, nb, a); }
void cpuk_epi_conv_avx512(const cpuk_epi_row *e) { cpuk_epi_conv_generic(e); }
void cpuk_epi_igdn_avx512(const cpuk_epi_igdn *e) { cpuk_epi_igdn_generic(e); }
uint64_t cpuk_peak_avx512(uint64_t iters) { return cpuk_peak_scalar(iters); }
#endif
