/// The OpenCL C of every kernel (docs/integer-ops.md §4), one program built per device at
/// the first graph_prepare and kept in the disk cache (Runtime/program.c). Each op exists
/// once as a macro and is instantiated per storage width of its operands (X, Y; add also
/// B): `short` for narrow tensors, `int` for wide ones (§2). Every kernel takes the same
/// seven arguments — x, y, four parameter buffers (add's second input in the first) and an
/// int16 of parameters whose s0 is the item count — and ignores the items past the count
/// (the global size is rounded up to the work-group size).
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

#define ARGS(XT, BT, YT) __global const XT *x, __global YT *y, __global const BT *b2, __global const int *b3, \
                         __global const int *b4, __global const int *b5, int16 p
#define ITEM uint id = (uint)get_global_id(0); if (id >= (uint)p.s0) return;

// S4.3 requantize of one value: clamp(rnd(a*m, s), lo, hi).
inline int requantize1(int a, int m, int s, int lo, int hi) { return min(max(rnd(a * m, s), lo), hi); }

// The epilogue of both convolutions: 4 output columns (valid where col[k] >= 0) of 8
// channels o0..o0+7 (stored where < cout), each requantized first when the host fused the
// requantize node that reads the convolution (p.sb = 1; m in b4, s in b5, [lo, hi] in p.sc, p.sd).
#define CONV_STORE(YT)                                                          \
    int lanes[32];                                                              \
    vstore8(a0, 0, lanes); vstore8(a1, 1, lanes); vstore8(a2, 2, lanes); vstore8(a3, 3, lanes); \
    for (int k = 0; k < 4; k++) {                                               \
        if (col[k] < 0) continue;                                               \
        for (int l = 0; l < 8 && o0 + l < cout; l++) {                          \
            int o = o0 + l, v = lanes[k * 8 + l];                               \
            if (p.sb) v = requantize1(v, b4[o], b5[o], p.sc, p.sd);             \
            y[((uint)o * (uint)ho + (uint)i) * (uint)wo + (uint)col[k]] = (YT)v; \
        }                                                                       \
    }

// The inner loop of both convolutions: every input channel for one tap, 8 output channels
// (one vload8 of the packed weights [group][kh][kw][cin][8]) times 4 input columns idx[k]
// of row xr, masked to 0 where m[k] = 0 (outside the input, or a column past the output).
// Every partial sum fits int32 in any order (S5).
#define CONV_TAP(XT)                                                            \
    __global const int *wt = b2 + ((((uint)g * (uint)kh + (uint)u) * (uint)kw + (uint)v) * (uint)cin) * 8u; \
    for (int c = 0; c < cin; c++) {                                             \
        int8 w8 = vload8(c, wt);                                                \
        __global const XT *xc = xr + (uint)c * plane;                           \
        a0 += w8 * ((int)xc[idx[0]] * m[0]);                                    \
        a1 += w8 * ((int)xc[idx[1]] * m[1]);                                    \
        a2 += w8 * ((int)xc[idx[2]] * m[2]);                                    \
        a3 += w8 * ((int)xc[idx[3]] * m[3]);                                    \
    }

// S4.1 conv2d. One item per group of 8 output channels, output row i and 4 adjacent output
// columns j0..j0+3 (register blocking: each weight vector loaded serves 4 columns, each
// input value 8 channels). p: count, cin, h, w, ho, wo, kh, kw, stride, pad, cout, fused, lo, hi.
#define CONV2D(XN, YN, XT, YT)                                                  \
__kernel void conv2d_x##XN##_y##YN(ARGS(XT, int, YT)) {                         \
    ITEM                                                                        \
    int cin = p.s1, h = p.s2, w = p.s3, ho = p.s4, wo = p.s5, kh = p.s6, kw = p.s7; \
    int stride = p.s8, pad = p.s9, cout = p.sa;                                 \
    uint blocks = (uint)((wo + 3) / 4), perGroup = (uint)ho * blocks;           \
    uint g = id / perGroup, rest = id - g * perGroup;                           \
    int i = (int)(rest / blocks), j0 = (int)(rest - (uint)i * blocks) * 4, o0 = (int)g * 8; \
    uint plane = (uint)(h * w);                                                 \
    int8 a0 = vload8(g, b3), a1 = a0, a2 = a0, a3 = a0;                         \
    int col[4], idx[4], m[4];                                                   \
    for (int k = 0; k < 4; k++) col[k] = j0 + k < wo ? j0 + k : -1;             \
    int r0 = i * stride - pad;                                                  \
    int uLo = max(0, -r0), uHi = min(kh, h - r0);                               \
    for (int u = uLo; u < uHi; u++) {                                           \
        __global const XT *xr = x + (uint)((r0 + u) * w);                       \
        for (int v = 0; v < kw; v++) {                                          \
            int any = 0;                                                        \
            for (int k = 0; k < 4; k++) {                                       \
                int cc = (j0 + k) * stride - pad + v;                           \
                m[k] = col[k] >= 0 && cc >= 0 && cc < w;                        \
                idx[k] = clamp(cc, 0, w - 1);                                   \
                any |= m[k];                                                    \
            }                                                                   \
            if (!any) continue;                                                 \
            CONV_TAP(XT)                                                        \
        }                                                                       \
    }                                                                           \
    CONV_STORE(YT)                                                              \
}

