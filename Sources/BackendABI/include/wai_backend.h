/* SPDX-License-Identifier: Apache-2.0
 *
 * wai_backend.h — the WaiHost decode-backend ABI, version 1.1 (1.1 appended WAI_OP_WARP).
 *
 * The single source of truth for the protocol is docs/backend-abi.md; this header is its
 * C form. Rules that matter for binary compatibility (docs/backend-abi.md §2):
 *   - one exported symbol, WAI_BACKEND_ENTRY_SYMBOL; nothing else is looked up;
 *   - the host calls it with its ABI version first; a plugin whose major differs refuses,
 *     and the host refuses a table whose major differs, before any other call;
 *   - every struct starts with `size_t struct_size`; minors only append members, so a reader
 *     refuses a struct smaller than its frozen 1.0 size (WAI_*_SIZE_1_0 below), accepts a
 *     larger one from a newer peer, and reads a member added after 1.0 only when
 *     struct_size >= WAI_STRUCT_SIZE(type, member);
 *   - arrays of structs (graph tensors and nodes, run inputs and outputs) are strided by
 *     their elements' struct_size, never by the reader's sizeof; wai_unit_info is sized by
 *     the caller and the callee writes only members inside that size (§2.3);
 *   - every fallible call returns wai_status and writes a NUL-terminated message into the
 *     caller-owned buffer (err, err_cap); the plugin never allocates memory the host frees;
 *   - all tensors in requests are owned by the host and valid only for the call.
 */
#ifndef WAI_BACKEND_H
#define WAI_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WAI_ABI_MAJOR 1u
#define WAI_ABI_MINOR 1u
#define WAI_BACKEND_ENTRY_SYMBOL "wai_backend_entry"

/* docs/backend-abi.md §4 — status codes. */
typedef enum wai_status {
    WAI_OK = 0,
    WAI_ERR_ABI_MISMATCH = 1,   /* major version differs */
    WAI_ERR_INVALID_ARGUMENT = 2,
    WAI_ERR_UNSUPPORTED = 3,    /* op, width or shape this unit cannot run */
    WAI_ERR_NO_DEVICE = 4,      /* loader or driver absent, device lost */
    WAI_ERR_OUT_OF_MEMORY = 5,
    WAI_ERR_INTERNAL = 6
} wai_status;

/* docs/backend-abi.md §5 — what a unit is. */
typedef enum wai_unit_kind {
    WAI_UNIT_CPU = 0,
    WAI_UNIT_GPU = 1,
    WAI_UNIT_OTHER = 2
} wai_unit_kind;

typedef struct wai_unit_info {
    size_t struct_size;
    uint32_t kind;            /* wai_unit_kind */
    char device[128];         /* human name, e.g. "AMD EPYC 9R14 (2 threads)" */
    char driver[128];         /* driver identity: name and version; part of the probe cache key */
    uint32_t narrow_storage;  /* 1: runs 16-bit storage tensors natively */
} wai_unit_info;

/* docs/integer-ops.md — the op set. Values are part of the ABI: append only. */
typedef enum wai_op {
    WAI_OP_CONV2D = 1,
    WAI_OP_CONV_TRANSPOSE2D = 2,
    WAI_OP_REQUANTIZE = 3,
    WAI_OP_ADD = 4,
    WAI_OP_CLAMP = 5,
    WAI_OP_DEPTH_TO_SPACE = 6,
    WAI_OP_CONCAT = 7,
    WAI_OP_LOOKUP = 8,
    WAI_OP_INVERSE_GDN = 9,
    WAI_OP_WARP = 10            /* 1.1: a 1.0 backend answers graph_prepare unsupported */
} wai_op;

/* docs/backend-abi.md §6 — a tensor of the graph: CHW, batch 1. The interval is the
 * host-verified bounds certificate: every value the tensor can ever hold lies in [lo, hi]. */
typedef struct wai_tensor_desc {
    size_t struct_size;
    uint32_t channels, height, width;
    uint32_t storage_bits;    /* 16 (narrow) or 32 (wide) */
    int32_t lo, hi;
} wai_tensor_desc;

/* One node. Only the members its op names are meaningful (docs/integer-ops.md gives each
 * op's members); pointers not used by the op are NULL. All arrays stay valid until
 * graph_prepare returns: a backend copies what it keeps. */
