/* A small pthread pool: created at backend open, one parallel region at a time (regions of
 * distinct prepared graphs running on different host threads take turns). Tasks are handed
 * out through an atomic counter so a slow core does not hold up the others. */
#include "kernels_internal.h"

#include <pthread.h>
#include <stdlib.h>

struct cpuk_pool {
    int n;
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
        while (p->generation == seen && !p->quit) pthread_cond_wait(&p->start, &p->m);
        if (p->quit) break;
        seen = p->generation;
        pthread_mutex_unlock(&p->m);
        drain(p, arg.tid);
        pthread_mutex_lock(&p->m);
        if (--p->pending == 0) pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->m);
    return NULL;
}

cpuk_pool *cpuk_pool_create(int nthreads) {
    if (nthreads < 1) nthreads = 1;
    cpuk_pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->n = nthreads;
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
    p->quit = 1;
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
    p->generation++;
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->m);
    drain(p, 0);
    pthread_mutex_lock(&p->m);
    while (p->pending > 0) pthread_cond_wait(&p->done, &p->m);
    pthread_mutex_unlock(&p->m);
    pthread_mutex_unlock(&p->region);
}