// S4.2 conv_transpose2d, gathered. The output columns j with (j + pad - v) divisible by
// stride share their taps v, so an item takes 4 columns of one phase ph:
// j = ph + stride*(t0 + k), whose input columns are consecutive, b0 + k. Rows: the taps
// u = (i + pad) mod stride + n*stride with a = (i + pad - u)/stride in 0...h-1. Every operand
// of / and % is non-negative (kw*stride is added before dividing and subtracted after).
// p: as conv2d.
#define CONVT2D(XN, YN, XT, YT)                                                 \
__kernel void conv_transpose2d_x##XN##_y##YN(ARGS(XT, int, YT)) {               \
    ITEM                                                                        \
    int cin = p.s1, h = p.s2, w = p.s3, ho = p.s4, wo = p.s5, kh = p.s6, kw = p.s7; \
    int stride = p.s8, pad = p.s9, cout = p.sa;                                 \
    int blocks = ((wo + stride - 1) / stride + 3) / 4;                          \
    uint perRow = (uint)(stride * blocks), perGroup = (uint)ho * perRow;        \
    uint g = id / perGroup, rest = id - g * perGroup;                           \
    int i = (int)(rest / perRow);                                               \
    rest -= (uint)i * perRow;                                                   \
    int ph = (int)(rest / (uint)blocks), t0 = (int)(rest - (uint)ph * (uint)blocks) * 4, o0 = (int)g * 8; \
    uint plane = (uint)(h * w);                                                 \
    int8 a0 = vload8(g, b3), a1 = a0, a2 = a0, a3 = a0;                         \
    int col[4], idx[4], m[4];                                                   \
    for (int k = 0; k < 4; k++) { int j = ph + stride * (t0 + k); col[k] = j < wo ? j : -1; } \
    int ti = i + pad;                                                           \
    int uLo = ti % stride, firstU = ti - (h - 1) * stride;                      \
    if (firstU > uLo) uLo += (firstU - uLo + stride - 1) / stride * stride;     \
    int uHi = min(kh - 1, ti);                                                  \
    for (int u = uLo; u <= uHi; u += stride) {                                  \
        __global const XT *xr = x + (uint)((ti - u) / stride * w);              \
        for (int v = (ph + pad) % stride; v < kw; v += stride) {                \
            int b0 = t0 + (ph + pad - v + kw * stride) / stride - kw, any = 0;  \
            for (int k = 0; k < 4; k++) {                                       \
                m[k] = col[k] >= 0 && b0 + k >= 0 && b0 + k < w;                \
                idx[k] = clamp(b0 + k, 0, w - 1);                               \
                any |= m[k];                                                    \
            }                                                                   \
            if (!any) continue;                                                 \
            CONV_TAP(XT)                                                        \
        }                                                                       \
    }                                                                           \
    CONV_STORE(YT)                                                              \
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
// n is a 1x1 convolution of the squares: one item per group of 8 channels and 4 adjacent
// positions, gamma packed by the host as [group][k][8] (zero rows past C), beta as [group][8].
// |x| <= 46340, so x*x >= 0 fits int32; every partial sum of n fits int32 (S5).
// p: count, channels, plane, q, s.
#define INVERSE_GDN(XN, YN, XT, YT)                                             \
__kernel void inverse_gdn_x##XN##_y##YN(ARGS(XT, int, YT)) {                    \
    ITEM                                                                        \
    int channels = p.s1, q = p.s3, s = p.s4;                                    \
    uint plane = (uint)p.s2, blocks = (plane + 3u) / 4u, g = id / blocks;       \
    uint pos0 = (id - g * blocks) * 4u;                                         \
    int o0 = (int)g * 8;                                                        \
    int8 n0 = vload8(g, b2), n1 = n0, n2 = n0, n3 = n0;                         \
    uint idx[4];                                                                \
    for (int k = 0; k < 4; k++) idx[k] = min(pos0 + (uint)k, plane - 1u);       \
    __global const int *gt = b3 + g * (uint)channels * 8u;                      \
    for (int k = 0; k < channels; k++) {                                        \
        int8 g8 = vload8(k, gt);                                                \
        __global const XT *xc = x + (uint)k * plane;                            \
        int x0 = (int)xc[idx[0]], x1 = (int)xc[idx[1]], x2 = (int)xc[idx[2]], x3 = (int)xc[idx[3]]; \
        n0 += g8 * ((x0 * x0) >> q);                                            \
        n1 += g8 * ((x1 * x1) >> q);                                            \
        n2 += g8 * ((x2 * x2) >> q);                                            \
        n3 += g8 * ((x3 * x3) >> q);                                            \
    }                                                                           \
    int lanes[32];                                                              \
    vstore8(n0, 0, lanes); vstore8(n1, 1, lanes); vstore8(n2, 2, lanes); vstore8(n3, 3, lanes); \
    for (int k = 0; k < 4 && pos0 + (uint)k < plane; k++) {                     \
        for (int l = 0; l < 8 && o0 + l < channels; l++) {                      \
            uint at = (uint)(o0 + l) * plane + pos0 + (uint)k;                  \
            y[at] = (YT)rnd((int)x[at] * (int)isqrt_u((uint)lanes[k * 8 + l]), s); \
        }                                                                       \
    }                                                                           \
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
