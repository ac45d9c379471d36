/* Benchmark of the CPU backend's kernels on the int_hyper synthesis transform g_s:
 * four 5x5 stride-2 transposed convs (pad 2, output_pad 1), 192 -> 128 -> 128 -> 128 -> 3
 * channels from a 32x48 latent to a 3x512x768 picture, int16 activations and weights
 * accumulated in int32, each conv followed by its fused requantize and inverse GDN between.
 * Every path named (default: every path this CPU has but scalar) runs the same g_s, in
 * rounds that alternate with the peak loops (vpdpwssd only, or vpmaddwd + vpaddd on a CPU
 * without AVX-512 VNNI; TDPBSSD only where AMX exists), so all figures of one run share the
 * machine's state; each keeps its best round. Reports the conv throughput in GMAC/s against
 * that peak, and checks that every path gives the first path's picture. Not a test: it
 * asserts nothing about time.
 *
 * With a path to libWaiCPUBackend.so as the fourth argument it also runs the same graph
 * through the plugin's ABI (graph_prepare once, graph_run timed: validation of the input
 * against its interval, int32 <-> int16 conversion, the Swift run loop), checks that the
 * picture equals the kernels' own, and prints that time too.
 *
 * Build and run: Plugins/CPUBackend/bench/run.sh [isa,isa,...] [threads] [reps] [plugin.so] */
#include "cpu_kernels.h"
#include "wai_backend.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* WAI_BENCH_CLOCK=cpu times by the process's CPU time instead of the wall clock: on a
 * machine shared with other work, time this process spent descheduled is then not
 * counted, and with N threads every figure is per N CPU-seconds (peaks included, so the
 * ratios stay fair). */
static clockid_t bench_clock = CLOCK_MONOTONIC;
/* WAI_BENCH_FUSED=0 runs each inverse GDN after its conv instead of fused into it (the
 * plugin fuses them); the fused figure's conv time includes the inverse GDN. */
static int fused = 1;

