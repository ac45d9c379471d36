/// The OpenCL C of every kernel (docs/integer-ops.md §4), one program built per device at
/// the first graph_prepare and kept in the disk cache (Runtime/program.c). Each op exists
/// once as a macro and is instantiated per storage width of its operands (X, Y; add also
/// B): `short` for narrow tensors, `int` for wide ones (§2). Every kernel takes the same
/// five arguments — x, y, two parameter buffers (or add's second input) and an int16 of
/// parameters whose s0 is the item count — and ignores the items past the count (the
/// global size is rounded up to the work-group size).
///
/// What the arithmetic relies on (OpenCL C specification, "Built-in Scalar Data Types" and
/// "Operators"): int is 32-bit two's complement; `>>` of a negative signed value fills the
/// vacated bits with ones, i.e. it is the floor shift of §3; shift counts stay in 0…31 (so the
/// spec's masking of the count never applies); `/` and `%` are used on non-negative operands
/// only, where they are exact; conversions to short happen only for values inside the
/// tensor's certified interval, so they are exact; there is no float anywhere (isqrt is an
/// integer digit-by-digit root). The certificate (§5) keeps every named intermediate in int32,
/// so no signed operation overflows.
enum KernelSource {
    static let text = #"""
// waihost OpenCL kernels, version 1 (docs/integer-ops.md; S = its sections). ASCII only: some compilers refuse other bytes.

// S3 rnd(x, s) = (x + 2^(s-1)) >> s for s >= 1, x for s = 0; >> on negative int is the floor shift.
inline int rnd(int x, int s) { return s == 0 ? x : (x + (1 << (s - 1))) >> s; }

// S3 isqrt(n) = the largest r with r*r <= n, exactly, by the binary digit-by-digit method.
inline uint isqrt_u(uint n) {
    uint rem = n, root = 0, bit = 1u << 30;
    while (bit > rem) bit >>= 2;
    while (bit != 0) {
        if (rem >= root + bit) { rem -= root + bit; root = (root >> 1) + bit; }
        else root >>= 1;
        bit >>= 2;
    }
    return root;
}

#define ARGS(XT, BT, YT) __global const XT *x, __global YT *y, __global const BT *b2, __global const int *b3, int16 p
#define ITEM uint id = (uint)get_global_id(0); if (id >= (uint)p.s0) return;

#define STORE8(YT, acc)                                                         \
    if (o0 + 0 < cout) y[(uint)(o0 + 0) * plane + rest] = (YT)acc.s0;           \
    if (o0 + 1 < cout) y[(uint)(o0 + 1) * plane + rest] = (YT)acc.s1;           \
    if (o0 + 2 < cout) y[(uint)(o0 + 2) * plane + rest] = (YT)acc.s2;           \
    if (o0 + 3 < cout) y[(uint)(o0 + 3) * plane + rest] = (YT)acc.s3;           \
    if (o0 + 4 < cout) y[(uint)(o0 + 4) * plane + rest] = (YT)acc.s4;           \
    if (o0 + 5 < cout) y[(uint)(o0 + 5) * plane + rest] = (YT)acc.s5;           \
    if (o0 + 6 < cout) y[(uint)(o0 + 6) * plane + rest] = (YT)acc.s6;           \
    if (o0 + 7 < cout) y[(uint)(o0 + 7) * plane + rest] = (YT)acc.s7;

// S4.1 conv2d. One item per output position and group of 8 output channels: each input
// value loaded feeds 8 accumulators (one int8). Weights are packed by the host as
// [group][cin][kh][kw][8] (zero channels past cout), bias as [group][8]. Every partial sum
// fits int32 in any order (S5).
// p: count, cin, h, w, ho, wo, kh, kw, stride, pad, cout.
#define CONV2D(XN, YN, XT, YT)                                                  \
__kernel void conv2d_x##XN##_y##YN(ARGS(XT, int, YT)) {                         \
    ITEM                                                                        \
    int cin = p.s1, h = p.s2, w = p.s3, ho = p.s4, wo = p.s5, kh = p.s6, kw = p.s7; \
    int stride = p.s8, pad = p.s9, cout = p.sa;                                 \
    uint plane = (uint)(ho * wo), g = id / plane, rest = id - g * plane;        \
    int i = (int)(rest / (uint)wo), j = (int)rest - i * wo, o0 = (int)g * 8;    \
    int8 acc = vload8(g, b3);                                                   \
    int r0 = i * stride - pad, c0 = j * stride - pad;                           \
    int uLo = max(0, -r0), uHi = min(kh, h - r0);                               \
    int vLo = max(0, -c0), vHi = min(kw, w - c0);                               \
    for (int c = 0; c < cin; c++) {                                             \
        for (int u = uLo; u < uHi; u++) {                                       \
            int wRow = (((int)g * cin + c) * kh + u) * kw;                      \
            int xRow = (c * h + r0 + u) * w + c0;                               \
            for (int v = vLo; v < vHi; v++)                                     \
                acc += vload8(wRow + v, b2) * (int)x[xRow + v];                 \
        }                                                                       \
    }                                                                           \
    STORE8(YT, acc)                                                             \
}

