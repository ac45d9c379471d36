/* See include/region_kernels.h: the ISA detection, the scalar loops and the dispatch to the
 * per-ISA files (region_kernels_avx2.c, region_kernels_avx512.c), which compile the same
 * loop bodies (region_kernels_internal.h) for their vectors. */
#include "region_kernels_internal.h"

#if defined(__x86_64__) || defined(__i386__)
#define WAI_X86 1
#include <cpuid.h>
#else
#define WAI_X86 0
#endif

#if WAI_X86
static uint64_t read_xcr0(void) {
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

/* CPUID's feature bits and whether the OS saves the YMM/ZMM state (XGETBV). */
static wai_region_isa detect(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return WAI_REGION_ISA_SCALAR;
    if (!((c >> 27) & 1) || !((c >> 28) & 1)) return WAI_REGION_ISA_SCALAR;   /* OSXSAVE, AVX */
    uint64_t xcr0 = read_xcr0();
    if ((xcr0 & 0x6) != 0x6 || __get_cpuid_max(0, NULL) < 7) return WAI_REGION_ISA_SCALAR;
    __cpuid_count(7, 0, a, b, c, d);
    if (!((b >> 5) & 1)) return WAI_REGION_ISA_SCALAR;                            /* AVX2 */
    int f = (b >> 16) & 1, bw = (b >> 30) & 1, vl = (b >> 31) & 1, vnni = (c >> 11) & 1;
    if ((xcr0 & 0xe6) == 0xe6 && f && bw && vl && vnni) return WAI_REGION_ISA_AVX512;
    return WAI_REGION_ISA_AVX2;
}
#endif

wai_region_isa wai_region_best_isa(void) {
#if WAI_X86
    static int cached = -1;
    int v = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);
    if (v < 0) {
        v = (int)detect();
        __atomic_store_n(&cached, v, __ATOMIC_RELEASE);
    }
    return (wai_region_isa)v;
#else
    return WAI_REGION_ISA_SCALAR;
#endif
}

/* ---- convolution: one output position ---- */

static inline uint32_t dot16_scalar(const int16_t *w, const int16_t *x, int n) {
    uint32_t acc = 0;
    for (int c = 0; c < n; c++) acc += (uint32_t)((int32_t)w[c] * (int32_t)x[c]);
    return acc;
}

static void conv_scalar(const int16_t *w, const void *x, int x_wide, const int32_t *bias, const int32_t *w_off,
                        const int32_t *x_off, int pairs, int cin, int cout, ptrdiff_t taps_cin, int32_t *y,
                        ptrdiff_t y_stride) {
    CONV_POSITION(dot16_scalar, dot32_body)
}

void wai_region_conv_position(const int16_t *w, const void *x, int x_wide, const int32_t *bias,
                              const int32_t *w_off, const int32_t *x_off, int pairs,
                              int cin, int cout, ptrdiff_t taps_cin, int32_t *y, ptrdiff_t y_stride,
                              wai_region_isa isa) {
#if WAI_X86
    if (isa > wai_region_best_isa()) isa = wai_region_best_isa();
    if (isa == WAI_REGION_ISA_AVX512) { wai_region_conv_avx512(w, x, x_wide, bias, w_off, x_off, pairs, cin, cout, taps_cin, y, y_stride); return; }
    if (isa == WAI_REGION_ISA_AVX2) { wai_region_conv_avx2(w, x, x_wide, bias, w_off, x_off, pairs, cin, cout, taps_cin, y, y_stride); return; }
#endif
    (void)isa;
    conv_scalar(w, x, x_wide, bias, w_off, x_off, pairs, cin, cout, taps_cin, y, y_stride);
}

/* ---- inverse GDN ---- */

static void igdn_scalar(const int32_t *x, int channels, int positions, const int32_t *beta, const int32_t *gamma,
                        int sq_shift, int out_shift, int32_t *y, int32_t *scratch) {
    igdn_body(x, channels, positions, beta, gamma, sq_shift, out_shift, y, scratch);
}

void wai_region_igdn(const int32_t *x, int channels, int positions, const int32_t *beta, const int32_t *gamma,
                     int sq_shift, int out_shift, int32_t *y, int32_t *scratch, wai_region_isa isa) {
#if WAI_X86
    if (isa > wai_region_best_isa()) isa = wai_region_best_isa();
    if (isa == WAI_REGION_ISA_AVX512) { wai_region_igdn_avx512(x, channels, positions, beta, gamma, sq_shift, out_shift, y, scratch); return; }
    if (isa == WAI_REGION_ISA_AVX2) { wai_region_igdn_avx2(x, channels, positions, beta, gamma, sq_shift, out_shift, y, scratch); return; }
#endif
    (void)isa;
    igdn_scalar(x, channels, positions, beta, gamma, sq_shift, out_shift, y, scratch);
}