static double now(void) {
    struct timespec t;
    clock_gettime(bench_clock, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint64_t state = 0x9e3779b97f4a7c15ull;
static int32_t rnd_in(int32_t lo, int32_t hi) {
    state ^= state << 13; state ^= state >> 7; state ^= state << 17;
    return lo + (int32_t)(state % (uint64_t)(hi - lo + 1));
}

/* WAI_BENCH_SHAPE=M,N,H,W: latent channels, channels, latent height and width; the default is
 * int_hyper's N=128 sample set at 768×512. The probe's calibration graph is 32,32,8,8. */
static int chans[5] = { 192, 128, 128, 128, 3 };
static int latent_h = 32, latent_w = 48;

typedef struct layer {
    int cin, cout, h, w;
    cpuk_conv *conv;
    cpuk_igdn *igdn;
    int16_t *out;          /* requantized conv output, int16 */
    int16_t *gdn_out;      /* inverse GDN output, int16 */
    int16_t *weights;
    int32_t *bias, *mult, *shift, *beta, *gamma;
} layer;

/* The same g_s through the plugin's ABI. Intervals: the input contract and the narrow
 * requantize / inverse GDN outputs are exact; the plugin trusts what the host verified, and
 * uses them only to pick storage widths and kernels, so wide conv outputs get int32's range. */
static int bench_plugin(const char *path, const layer *L, const int16_t *x0, int32_t x_lo, int32_t x_hi,
                        const int16_t *expected, int reps, double *best) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 1; }
    wai_backend_entry_fn entry = (wai_backend_entry_fn)dlsym(h, WAI_BACKEND_ENTRY_SYMBOL);
    char err[1024] = { 0 };
    const wai_backend_iface *t = NULL;
    wai_backend *be = NULL;
    if (!entry || entry(WAI_ABI_MAJOR, WAI_ABI_MINOR, &t, err, sizeof err) != WAI_OK || t->open(&be, err, sizeof err) != WAI_OK) {
        fprintf(stderr, "plugin refused: %s\n", err);
        return 1;
    }
    wai_unit_info info = { .struct_size = sizeof info };
    t->unit_info(be, 0, &info, err, sizeof err);
    printf("plugin: %s, %s\n", info.device, info.driver);

    wai_tensor_desc td[12];
    wai_node_desc nd[11];
    uint32_t ins[11];
    int nt = 0, nn = 0;
    td[nt++] = (wai_tensor_desc){ sizeof(wai_tensor_desc), (uint32_t)chans[0], (uint32_t)latent_h, (uint32_t)latent_w, 16, x_lo, x_hi };
    for (int l = 0; l < 4; l++) {
        const layer *y = &L[l];
        const uint32_t hh = 2 * y->h, ww = 2 * y->w;
        const uint32_t x = nt - 1;
        td[nt++] = (wai_tensor_desc){ sizeof(wai_tensor_desc), y->cout, hh, ww, 32, INT32_MIN, INT32_MAX };
        ins[nn] = x;
        nd[nn] = (wai_node_desc){ .struct_size = sizeof(wai_node_desc), .op = WAI_OP_CONV_TRANSPOSE2D, .n_inputs = 1,
                                  .inputs = &ins[nn], .output = nt - 1, .kernel_h = 5, .kernel_w = 5, .stride = 2,
                                  .pad = 2, .output_pad = 1, .weights = y->weights, .bias = y->bias };
        nn++;
        td[nt++] = (wai_tensor_desc){ sizeof(wai_tensor_desc), y->cout, hh, ww, 16, -1024, 1023 };
        ins[nn] = nt - 2;
        nd[nn] = (wai_node_desc){ .struct_size = sizeof(wai_node_desc), .op = WAI_OP_REQUANTIZE, .n_inputs = 1,
                                  .inputs = &ins[nn], .output = nt - 1, .multiplier = y->mult, .shift = y->shift,
                                  .clamp_lo = -1024, .clamp_hi = 1023 };
        nn++;
        if (l < 3) {
            td[nt++] = (wai_tensor_desc){ sizeof(wai_tensor_desc), y->cout, hh, ww, 16, -32768, 32767 };
            ins[nn] = nt - 2;
            nd[nn] = (wai_node_desc){ .struct_size = sizeof(wai_node_desc), .op = WAI_OP_INVERSE_GDN, .n_inputs = 1,
                                      .inputs = &ins[nn], .output = nt - 1, .beta = y->beta, .gamma = y->gamma,
                                      .square_shift = 6, .out_shift = 10 };
            nn++;
        }
    }
    const uint32_t gin = 0, gout = nt - 1;
    wai_graph_desc g = { sizeof g, nt, td, nn, nd, 1, &gin, 1, &gout };
    wai_prepared_graph *pg = NULL;
    if (t->graph_prepare(be, 0, &g, &pg, err, sizeof err) != WAI_OK) { fprintf(stderr, "prepare: %s\n", err); return 1; }

    const size_t nin = (size_t)chans[0] * latent_h * latent_w, nout = (size_t)3 * 16 * latent_h * 16 * latent_w;
    int32_t *xin = malloc(nin * 4), *yout = malloc(nout * 4);
    for (size_t i = 0; i < nin; i++) xin[i] = x0[i];
    wai_tensor ti = { sizeof ti, gin, xin, nin }, to = { sizeof to, gout, yout, nout };
    *best = 1e9;
    for (int r = 0; r < reps + 1; r++) {
        double t0 = now();
        if (t->graph_run(pg, &ti, 1, &to, 1, err, sizeof err) != WAI_OK) { fprintf(stderr, "run: %s\n", err); return 1; }
        if (r > 0 && now() - t0 < *best) *best = now() - t0;
    }
    int same = 1;
    for (size_t i = 0; i < nout; i++) if (yout[i] != expected[i]) { same = 0; break; }
    printf("through the plugin: %s the kernels' picture\n", same ? "identical to" : "DIFFERENT FROM");
    t->graph_release(pg);
    t->close(be);
    free(xin); free(yout);
    return same ? 0 : 1;
}

typedef struct gs {
    cpuk_isa isa;
    layer L[4];
    double best_conv[4], best_gdn[4], best_total;
} gs;