typedef struct wai_node_desc {
    size_t struct_size;
    uint32_t op;                  /* wai_op */
    uint32_t n_inputs;
    const uint32_t *inputs;       /* tensor indices */
    uint32_t output;              /* tensor index */

    /* CONV2D, CONV_TRANSPOSE2D */
    uint32_t kernel_h, kernel_w, stride, pad, output_pad;
    const int16_t *weights;       /* conv: [cout][cin][kh][kw]; transposed: [cin][cout][kh][kw] */
    const int32_t *bias;          /* [cout] */

    /* REQUANTIZE: y = clamp((x*m[c] + rnd) >> s[c], lo, hi); CLAMP uses clamp_lo/hi only */
    const int32_t *multiplier;    /* [channels] */
    const int32_t *shift;         /* [channels], 0..31 */
    int32_t clamp_lo, clamp_hi;

    /* DEPTH_TO_SPACE */
    uint32_t block;

    /* LOOKUP: y = table[clamp(x - table_offset, 0, table_len-1)] */
    const int32_t *table;
    uint32_t table_len;
    int32_t table_offset;

    /* INVERSE_GDN */
    const int32_t *beta;          /* [c] */
    const int32_t *gamma;         /* [c][c], row i = output channel */
    uint32_t square_shift;        /* q */
    uint32_t out_shift;           /* s */

    /* WARP (1.1; docs/integer-ops.md §4.10): inputs[0] the (S*C) x H x W scale-space volume,
     * inputs[1] the 3 x H x W flow; block = S (scales), out_shift = F (fractional bits of
     * the flow). No member was appended for it: the 1.0 struct carries it. */
} wai_node_desc;

typedef struct wai_graph_desc {
    size_t struct_size;
    uint32_t n_tensors;
    const wai_tensor_desc *tensors;
    uint32_t n_nodes;
    const wai_node_desc *nodes;   /* topological order; each tensor written by one node */
    uint32_t n_inputs;
    const uint32_t *inputs;
    uint32_t n_outputs;
    const uint32_t *outputs;
} wai_graph_desc;

/* docs/backend-abi.md §7 — a host-owned tensor in a run request: int32, CHW, dense,
 * whatever the tensor's storage width inside the backend. */
typedef struct wai_tensor {
    size_t struct_size;
    uint32_t tensor;              /* index into wai_graph_desc.tensors */
    int32_t *data;
    size_t count;                 /* elements; must equal c*h*w */
} wai_tensor;

typedef struct wai_backend wai_backend;          /* opaque, plugin-owned */
typedef struct wai_prepared_graph wai_prepared_graph;

/* docs/backend-abi.md §3 — the function table. Thread rules (§8): on one backend, close,
 * unit_count/unit_info and graph_prepare are never called concurrently (the host serialises
 * them, not necessarily on one thread); the entry point and open may run at any time;
 * distinct prepared graphs may run concurrently on different threads, also during a
 * graph_prepare; one prepared graph is run by one thread at a time. */
typedef struct wai_backend_iface {
    size_t struct_size;
    uint32_t abi_major, abi_minor;
    const char *name;             /* short, lowercase: "cpu", "vulkan", "opencl" */
    const char *version;          /* the plugin's own version string */

    wai_status (*open)(wai_backend **out, char *err, size_t err_cap);
    void (*close)(wai_backend *backend);

    wai_status (*unit_count)(wai_backend *backend, uint32_t *count, char *err, size_t err_cap);
    wai_status (*unit_info)(wai_backend *backend, uint32_t unit, wai_unit_info *out,
                            char *err, size_t err_cap);

    /* Upload weights, compile, allocate: once per graph. */
    wai_status (*graph_prepare)(wai_backend *backend, uint32_t unit, const wai_graph_desc *graph,
                                wai_prepared_graph **out, char *err, size_t err_cap);
    /* inputs: one per graph input; outputs: one per graph output, written by the backend.
     * Both in the graph's order: inputs[k].tensor == graph->inputs[k], likewise outputs (§7). */
    wai_status (*graph_run)(wai_prepared_graph *graph,
                            const wai_tensor *inputs, uint32_t n_inputs,
                            wai_tensor *outputs, uint32_t n_outputs,
                            char *err, size_t err_cap);
    void (*graph_release)(wai_prepared_graph *graph);
} wai_backend_iface;

/* The one exported symbol. host_major/minor: the host's ABI. On WAI_OK *out points at a
 * table with static storage duration. */
typedef wai_status (*wai_backend_entry_fn)(uint32_t host_major, uint32_t host_minor,
                                           const wai_backend_iface **out,
                                           char *err, size_t err_cap);

/* docs/backend-abi.md §2.3 — the bytes of `type` up to the end of `member`: a reader reads
 * `member` only when the peer's struct_size is at least this (PJRT's rule). */
