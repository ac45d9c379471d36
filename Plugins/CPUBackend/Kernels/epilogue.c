/* Portable epilogues: gather the x-phases of a conv output row, or finish inverse GDN, then
 * apply the fused per-channel post-op and store at the output's width. */
#include "kernels_internal.h"

#define STORE_LOOP(KIND)                                                                     \
    for (int ph = 0; ph < e->nph; ph++) {                                                    \
        const int32_t *src = e->src[ph];                                                     \
        const int base = e->base[ph], step = e->step, count = e->count[ph];                 \
        if (e->out_bits == 16) {                                                             \
            int16_t *out = (int16_t *)e->out + base;                                         \
            for (int n = 0; n < count; n++) out[n * step] = (int16_t)cpuk_post_apply(KIND, src[n], &e->post); \
        } else {                                                                             \
            int32_t *out = (int32_t *)e->out + base;                                         \
            for (int n = 0; n < count; n++) out[n * step] = cpuk_post_apply(KIND, src[n], &e->post); \
        }                                                                                    \
    }

void cpuk_epi_conv_generic(const cpuk_epi_row *e) {
    switch (e->kind) {
    case CPUK_POST_REQUANTIZE: STORE_LOOP(CPUK_POST_REQUANTIZE) break;
    case CPUK_POST_CLAMP: STORE_LOOP(CPUK_POST_CLAMP) break;
    default: STORE_LOOP(CPUK_POST_NONE) break;
    }
}

#define IGDN_LOOP(KIND)                                                                      \
    for (int i = 0; i < e->count; i++) {                                                     \
        const int32_t x = cpuk_load(e->x, e->x_bits, (size_t)i);                             \
        const int32_t v = cpuk_asr(x * cpuk_isqrt(e->n[i]) + r, s);                          \
        cpuk_store(e->out, e->out_bits, (size_t)i, cpuk_post_apply(KIND, v, &e->post));      \
    }

void cpuk_epi_igdn_generic(const cpuk_epi_igdn *e) {
    const int s = e->out_shift;
    const int32_t r = cpuk_rnd_const(s);
    switch (e->kind) {
    case CPUK_POST_REQUANTIZE: IGDN_LOOP(CPUK_POST_REQUANTIZE) break;
    case CPUK_POST_CLAMP: IGDN_LOOP(CPUK_POST_CLAMP) break;
    default: IGDN_LOOP(CPUK_POST_NONE) break;
    }
}