/* The g_s weights and parameters, the same for every path (the generator is reseeded). */
static int build_gs(gs *g, cpuk_isa isa, int threads, int x_lo, int x_hi) {
    char err[256];
    int h = latent_h, w = latent_w;
    state = 0x2545f4914f6cdd1dull;
    g->isa = isa;
    g->best_total = 1e9;
    for (int l = 0; l < 4; l++) {
        layer *y = &g->L[l];
        g->best_conv[l] = g->best_gdn[l] = 1e9;
        y->cin = chans[l]; y->cout = chans[l + 1]; y->h = h; y->w = w;
        size_t nw = (size_t)y->cin * y->cout * 25;
        int16_t *wt = y->weights = malloc(nw * 2);
        int32_t *bias = y->bias = malloc((size_t)y->cout * 4);
        for (size_t i = 0; i < nw; i++) wt[i] = (int16_t)rnd_in(-64, 63);
        for (int o = 0; o < y->cout; o++) bias[o] = rnd_in(-100000, 100000);
        y->mult = malloc((size_t)y->cout * 4);
        y->shift = malloc((size_t)y->cout * 4);
        for (int o = 0; o < y->cout; o++) { y->mult[o] = rnd_in(1, 4); y->shift[o] = 12; }
        cpuk_post post = { CPUK_POST_REQUANTIZE, y->mult, y->shift, -1024, 1023 };
        /* The first conv reads the latent (its interval: x_lo..x_hi), the others the
         * inverse GDN's output, whose certified interval is int16's. */
        const int32_t lo = l == 0 ? x_lo : -32768, hi = l == 0 ? x_hi : 32767;
        cpuk_conv_desc d = { 1, y->cin, h, w, y->cout, 2 * h, 2 * w, 5, 5, 2, 2, 1, wt, bias, 16, 16, lo, hi, post };
        y->conv = cpuk_conv_create(&d, isa, threads, err, sizeof err);
        if (!y->conv) { fprintf(stderr, "%s\n", err); return 1; }
        h *= 2; w *= 2;
        y->out = cpuk_alloc((size_t)y->cout * h * w * 2);
        y->igdn = NULL;
        y->gdn_out = NULL;
        y->beta = y->gamma = NULL;
        if (l < 3) {
            int c = y->cout;
            int32_t *beta = y->beta = malloc((size_t)c * 4), *gamma = y->gamma = malloc((size_t)c * c * 4);
            for (int i = 0; i < c; i++) beta[i] = 1 << 16;
            for (int i = 0; i < c * c; i++) gamma[i] = rnd_in(0, 24);
            /* squares of [-1024, 1023] >> 6 fit int16: the vpdpwssd path. */
            cpuk_post none = { CPUK_POST_NONE, NULL, NULL, 0, 0 };
            cpuk_igdn_desc gd = { c, h, w, beta, gamma, 6, 10, -1024, 1023, 16, 16, none };
            y->igdn = cpuk_igdn_create(&gd, isa, threads, err, sizeof err);
            if (!y->igdn) { fprintf(stderr, "%s\n", err); return 1; }
            y->gdn_out = cpuk_alloc((size_t)c * h * w * 2);
        }
    }
    return 0;
}

static void run_gs(gs *g, cpuk_pool *pool, const int16_t *x0, int keep) {
    const int16_t *in = x0;
    double tt = now();
    for (int l = 0; l < 4; l++) {
        layer *y = &g->L[l];
        double t0 = now(), t1;
        if (y->igdn && fused && cpuk_conv_igdn_fusable(y->conv, y->igdn)) {
            cpuk_conv_igdn_run(y->conv, y->igdn, pool, in, y->out, y->gdn_out);
            in = y->gdn_out;
            t1 = now();
        } else {
            cpuk_conv_run(y->conv, pool, in, y->out);
            t1 = now();
            in = y->out;
            if (y->igdn) {
                cpuk_igdn_run(y->igdn, pool, in, y->gdn_out);
                in = y->gdn_out;
            }
        }
        double t2 = now();
        if (keep) {
            if (t1 - t0 < g->best_conv[l]) g->best_conv[l] = t1 - t0;
            if (y->igdn && t2 - t1 < g->best_gdn[l]) g->best_gdn[l] = t2 - t1;
        }
    }
    if (keep && now() - tt < g->best_total) g->best_total = now() - tt;
}

static void free_gs(gs *g) {
    for (int l = 0; l < 4; l++) {
        layer *y = &g->L[l];
        free(y->weights); free(y->bias); free(y->beta); free(y->gamma);
        cpuk_conv_destroy(y->conv);
        cpuk_igdn_destroy(y->igdn);
        cpuk_free(y->out);
        cpuk_free(y->gdn_out);
        free(y->mult); free(y->shift);
    }
}

