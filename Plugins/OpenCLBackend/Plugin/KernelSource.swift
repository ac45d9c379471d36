/// The OpenCL C of every kernel but the convolutions and inverse GDN (docs/integer-ops.md §4;
/// those: ConvKernelSource), one program built per device at the first graph_prepare
/// and kept in the disk cache (Runtime/program.c). Each op exists
/// once as a macro and is instantiated per storage width of its operands (X, Y; add also
/// B): `short` for narrow tensors, `int` for wide ones (§2). Every kernel takes the same
/// seven arguments — x, y, four parameter buffers (add's second input in the first) and an
/// int16 of parameters whose s0 is the item count — and ignores the items past the count
/// (the global size is rounded up to the work-group size).
///
/// What the arithmetic relies on (OpenCL C specification, "Built-in Scalar Data Types" and
/// "Operators"): int is 32-bit two's complement; `>>` only of non-negative values (the
/// floor shift of §3 of a negative value is `~(~v >> s)`); shift counts stay in 0…31 (so the
/// spec's masking of the count never applies); `/` and `%` are used on non-negative operands
/// only, where they are exact; conversions to short happen only for values inside the
/// tensor's certified interval, so they are exact; there is no float anywhere. The certificate (§5) keeps
/// every named intermediate in int32, so no signed operation overflows.
enum KernelSource {
    static let text = #"""
// waihost OpenCL kernels, version 3 (docs/integer-ops.md; S = its sections). ASCII only: some compilers refuse other bytes.

// S3 floor(v / 2^s) for 0 <= s <= 31 with no shift of a negative value: for v < 0, ~v = -v - 1 >= 0.
inline int floor_shift(int v, int s) { return v >= 0 ? v >> s : ~(~v >> s); }
// S3 rnd(x, s) = floor((x + 2^(s-1)) / 2^s) for s >= 1, x for s = 0.
inline int rnd(int x, int s) { return s == 0 ? x : floor_shift(x + (1 << (s - 1)), s); }

#define ARGS(XT, BT, YT) __global const XT *x, __global YT *y, __global const BT *b2, __global const int *b3, \
                         __global const int *b4, __global const int *b5, int16 p
#define ITEM uint id = (uint)get_global_id(0); if (id >= (uint)p.s0) return;


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

#define WIDTHS(K) K(16, 16, short, short) K(16, 32, short, int) K(32, 16, int, short) K(32, 32, int, int)
WIDTHS(REQUANTIZE)
WIDTHS(CLAMP)
WIDTHS(DEPTH_TO_SPACE)
WIDTHS(COPY)
WIDTHS(LOOKUP)

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

// S4.10 warp, one item per output element (c, i, j): x the (S*C) x H x W volume (scale
// s of channel c at s*C + c), b2 the 3 x H x W flow (dx, dy, ds, F fractional bits). Each
// coordinate is clamped to the border before it is split (X, Y, Z >= 0, so >> is a plain
// shift and the fraction lies in 0..E-1); the eight weights are exact and sum to E^3; the
// certificate keeps the coordinates, every partial sum of acc and acc + 2^(3F-1) in int32.
// p: count, C, S, H, W, F.
#define WARP(XN, BN, YN, XT, BT, YT)                                            \
__kernel void warp_x##XN##_b##BN##_y##YN(ARGS(XT, BT, YT)) {                    \
    ITEM                                                                        \
    int C = p.s1, S = p.s2, H = p.s3, W = p.s4, F = p.s5, E = 1 << F;           \
    uint hw = (uint)H * (uint)W, c = id / hw, at = id - c * hw;                 \
    int i = (int)(at / (uint)W), j = (int)(at - (uint)i * (uint)W);             \
    int X = min(max(j * E + (int)b2[at], 0), (W - 1) * E);                      \
    int Y = min(max(i * E + (int)b2[hw + at], 0), (H - 1) * E);                 \
    int Z = min(max((int)b2[2u * hw + at], 0), (S - 1) * E);                    \
    int x0 = X >> F, y0 = Y >> F, z0 = Z >> F;                                  \
    int ax = X - x0 * E, ay = Y - y0 * E, az = Z - z0 * E;                      \
    int xs[2] = { x0, min(x0 + 1, W - 1) }, ys[2] = { y0, min(y0 + 1, H - 1) }; \
    int zs[2] = { z0, min(z0 + 1, S - 1) };                                     \
    int wx[2] = { E - ax, ax }, wy[2] = { E - ay, ay }, wz[2] = { E - az, az }; \
    int acc = 0;                                                                \
    for (int r = 0; r < 2; r++)                                                 \
        for (int q = 0; q < 2; q++)                                             \
            for (int t = 0; t < 2; t++) {                                       \
                uint plane = (uint)(zs[r] * C) + c;                             \
                acc += wz[r] * wy[q] * wx[t] * (int)x[(plane * (uint)H + (uint)ys[q]) * (uint)W + (uint)xs[t]]; \
            }                                                                   \
    y[id] = (YT)rnd(acc, 3 * F);                                                \
}
WARP(16, 16, 16, short, short, short) WARP(16, 16, 32, short, short, int)
WARP(16, 32, 16, short, int, short)   WARP(16, 32, 32, short, int, int)
WARP(32, 16, 16, int, short, short)   WARP(32, 16, 32, int, short, int)
WARP(32, 32, 16, int, int, short)     WARP(32, 32, 32, int, int, int)
"""#
}
