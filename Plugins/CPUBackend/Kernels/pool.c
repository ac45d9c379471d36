/* A small pthread pool: created at backend open, one parallel region at a time (regions of
 * distinct prepared graphs running on different host threads take turns). Tasks are handed
 * out through an atomic counter so a slow core does not hold up the others.
 *
 * A graph run is a string of short regions (a phase of one layer can take tens of
 * microseconds), so between regions the threads spin a little before they sleep: waking a
 * thread blocked on a condition variable costs an inter-processor interrupt, and on a
 * virtual machine whose idle vCPU the hypervisor has halted that is 20-50 µs per region —
 * measured as a third of a 0.6 ms calibration run, and enough to swap the probe's ranking
 * of two paths. The spin is bounded in time (POOL_SPIN_NS), so an idle pool costs at most
 * that much CPU after its last region. */
#include "kernels_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define cpu_relax() _mm_pause()
#else
#define cpu_relax() ((void)0)
#endif

/* Long enough to cover the gap between two regions of one run (the host thread's own
 * work between layers), short enough that an idle pool gives its core back at once. A pool
 * with more threads than online CPUs does not spin: a spinning thread would hold the core
 * a thread with work is waiting for. */
#define POOL_SPIN_NS 100000L

static int64_t mono_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000L + t.tv_nsec;
}

struct cpuk_pool {
    int n;
    int64_t spin_ns;          /* POOL_SPIN_NS, or 0 when oversubscribed */
    pthread_t *threads;
    pthread_mutex_t region;   /* serialises parallel regions */
    pthread_mutex_t m;
    pthread_cond_t start, done;
    uint64_t generation;
    int pending;
    int quit;
    cpuk_task_fn fn;
    void *ctx;
    size_t ntasks;
    size_t next;              /* atomic */
};

typedef struct worker_arg { cpuk_pool *pool; int tid; } worker_arg;

/* A new region has started (or the pool is closing): what a waiting worker waits for. */
static int started(const cpuk_pool *p, uint64_t seen) {
    return __atomic_load_n(&p->generation, __ATOMIC_ACQUIRE) != seen || __atomic_load_n(&p->quit, __ATOMIC_RELAXED);
}

/* Every worker has finished the region: what the thread that started it waits for. */
static int finished(const cpuk_pool *p, uint64_t seen) {
    (void)seen;
    return __atomic_load_n(&p->pending, __ATOMIC_ACQUIRE) == 0;
}

/* Polls `ready`, pausing between polls, until it holds or the pool's spin time is up; the
 * caller then sleeps on the condition variable as before, so this only saves the wake-up. */
static inline void spin_until(const cpuk_pool *p, uint64_t seen, int (*ready)(const cpuk_pool *, uint64_t)) {
    if (p->spin_ns <= 0) return;
    const int64_t until = mono_ns() + p->spin_ns;
    do {
        for (int i = 0; i < 64; i++) {
            if (ready(p, seen)) return;
            cpu_relax();
        }
    } while (mono_ns() <= until);
}

static void drain(cpuk_pool *p, int tid) {
    for (;;) {
        size_t t = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);
        if (t >= p->ntasks) break;
        p->fn(p->ctx, tid, t);
    }
}

static void *worker(void *raw) {
    worker_arg arg = *(worker_arg *)raw;
    free(raw);
    cpuk_pool *p = arg.pool;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->m);
    for (;;) {
        if (p->generation == seen && !p->quit) {
            pthread_mutex_unlock(&p->m);
            spin_until(p, seen, started);
            pthread_mutex_lock(&p->m);
        }
        while (p->generation == seen && !p->quit) pthread_cond_wait(&p->start, &p->m);
        if (p->quit) break;
        seen = p->generation;
        pthread_mutex_unlock(&p->m);
        drain(p, arg.tid);
        pthread_mutex_lock(&p->m);
        if (__atomic_sub_fetch(&p->pending, 1, __ATOMIC_RELEASE) == 0) pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->m);
    return NULL;
}

cpuk_pool *cpuk_pool_create(int nthreads) {
    if (nthreads < 1) nthreads = 1;
    cpuk_pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->n = nthreads;
    p->spin_ns = nthreads <= cpuk_online_cpus() ? POOL_SPIN_NS : 0;
    p->threads = calloc((size_t)nthreads, sizeof(pthread_t));
    if (!p->threads) { free(p); return NULL; }
    pthread_mutex_init(&p->region, NULL);
    pthread_mutex_init(&p->m, NULL);
    pthread_cond_init(&p->start, NULL);
    pthread_cond_init(&p->done, NULL);
    for (int t = 1; t < nthreads; t++) {
        worker_arg *arg = malloc(sizeof *arg);
        if (arg) { arg->pool = p; arg->tid = t; }
        if (!arg || pthread_create(&p->threads[t], NULL, worker, arg) != 0) {
            free(arg);
            p->n = t;            /* destroy joins only the threads that started */
            cpuk_pool_destroy(p);
            return NULL;
        }
    }
    return p;
}

void cpuk_pool_destroy(cpuk_pool *p) {
    if (!p) return;
    pthread_mutex_lock(&p->m);
    __atomic_store_n(&p->quit, 1, __ATOMIC_RELAXED);
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->m);
    for (int t = 1; t < p->n; t++) pthread_join(p->threads[t], NULL);
    pthread_cond_destroy(&p->start);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->m);
    pthread_mutex_destroy(&p->region);
    free(p->threads);
    free(p);
}

int cpuk_pool_threads(const cpuk_pool *p) { return p ? p->n : 1; }

void cpuk_pool_run(cpuk_pool *p, size_t ntasks, cpuk_task_fn fn, void *ctx) {
    if (ntasks == 0) return;
    if (!p || p->n == 1 || ntasks == 1) {
        for (size_t t = 0; t < ntasks; t++) fn(ctx, 0, t);
        return;
    }
    pthread_mutex_lock(&p->region);
    pthread_mutex_lock(&p->m);
    p->fn = fn;
    p->ctx = ctx;
    p->ntasks = ntasks;
    __atomic_store_n(&p->next, 0, __ATOMIC_RELAXED);
    p->pending = p->n - 1;
    /* Release: a worker that sees the new generation while spinning sees fn, ctx and
     * ntasks too; one asleep is woken by the broadcast and reads them under the mutex. */
    __atomic_store_n(&p->generation, p->generation + 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->m);
    drain(p, 0);
    spin_until(p, 0, finished);
    pthread_mutex_lock(&p->m);
    while (p->pending > 0) pthread_cond_wait(&p->done, &p->m);
    pthread_mutex_unlock(&p->m);
    pthread_mutex_unlock(&p->region);
}
