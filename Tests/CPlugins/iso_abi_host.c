/*
 * iso_abi_host.c — a minimal host-side loader in plain C, for the struct-size test
 * (Tests/WaiHostTests/ABIStructSizeTests.swift). Built against the 1.0 header, or against
 * the test's 1.1 header (every struct has one appended member, WAI_FUTURE_MEMBER), it
 * loads a backend, negotiates, lists its unit, prepares and runs a two-node graph, and
 * checks the rules of docs/backend-abi.md §2.3 from the host's side:
 *   - the table is accepted when it holds the 1.0 members; an appended member is read only
 *     when the table's struct_size covers it;
 *   - the unit_info out-struct is sized by this host; the backend writes nothing past it
 *     (guard bytes) and leaves members it does not know as this host initialised them;
 *   - arrays are laid out with this host's sizeof; guard bytes follow every array, so a
 *     backend that strides by its own sizeof or reads uncovered members sees garbage.
 * Prints what it found, one "key: value" per line; exit status 0 only when all held.
 */
#include "wai_backend.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD 0xEEu
#define GUARD_BYTES 64

static int failed(const char *what)
{
    printf("FAIL: %s\n", what);
    return 1;
}

/* count elements of `size` bytes, zeroed, then GUARD_BYTES of GUARD. */
static void *guarded(size_t count, size_t size)
{
    unsigned char *p = malloc(count * size + GUARD_BYTES);
    if (p == NULL)
        exit(failed("out of memory"));
    memset(p, 0, count * size);
    memset(p + count * size, GUARD, GUARD_BYTES);
    return p;
}

static int guard_intact(const void *base, size_t count, size_t size)
{
    const unsigned char *g = (const unsigned char *)base + count * size;
    for (size_t i = 0; i < GUARD_BYTES; i++)
        if (g[i] != GUARD)
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return failed("usage: iso_abi_host PLUGIN.so");
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (h == NULL)
        return failed(dlerror());
    wai_backend_entry_fn entry = (wai_backend_entry_fn)(uintptr_t)dlsym(h, WAI_BACKEND_ENTRY_SYMBOL);
    if (entry == NULL)
        return failed("no entry point");
    char err[512] = "";
    const wai_backend_iface *t = NULL;
    if (entry(WAI_ABI_MAJOR, WAI_ABI_MINOR, &t, err, sizeof err) != WAI_OK || t == NULL)
        return failed(err);
    if (t->struct_size < WAI_BACKEND_IFACE_SIZE_1_0 || t->abi_major != WAI_ABI_MAJOR)
        return failed("table smaller than ABI 1.0 or of another major");
    printf("table struct_size: %zu\n", t->struct_size);
#ifdef WAI_FUTURE_MEMBER
    if (t->struct_size >= WAI_STRUCT_SIZE(wai_backend_iface, WAI_FUTURE_MEMBER))
        printf("table future: present %llu\n", (unsigned long long)t->WAI_FUTURE_MEMBER);
    else
        printf("table future: absent\n");
#endif

    wai_backend *b = NULL;
    if (t->open(&b, err, sizeof err) != WAI_OK)
        return failed(err);
    uint32_t units = 0;
    if (t->unit_count(b, &units, err, sizeof err) != WAI_OK || units < 1)
        return failed("unit_count");

    wai_unit_info *info = guarded(1, sizeof *info);
    info->struct_size = sizeof *info;
#ifdef WAI_FUTURE_MEMBER
    info->WAI_FUTURE_MEMBER = 0xABAB;   /* what an older backend must leave alone */
#endif
    if (t->unit_info(b, 0, info, err, sizeof err) != WAI_OK)
        return failed(err);
    if (!guard_intact(info, 1, sizeof *info))
        return failed("unit_info wrote past the host's struct_size");
    if (info->struct_size != sizeof *info)
        return failed("unit_info changed struct_size");
    printf("unit: %s\n", info->device);
#ifdef WAI_FUTURE_MEMBER
    printf("unit_info future: %llu\n", (unsigned long long)info->WAI_FUTURE_MEMBER);
#endif

    /* x (1x2x3, wide, [-100, 100]) -> clamp [-5, 5] -> c; y = c + x. */
    wai_tensor_desc *td = guarded(3, sizeof *td);
    for (int i = 0; i < 3; i++) {
        td[i].struct_size = sizeof *td;
        td[i].channels = 1; td[i].height = 2; td[i].width = 3; td[i].storage_bits = 32;
    }
    td[0].lo = -100; td[0].hi = 100;
    td[1].lo = -5;   td[1].hi = 5;
    td[2].lo = -105; td[2].hi = 105;
    static const uint32_t clamp_in[1] = { 0 }, add_in[2] = { 1, 0 }, graph_in[1] = { 0 }, graph_out[1] = { 2 };
    wai_node_desc *nd = guarded(2, sizeof *nd);
    nd[0].struct_size = sizeof *nd;
    nd[0].op = WAI_OP_CLAMP; nd[0].n_inputs = 1; nd[0].inputs = clamp_in; nd[0].output = 1;
    nd[0].clamp_lo = -5; nd[0].clamp_hi = 5;
    nd[1].struct_size = sizeof *nd;
    nd[1].op = WAI_OP_ADD; nd[1].n_inputs = 2; nd[1].inputs = add_in; nd[1].output = 2;
    wai_graph_desc *g = guarded(1, sizeof *g);
    g->struct_size = sizeof *g;
    g->n_tensors = 3; g->tensors = td; g->n_nodes = 2; g->nodes = nd;
    g->n_inputs = 1; g->inputs = graph_in; g->n_outputs = 1; g->outputs = graph_out;

    wai_prepared_graph *pg = NULL;
    if (t->graph_prepare(b, 0, g, &pg, err, sizeof err) != WAI_OK)
        return failed(err);

    int32_t x[6] = { -100, -6, -5, 0, 5, 100 }, y[6] = { 0 };
    wai_tensor *in = guarded(1, sizeof *in), *out = guarded(1, sizeof *out);
    in->struct_size = sizeof *in; in->tensor = 0; in->data = x; in->count = 6;
    out->struct_size = sizeof *out; out->tensor = 2; out->data = y; out->count = 6;
    if (t->graph_run(pg, in, 1, out, 1, err, sizeof err) != WAI_OK)
        return failed(err);
    static const int32_t want[6] = { -105, -11, -10, 0, 10, 105 };
    if (memcmp(y, want, sizeof want) != 0)
        return failed("wrong outputs");
    if (!guard_intact(in, 1, sizeof *in) || !guard_intact(out, 1, sizeof *out) ||
        !guard_intact(td, 3, sizeof *td) || !guard_intact(nd, 2, sizeof *nd) || !guard_intact(g, 1, sizeof *g))
        return failed("the backend wrote past a host struct");
    printf("run: exact\n");
    t->graph_release(pg);
    t->close(b);
    printf("status name: %s\n", wai_status_name(WAI_ERR_UNSUPPORTED));
    return 0;
}
