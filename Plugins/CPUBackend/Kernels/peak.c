/* The in-run peak for the benchmark: the ISA's int16-pair multiply-accumulate instruction
 * alone, on every pool thread at once (many small tasks, so every thread gets its share). */
#include "kernels_internal.h"

#define PEAK_TASKS_PER_THREAD 32

typedef struct peak_ctx { cpuk_isa isa; uint64_t iters; uint64_t macs; } peak_ctx;

static void peak_task(void *raw, int tid, size_t task) {
    (void)tid; (void)task;
    peak_ctx *c = raw;
    uint64_t n = c->isa == CPUK_ISA_AMX ? cpuk_peak_amx(c->iters / 4 + 1)
               : c->isa == CPUK_ISA_AVX512 ? cpuk_peak_avx512(c->iters)
               : c->isa == CPUK_ISA_AVX2 ? cpuk_peak_avx2(c->iters) : cpuk_peak_scalar(c->iters);
    __atomic_fetch_add(&c->macs, n, __ATOMIC_RELAXED);
}

uint64_t cpuk_peak_loop(cpuk_pool *pool, cpuk_isa isa, uint64_t iters) {
    peak_ctx c = { isa, iters / PEAK_TASKS_PER_THREAD + 1, 0 };
    cpuk_pool_run(pool, (size_t)cpuk_pool_threads(pool) * PEAK_TASKS_PER_THREAD, peak_task, &c);
    return c.macs;
}
