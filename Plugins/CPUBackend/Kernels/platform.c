/* CPU identification, run-time ISA detection, buffers and messages. */
#define _GNU_SOURCE
#include "kernels_internal.h"
#include <sys/mman.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#if CPUK_X86
#include <cpuid.h>
#endif
#if CPUK_X86 && defined(__linux__)
#include <sys/syscall.h>
#endif

#if CPUK_X86
/* XCR0 via XGETBV; only valid once CPUID reported OSXSAVE. */
static uint64_t read_xcr0(void) {
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

/* Feature bits from CPUID, and whether the OS saves the YMM/ZMM state (XGETBV): a CPU
 * with AVX-512 under an OS that does not enable it must take the narrower path. */
static void detect(int *avx2, int *avx512) {
    unsigned a, b, c, d;
    *avx2 = 0; *avx512 = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return;
    int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1, fma = (c >> 12) & 1;
    if (!osxsave || !avx) return;
    uint64_t xcr0 = read_xcr0();
    int ymm_os = (xcr0 & 0x6) == 0x6;
    int zmm_os = (xcr0 & 0xe6) == 0xe6;
    if (__get_cpuid_max(0, NULL) < 7) return;
    __cpuid_count(7, 0, a, b, c, d);
    int has_avx2 = (b >> 5) & 1;
    int has_f = (b >> 16) & 1, has_bw = (b >> 30) & 1, has_vl = (b >> 31) & 1, has_vnni = (c >> 11) & 1;
    *avx2 = ymm_os && has_avx2 && fma;
    *avx512 = *avx2 && zmm_os && has_f && has_bw && has_vl && has_vnni;
}

/* AMX-TILE + AMX-INT8 in CPUID leaf 7 (EDX bits 24, 25), the tile config and data state
 * enabled in XCR0 (bits 17, 18), and, on Linux, the process granted the tile data state:
 * the kernel keeps it off until arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)
 * asks for it, and a tile instruction before that is a SIGILL. The request is idempotent
 * and process-wide, so every pool thread may use tiles once it succeeded. */
static int detect_amx(void) {
    int a2, a5;
    detect(&a2, &a5);
    if (!a5) return 0;
    unsigned a, b, c, d;
    __cpuid_count(7, 0, a, b, c, d);
    if (!((d >> 24) & 1) || !((d >> 25) & 1)) return 0;
    if ((read_xcr0() & 0x60000) != 0x60000) return 0;
#if defined(__linux__)
    enum { ARCH_GET_XCOMP_PERM = 0x1022, ARCH_REQ_XCOMP_PERM = 0x1023, XFEATURE_XTILEDATA = 18 };
    if (syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) != 0) return 0;
    unsigned long granted = 0;
    if (syscall(SYS_arch_prctl, ARCH_GET_XCOMP_PERM, &granted) != 0) return 0;
    return (granted >> XFEATURE_XTILEDATA) & 1;
#else
    /* Other kernels: no known way to ask for the state, so no tiles. */
    return 0;
#endif
}
#endif

int cpuk_isa_supported(cpuk_isa isa) {
    switch (isa) {
    case CPUK_ISA_SCALAR: return 1;
#if CPUK_X86
    case CPUK_ISA_AVX2: { int a2, a5; detect(&a2, &a5); return a2; }
#if defined(CPUK_EMULATED)
    /* Portable C stands in for the instructions (kernels_internal.h, CPUK_TARGET_512). */
    case CPUK_ISA_AVX512: return 1;
    case CPUK_ISA_AMX: return 1;
#else
    case CPUK_ISA_AVX512: { int a2, a5; detect(&a2, &a5); return a5; }
    case CPUK_ISA_AMX: {
        /* Detected once: the grant cannot be taken back, and tests open many backends. */
        static int cached = -1;
        int v = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);
        if (v < 0) { v = detect_amx(); __atomic_store_n(&cached, v, __ATOMIC_RELEASE); }
        return v;
    }
#endif
#else
    default: return 0;
#endif
    }
    return 0;
}

cpuk_isa cpuk_isa_best(void) {
    if (cpuk_isa_supported(CPUK_ISA_AMX)) return CPUK_ISA_AMX;
    if (cpuk_isa_supported(CPUK_ISA_AVX512)) return CPUK_ISA_AVX512;
    if (cpuk_isa_supported(CPUK_ISA_AVX2)) return CPUK_ISA_AVX2;
    return CPUK_ISA_SCALAR;
}