// S4.2 conv_transpose2d, gathered per output position and group of 8 output channels.
// Weights packed as [group][cin][kh][kw][8] from w[cin][cout][kh][kw]. The taps with
// (i + pad - u) >= 0 divisible by stride are u = (i + pad) mod stride + k*stride; every
// operand of / and % is non-negative.
// p: count, cin, h, w, ho, wo, kh, kw, stride, pad, cout.
#define CONVT2D(XN, YN, XT, YT)                                                 \
__kernel void conv_transpose2d_x##XN##_y##YN(ARGS(XT, int, YT)) {               \
    ITEM                                                                        \
    int cin = p.s1, h = p.s2, w = p.s3, ho = p.s4, wo = p.s5, kh = p.s6, kw = p.s7; \
    int stride = p.s8, pad = p.s9, cout = p.sa;                                 \
    uint plane = (uint)(ho * wo), g = id / plane, rest = id - g * plane;        \
    int i = (int)(rest / (uint)wo), j = (int)rest - i * wo, o0 = (int)g * 8;    \
    int8 acc = vload8(g, b3);                                                   \
    int ti = i + pad, tj = j + pad;                                             \
    int uLo = ti % stride, vLo = tj % stride;                                   \
    int firstU = ti - (h - 1) * stride, firstV = tj - (w - 1) * stride;         \
    if (firstU > uLo) uLo += (firstU - uLo + stride - 1) / stride * stride;     \
    if (firstV > vLo) vLo += (firstV - vLo + stride - 1) / stride * stride;     \
    int uHi = min(kh - 1, ti), vHi = min(kw - 1, tj);                           \
    for (int c = 0; c < cin; c++) {                                             \
        for (int u = uLo; u <= uHi; u += stride) {                              \
            int wRow = (((int)g * cin + c) * kh + u) * kw;                      \
            int xRow = (c * h + (ti - u) / stride) * w;                         \
            for (int v = vLo; v <= vHi; v += stride)                            \
                acc += vload8(wRow + v, b2) * (int)x[xRow + (tj - v) / stride]; \
        }                                                                       \
    }                                                                           \
    STORE8(YT, acc)                                                             \
}

// S4.3 y = clamp(rnd(x*m[c], s[c]), lo, hi). p: count, plane, lo, hi.
#define REQUANTIZE(XN, YN, XT, YT)                                              \
__kernel void requantize_x##XN##_y##YN(ARGS(XT, int, YT)) {                     \
    ITEM                                                                        \
    uint c = id / (uint)p.s1;                                                   \
    y[id] = (YT)min(max(rnd((int)x[id] * b2[c], b3[c]), p.s2), p.s3);           \
}

// S4.5 y = clamp(x, lo, hi). p: count, lo, hi.
#define CLAMP(XN, YN, XT, YT)                                                   \
__kernel void clamp_x##XN##_y##YN(ARGS(XT, int, YT)) {                          \
    ITEM                                                                        \
    y[id] = (YT)min(max((int)x[id], p.s1), p.s2);                               \
}