#define WAI_STRUCT_SIZE(type, member) (offsetof(type, member) + sizeof(((type *)0)->member))

/* The sizes of ABI 1.0, frozen: a reader refuses a struct smaller than these, whatever
 * its own sizeof has grown to. They never change. */
enum {
    WAI_BACKEND_IFACE_SIZE_1_0 = WAI_STRUCT_SIZE(wai_backend_iface, graph_release),
    WAI_UNIT_INFO_SIZE_1_0 = WAI_STRUCT_SIZE(wai_unit_info, narrow_storage),
    WAI_TENSOR_DESC_SIZE_1_0 = WAI_STRUCT_SIZE(wai_tensor_desc, hi),
    WAI_NODE_DESC_SIZE_1_0 = WAI_STRUCT_SIZE(wai_node_desc, out_shift),
    WAI_GRAPH_DESC_SIZE_1_0 = WAI_STRUCT_SIZE(wai_graph_desc, outputs),
    WAI_TENSOR_SIZE_1_0 = WAI_STRUCT_SIZE(wai_tensor, count)
};

#ifdef __cplusplus
#define WAI_STATIC_ASSERT(cond, why) static_assert(cond, why)
#else
#define WAI_STATIC_ASSERT(cond, why) _Static_assert(cond, why)
#endif

/* No tail padding, now or after any minor: sizeof ends at the last member, so a writer's
 * struct_size (its sizeof) never covers bytes that a later minor's member would occupy.
 * A minor that appends a member names it here (and pads explicitly if it must). */
WAI_STATIC_ASSERT(sizeof(wai_backend_iface) == WAI_STRUCT_SIZE(wai_backend_iface, graph_release), "wai_backend_iface has tail padding");
WAI_STATIC_ASSERT(sizeof(wai_unit_info) == WAI_STRUCT_SIZE(wai_unit_info, narrow_storage), "wai_unit_info has tail padding");
WAI_STATIC_ASSERT(sizeof(wai_tensor_desc) == WAI_STRUCT_SIZE(wai_tensor_desc, hi), "wai_tensor_desc has tail padding");
WAI_STATIC_ASSERT(sizeof(wai_node_desc) == WAI_STRUCT_SIZE(wai_node_desc, out_shift), "wai_node_desc has tail padding");
WAI_STATIC_ASSERT(sizeof(wai_graph_desc) == WAI_STRUCT_SIZE(wai_graph_desc, outputs), "wai_graph_desc has tail padding");
WAI_STATIC_ASSERT(sizeof(wai_tensor) == WAI_STRUCT_SIZE(wai_tensor, count), "wai_tensor has tail padding");

#if UINTPTR_MAX == 0xffffffffffffffffu
/* LP64: the sizes docs/backend-abi.md §2.3 lists. */
WAI_STATIC_ASSERT(WAI_BACKEND_IFACE_SIZE_1_0 == 88, "ABI 1.0 wai_backend_iface is 88 bytes");
WAI_STATIC_ASSERT(WAI_UNIT_INFO_SIZE_1_0 == 272, "ABI 1.0 wai_unit_info is 272 bytes");
WAI_STATIC_ASSERT(WAI_TENSOR_DESC_SIZE_1_0 == 32, "ABI 1.0 wai_tensor_desc is 32 bytes");
WAI_STATIC_ASSERT(WAI_NODE_DESC_SIZE_1_0 == 136, "ABI 1.0 wai_node_desc is 136 bytes");
WAI_STATIC_ASSERT(WAI_GRAPH_DESC_SIZE_1_0 == 72, "ABI 1.0 wai_graph_desc is 72 bytes");
WAI_STATIC_ASSERT(WAI_TENSOR_SIZE_1_0 == 32, "ABI 1.0 wai_tensor is 32 bytes");
#endif

/* Name of a status for messages ("ok", "abi_mismatch", ...). static inline, so a backend
 * that uses it links nothing from WaiHost (-Wl,-z,defs holds). */
static inline const char *wai_status_name(wai_status status)
{
    switch (status) {
    case WAI_OK: return "ok";
    case WAI_ERR_ABI_MISMATCH: return "abi_mismatch";
    case WAI_ERR_INVALID_ARGUMENT: return "invalid_argument";
    case WAI_ERR_UNSUPPORTED: return "unsupported";
    case WAI_ERR_NO_DEVICE: return "no_device";
    case WAI_ERR_OUT_OF_MEMORY: return "out_of_memory";
    case WAI_ERR_INTERNAL: return "internal";
    }
    return "unknown";
}

#ifdef __cplusplus
}
#endif

#endif /* WAI_BACKEND_H */