const char *cpuk_isa_name(cpuk_isa isa) {
    switch (isa) {
    case CPUK_ISA_SCALAR: return "scalar";
    case CPUK_ISA_AVX2: return "avx2";
    case CPUK_ISA_AVX512: return "avx512-vnni";
    case CPUK_ISA_AMX: return "amx-int8";
    }
    return "unknown";
}

int cpuk_isa_parse(const char *text, cpuk_isa *out) {
    if (!text) return 0;
    if (strcmp(text, "scalar") == 0) { *out = CPUK_ISA_SCALAR; return 1; }
    if (strcmp(text, "avx2") == 0) { *out = CPUK_ISA_AVX2; return 1; }
    if (strcmp(text, "avx512") == 0 || strcmp(text, "avx512-vnni") == 0) { *out = CPUK_ISA_AVX512; return 1; }
    if (strcmp(text, "amx") == 0 || strcmp(text, "amx-int8") == 0) { *out = CPUK_ISA_AMX; return 1; }
    return 0;
}

void cpuk_cpu_model(char *buf, size_t cap) {
    if (!buf || cap == 0) return;
    buf[0] = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) != 0) continue;
            char *colon = strchr(line, ':');
            if (!colon) continue;
            char *s = colon + 1;
            while (*s == ' ' || *s == '\t') s++;
            size_t n = strcspn(s, "\n");
            while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
            if (n >= cap) n = cap - 1;
            memcpy(buf, s, n);
            buf[n] = 0;
            break;
        }
        fclose(f);
    }
    if (buf[0] == 0) {
        struct utsname u;
        if (uname(&u) == 0) snprintf(buf, cap, "%s CPU", u.machine);
        else snprintf(buf, cap, "unknown CPU");
    }
}

int cpuk_online_cpus(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (n > 1024 ? 1024 : (int)n);
}

void *cpuk_alloc(size_t bytes) {
    size_t rounded = (bytes + 63) & ~(size_t)63;
    if (rounded < bytes) return NULL;
    if (rounded == 0) rounded = 64;
#ifdef MADV_HUGEPAGE
    /* Buffers of 1 MiB or more (tensors, packed weights of the large layers) in transparent
     * huge pages where the kernel offers them on request (THP "madvise"): a layer's working
     * set of several MiB then needs a few TLB entries instead of hundreds. Measured on the
     * int_hyper g_s: about 1% (AVX-512 VNNI) and 2% (AMX) faster (docs/cpu-kernels.md §3.6). */
    if (rounded >= ((size_t)1 << 20)) {
        const size_t huge = (size_t)2 << 20;
        const size_t whole = (rounded + huge - 1) & ~(huge - 1);
        if (whole < rounded) return NULL;
        void *p = aligned_alloc(huge, whole);
        if (!p) return NULL;
        (void)madvise(p, whole, MADV_HUGEPAGE);   /* advice only: refused, the pages stay small */
        memset(p, 0, whole);
        return p;
    }
#endif
    void *p = aligned_alloc(64, rounded);
    if (p) memset(p, 0, rounded);
    return p;
}

void cpuk_free(void *p) { free(p); }

void cpuk_set_err(char *err, size_t cap, const char *fmt, ...) {
    if (!err || cap == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
}

void cpuk_post_expand(const cpuk_post *post, int channels, cpuk_post_ch *out) {
    for (int c = 0; c < channels; c++) {
        cpuk_post_ch p = { 1, 0, INT32_MIN, INT32_MAX, 0 };
        if (post->kind == CPUK_POST_REQUANTIZE) {
            p.m = post->multiplier[c];
            p.s = post->shift[c];
            p.r = cpuk_rnd_const(p.s);
        }
        if (post->kind != CPUK_POST_NONE) { p.lo = post->lo; p.hi = post->hi; }
        out[c] = p;
    }
}

uint64_t cpuk_peak_scalar(uint64_t iters) {
    /* A dependent-free integer multiply-add loop; only used to report the scalar path. */
    volatile int32_t sink;
    uint32_t acc[8] = {0};
    for (uint64_t i = 0; i < iters; i++)
        for (int k = 0; k < 8; k++) acc[k] = acc[k] * 3u + (uint32_t)i;
    sink = (int32_t)(acc[0] ^ acc[7]);
    (void)sink;
    return iters * 8;
}