// S4.6 y[c][i*r + u][j*r + v] = x[c*r^2 + u*r + v][i][j], per output element.
// p: count, h, w, r (the input's h and w).
#define DEPTH_TO_SPACE(XN, YN, XT, YT)                                          \
__kernel void depth_to_space_x##XN##_y##YN(ARGS(XT, int, YT)) {                 \
    ITEM                                                                        \
    uint h = (uint)p.s1, w = (uint)p.s2, r = (uint)p.s3, yh = h * r, yw = w * r; \
    uint c = id / (yh * yw), rest = id - c * yh * yw;                           \
    uint yi = rest / yw, yj = rest - yi * yw;                                   \
    uint i = yi / r, u = yi - i * r, j = yj / r, v = yj - j * r;                \
    y[id] = (YT)(int)x[((c * r * r + u * r + v) * h + i) * w + j];              \
}

// S4.7 concat: each input copied to its offset in the output (CHW: a flat offset).
// p: count, offset.
#define COPY(XN, YN, XT, YT)                                                    \
__kernel void copy_x##XN##_y##YN(ARGS(XT, int, YT)) {                           \
    ITEM                                                                        \
    y[(uint)p.s1 + id] = (YT)(int)x[id];                                        \
}

// S4.8 y = t[clamp(x - offset, 0, L - 1)]. p: count, offset, L.
#define LOOKUP(XN, YN, XT, YT)                                                  \
__kernel void lookup_x##XN##_y##YN(ARGS(XT, int, YT)) {                         \
    ITEM                                                                        \
    y[id] = (YT)b2[min(max((int)x[id] - p.s1, 0), p.s2 - 1)];                   \
}

// S4.9 sq[k] = (x[k]*x[k]) >> q; n[c] = beta[c] + sum_k gamma[c][k]*sq[k]; y = rnd(x[c]*isqrt(n[c]), s).
// |x| <= 46340, so x*x >= 0 fits int32; every partial sum of n fits int32 (S5).
// p: count, channels, plane, q, s.
#define INVERSE_GDN(XN, YN, XT, YT)                                             \
__kernel void inverse_gdn_x##XN##_y##YN(ARGS(XT, int, YT)) {                    \
    ITEM                                                                        \
    int channels = p.s1, q = p.s3, s = p.s4;                                    \
    uint plane = (uint)p.s2, c = id / plane, pos = id - c * plane;              \
    int n = b2[c];                                                              \
    __global const int *row = b3 + c * (uint)channels;                          \
    for (int k = 0; k < channels; k++) {                                        \
        int xk = (int)x[(uint)k * plane + pos];                                 \
        n += row[k] * ((xk * xk) >> q);                                         \
    }                                                                           \
    y[id] = (YT)rnd((int)x[id] * (int)isqrt_u((uint)n), s);                     \
}

#define WIDTHS(K) K(16, 16, short, short) K(16, 32, short, int) K(32, 16, int, short) K(32, 32, int, int)
WIDTHS(CONV2D)
WIDTHS(CONVT2D)
WIDTHS(REQUANTIZE)
WIDTHS(CLAMP)
WIDTHS(DEPTH_TO_SPACE)
WIDTHS(COPY)
WIDTHS(LOOKUP)
WIDTHS(INVERSE_GDN)

// S4.4 y = a + b, a in x and b in the third argument.
#define ADD(XN, BN, YN, XT, BT, YT)                                             \
__kernel void add_x##XN##_b##BN##_y##YN(ARGS(XT, BT, YT)) {                     \
    ITEM                                                                        \
    y[id] = (YT)((int)x[id] + (int)b2[id]);                                     \
}
ADD(16, 16, 16, short, short, short) ADD(16, 16, 32, short, short, int)
ADD(16, 32, 16, short, int, short)   ADD(16, 32, 32, short, int, int)
ADD(32, 16, 16, int, short, short)   ADD(32, 16, 32, int, short, int)
ADD(32, 32, 16, int, int, short)     ADD(32, 32, 32, int, int, int)
"""#
}