int main(int argc, char **argv) {
    cpuk_isa isas[CPUK_ISA_COUNT];
    int nisa = 0;
    if (argc > 1 && strcmp(argv[1], "all") != 0) {
        char list[256];
        snprintf(list, sizeof list, "%s", argv[1]);
        for (char *tok = strtok(list, ","); tok && nisa < CPUK_ISA_COUNT; tok = strtok(NULL, ",")) {
            if (!cpuk_isa_parse(tok, &isas[nisa])) { fprintf(stderr, "unknown isa %s\n", tok); return 2; }
            if (!cpuk_isa_supported(isas[nisa])) { fprintf(stderr, "isa %s not supported here\n", tok); return 2; }
            nisa++;
        }
    } else {
        for (int i = CPUK_ISA_COUNT - 1; i > 0; i--) if (cpuk_isa_supported((cpuk_isa)i)) isas[nisa++] = (cpuk_isa)i;
        if (nisa == 0) isas[nisa++] = CPUK_ISA_SCALAR;
    }
    int threads = argc > 2 ? atoi(argv[2]) : cpuk_online_cpus();
    int reps = argc > 3 ? atoi(argv[3]) : 5;
    /* The latent's interval: int_hyper's N=128 sample set has y in [-128, 127]; "wide"
     * (WAI_BENCH_LATENT=wide) takes [-1024, 1023] as every other layer's activations. */
    const char *clk = getenv("WAI_BENCH_CLOCK");
    if (clk && strcmp(clk, "cpu") == 0) bench_clock = CLOCK_PROCESS_CPUTIME_ID;
    const char *fz = getenv("WAI_BENCH_FUSED");
    if (fz && strcmp(fz, "0") == 0) fused = 0;
    const char *lat = getenv("WAI_BENCH_LATENT");
    const int wide_latent = lat && strcmp(lat, "wide") == 0;
    const char *shape = getenv("WAI_BENCH_SHAPE");
    if (shape) {
        int m, n, lh, lw;
        if (sscanf(shape, "%d,%d,%d,%d", &m, &n, &lh, &lw) != 4 || m < 1 || n < 1 || lh < 1 || lw < 1 || m > 1024 || n > 1024 || lh > 256 || lw > 256) {
            fprintf(stderr, "WAI_BENCH_SHAPE: expected M,N,H,W (latent channels, channels, latent height, width), got %s\n", shape);
            return 2;
        }
        chans[0] = m; chans[1] = chans[2] = chans[3] = n; latent_h = lh; latent_w = lw;
    }
    const int x_lo = wide_latent ? -1024 : -128, x_hi = wide_latent ? 1023 : 127;
    cpuk_pool *pool = cpuk_pool_create(threads);
    char model[128];
    cpuk_cpu_model(model, sizeof model);
    printf("cpu: %s, threads %d, g_s M=%d N=%d latent %dx%d, latent in [%d, %d], clock %s, paths:", model, threads, chans[0], chans[1], latent_w, latent_h, x_lo, x_hi,
           bench_clock == CLOCK_MONOTONIC ? "wall" : "process CPU time");
    for (int k = 0; k < nisa; k++) printf(" %s", cpuk_isa_name(isas[k]));
    printf("\n");

    int16_t *x0 = cpuk_alloc((size_t)chans[0] * latent_h * latent_w * 2);
    state = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < (size_t)chans[0] * latent_h * latent_w; i++) x0[i] = (int16_t)rnd_in(x_lo, x_hi);
    gs *G = calloc((size_t)nisa, sizeof *G);
    for (int k = 0; k < nisa; k++) if (build_gs(&G[k], isas[k], threads, x_lo, x_hi)) return 1;

    uint64_t conv_macs = 0, gdn_macs = 0;
    for (int l = 0; l < 4; l++) {
        conv_macs += cpuk_conv_macs(G[0].L[l].conv);
        if (G[0].L[l].igdn) gdn_macs += (uint64_t)G[0].L[l].cout * G[0].L[l].cout * (uint64_t)(4 * G[0].L[l].h * G[0].L[l].w);
    }

    /* Peaks and workloads alternate, and each keeps its best: other processes on the
     * machine can only slow either down, so best against best is the fair ratio. */
    const int vnni = cpuk_isa_supported(CPUK_ISA_AVX512), amx = cpuk_isa_supported(CPUK_ISA_AMX);
    const cpuk_isa peak_isa = vnni ? CPUK_ISA_AVX512 : isas[0];
    cpuk_peak_loop(pool, peak_isa, 20000000);
    double peak = 0, peak_amx = 0;
    for (int r = 0; r < reps + 1; r++) {
        double t0 = now();
        uint64_t macs = cpuk_peak_loop(pool, peak_isa, 40000000);
        double g = macs / (now() - t0) / 1e9;
        if (g > peak) peak = g;
        if (amx) {
            t0 = now();
            macs = cpuk_peak_loop(pool, CPUK_ISA_AMX, 40000000);
            g = macs / (now() - t0) / 1e9;
            if (g > peak_amx) peak_amx = g;
        }
        for (int k = 0; k < nisa; k++) run_gs(&G[k], pool, x0, r > 0);
    }

    /* Every ratio below is to this peak: vpdpwssd's where AVX-512 VNNI exists, else the
     * first path's own (avx2: vpmaddwd + vpaddd), and the lines say which. */
    const char *peak_name = peak_isa == CPUK_ISA_AVX512 ? "vpdpwssd" : peak_isa == CPUK_ISA_AVX2 ? "vpmaddwd" : cpuk_isa_name(peak_isa);
    printf("peak (%s multiply-accumulate only, %d threads): %.1f GMAC/s\n", peak_name, threads, peak);
    if (amx) printf("peak (TDPBSSD int8 only, %d threads): %.1f GMAC/s = %.2f x the vpdpwssd peak\n", threads, peak_amx, peak_amx / peak);
    int status = 0;
    const size_t nout = (size_t)3 * 16 * latent_h * 16 * latent_w;
    for (int k = 0; k < nisa; k++) {
        gs *g = &G[k];
        printf("-- %s\n", cpuk_isa_name(g->isa));
        double conv_time = 0;
        for (int l = 0; l < 4; l++) {
            const layer *y = &g->L[l];
            double gm = cpuk_conv_macs(y->conv) / g->best_conv[l] / 1e9;
            conv_time += g->best_conv[l];
            printf("conv %d: %3d -> %3d, %3dx%-3d -> %3dx%-3d  %6.2f GMAC in %7.2f ms  %7.1f GMAC/s  (%.2f of peak) [%s]",
                   l + 1, y->cin, y->cout, y->h, y->w, 2 * y->h, 2 * y->w,
                   cpuk_conv_macs(y->conv) / 1e9, g->best_conv[l] * 1e3, gm, gm / peak, cpuk_conv_kernel_name(y->conv));
            if (y->igdn && fused && cpuk_conv_igdn_fusable(y->conv, y->igdn))
                printf("   + igdn fused [%s]", cpuk_igdn_kernel_name(y->igdn));
            else if (y->igdn) printf("   igdn %6.2f ms [%s]", g->best_gdn[l] * 1e3, cpuk_igdn_kernel_name(y->igdn));
            printf("\n");
        }
        double conv_g = conv_macs / conv_time / 1e9;
        printf("synthesis convs: %.2f GMAC in %.2f ms = %.1f GMAC/s = %.2f of the %s peak\n",
               conv_macs / 1e9, conv_time * 1e3, conv_g, conv_g / peak, peak_name);
        printf("whole g_s (convs + fused requantize + inverse GDN %.2f GMAC): %.2f ms = %.1f GMAC/s = %.2f of the %s peak\n",
               gdn_macs / 1e9, g->best_total * 1e3, (conv_macs + gdn_macs) / g->best_total / 1e9,
               (conv_macs + gdn_macs) / g->best_total / 1e9 / peak, peak_name);
        if (k > 0) {
            const int same = memcmp(g->L[3].out, G[0].L[3].out, nout * 2) == 0;
            printf("picture %s %s's; g_s time %.2f x %s's\n", same ? "identical to" : "DIFFERENT FROM",
                   cpuk_isa_name(G[0].isa), g->best_total / G[0].best_total, cpuk_isa_name(G[0].isa));
            if (!same) status = 1;
        }
    }

    if (argc > 4) {
        double t;
        if (bench_plugin(argv[4], G[0].L, x0, x_lo, x_hi, G[0].L[3].out, reps, &t) != 0) status = 1;
        else
            printf("whole g_s through the plugin's graph_run: %.2f ms = %.1f GMAC/s = %.2f of the %s peak\n",
                   t * 1e3, (conv_macs + gdn_macs) / t / 1e9, (conv_macs + gdn_macs) / t / 1e9 / peak, peak_name);
    }

    for (int k = 0; k < nisa; k++) free_gs(&G[k]);
    free(G);
    cpuk_free(x0);
    cpuk_pool_destroy(pool);
    return status;
}
