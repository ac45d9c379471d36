/* Part of scripts/bench-collector.sh (a benchmark, not a test): the CPU time the five Ed25519
 * verifications of the very bundles the collector is sent take (docs/collector.md §Throughput
 * against the signature bound), each over an envelope's DSSE pre-authentication encoding:
 *  - OpenSSL at its fastest: EVP_DigestVerify, the installation key loaded once for every
 *    bundle, each bundle's session key once for its four records, an initialised EVP_MD_CTX
 *    called again where this OpenSSL allows it (3.0, 3.1), a fresh one where it does not;
 *  - libsodium (crypto_sign_ed25519_verify_detached), as the collector verifies a signature
 *    libsodium accepts (Sources/WaiCrypto/Ed25519Verification.swift).
 * `openssl speed ed25519` times 20-byte messages under one key; these are the bundles'
 * 300–600-byte messages under new keys.
 *
 * Input (written by the bench's bundle writer): per bundle, the installation key and the
 * session key (32 bytes each), then 5 × (64-byte signature, 4-byte big-endian length, PAE).
 * Output: one line, "<OpenSSL µs of CPU per bundle> <libsodium µs> <bundles>". Every signature
 * must verify under both. Usage: bench-collector-verify FILE MIN_SECONDS (for each library) */
#include <openssl/err.h>
#include <openssl/evp.h>
#include <sodium.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct sig { const unsigned char *s, *m; size_t n; };
struct bundle { const unsigned char *inst, *sess; struct sig sigs[5]; };

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static EVP_MD_CTX *ready(EVP_PKEY *k) {
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    if (!c || EVP_DigestVerifyInit(c, NULL, NULL, NULL, k) != 1) { fprintf(stderr, "EVP_DigestVerifyInit failed\n"); exit(1); }
    return c;
}

/* One OpenSSL verification at its fastest: the kept context where this OpenSSL allows it, or a fresh one. */
static int verify(EVP_MD_CTX **kept, EVP_PKEY *k, int reusable, const struct sig *g) {
    EVP_MD_CTX *c = reusable && *kept ? *kept : ready(k);
    int ok = EVP_DigestVerify(c, g->s, 64, g->m, g->n) == 1;
    ERR_clear_error();
    if (reusable) *kept = c; else EVP_MD_CTX_free(c);
    return ok;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: %s FILE MIN_SECONDS\n", argv[0]); return 2; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    unsigned char *data = malloc(size);
    if (!data || fread(data, 1, size, f) != (size_t)size) { fprintf(stderr, "cannot read %s\n", argv[1]); return 1; }
    fclose(f);
    size_t cap = 1024, n = 0;
    struct bundle *b = malloc(cap * sizeof *b);
    for (long at = 0; at < size; n++) {
        if (n == cap) b = realloc(b, (cap *= 2) * sizeof *b);
        if (at + 64 > size) { fprintf(stderr, "truncated input\n"); return 1; }
        b[n].inst = data + at;
        b[n].sess = data + at + 32;
        at += 64;
        for (int i = 0; i < 5; i++) {
            if (at + 68 > size) { fprintf(stderr, "truncated input\n"); return 1; }
            struct sig *g = &b[n].sigs[i];
            g->s = data + at;
            g->n = (size_t)data[at + 64] << 24 | data[at + 65] << 16 | data[at + 66] << 8 | data[at + 67];
            g->m = data + at + 68;
            at += 68 + (long)g->n;
            if (at > size) { fprintf(stderr, "truncated input\n"); return 1; }
        }
    }
    if (n == 0) { fprintf(stderr, "no bundles\n"); return 1; }
    /* Whether a context may be called again (the one-shot call on an initialised context). */
    EVP_PKEY *inst = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, b[0].inst, 32);
    EVP_MD_CTX *probe = ready(inst);
    int first = EVP_DigestVerify(probe, b[0].sigs[0].s, 64, b[0].sigs[0].m, b[0].sigs[0].n) == 1;
    int reusable = first && EVP_DigestVerify(probe, b[0].sigs[0].s, 64, b[0].sigs[0].m, b[0].sigs[0].n) == 1;
    ERR_clear_error();
    EVP_MD_CTX_free(probe);
    EVP_MD_CTX *inst_ctx = NULL;
    double min = atof(argv[2]), t0 = cpu_seconds(), t;
    long rounds = 0;
    do {
        for (size_t i = 0; i < n; i++) {
            if (memcmp(b[i].inst, b[0].inst, 32) != 0) { fprintf(stderr, "bundle %zu: another installation key\n", i); return 1; }
            int ok = verify(&inst_ctx, inst, reusable, &b[i].sigs[0]);
            EVP_PKEY *sess = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, b[i].sess, 32);
            EVP_MD_CTX *sess_ctx = NULL;
            for (int r = 1; r < 5; r++) ok &= verify(&sess_ctx, sess, reusable, &b[i].sigs[r]);
            EVP_MD_CTX_free(sess_ctx);
            EVP_PKEY_free(sess);
            if (!ok) { fprintf(stderr, "bundle %zu: a signature does not verify under OpenSSL\n", i); return 1; }
        }
        rounds++;
        t = cpu_seconds() - t0;
    } while (t < min);
    double openssl_us = t / ((double)n * rounds) * 1e6;

    if (sodium_init() < 0) { fprintf(stderr, "sodium_init failed\n"); return 1; }
    t0 = cpu_seconds();
    rounds = 0;
    do {
        for (size_t i = 0; i < n; i++)
            for (int r = 0; r < 5; r++) {
                const struct sig *g = &b[i].sigs[r];
                if (crypto_sign_ed25519_verify_detached(g->s, g->m, g->n, r == 0 ? b[i].inst : b[i].sess) != 0) {
                    fprintf(stderr, "bundle %zu: a signature does not verify under libsodium\n", i);
                    return 1;
                }
            }
        rounds++;
        t = cpu_seconds() - t0;
    } while (t < min);
    printf("%.1f %.1f %zu\n", openssl_us, t / ((double)n * rounds) * 1e6, n);
    return 0;
}
