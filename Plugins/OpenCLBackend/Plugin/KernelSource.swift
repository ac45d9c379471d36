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

// S4.1 conv2d (T = 0) and S4.2 conv_transpose2d (T = 1), tiled as docs/gpu-kernels.md says
// (the Vulkan backend's conv_tiled.glsl is the same design). A work group of 64 items (64/cb
// tile rows x cb column blocks, cb = p.sf in 4, 8, 16, the host's choice for the shape)
// computes 64/cb rows x 4*cb columns x 8 output channels; an item 4 adjacent columns x 8
// channels (int8 accumulators a0..a3). A transposed convolution is split
// into its stride^2 phases: all outputs of a phase use the same taps, tile coordinates are
// phase coordinates, every operand of / and % is non-negative. Input channels go through in
// chunks of p.se channels whose input window is staged in local memory (rows padded to whole
// int4s plus one spare), zero outside the input (D = 1: read from x instead, for windows too
// large to stage); where an item's 4 columns and all their column taps lie in 8 consecutive
// window columns it loads them once per row with one vload8. int32 accumulation: the
// certificate bounds every partial sum in any order (S5); a zero tap adds 0. Weights (b2):
// [group][kh][kw][cin][8]; bias (b3) padded to whole groups; the fused requantize (p.sb = 1)
// applies m (b4), s (b5), [lo, hi] = [p.sc, p.sd] to the accumulators before the store.
// p: count, cin, h, w, ho, wo, kh, kw, stride, pad, cout, fused, lo, hi, chunk, cb.
#define TILE_CAPACITY 4096
#define CONV_TILED(NAME, XN, YN, XT, YT, T, D, LOCAL)                           \
__kernel __attribute__((reqd_work_group_size(64, 1, 1)))                        \
void NAME##_x##XN##_y##YN(ARGS(XT, int, YT)) {                                  \
    __local int tile[LOCAL];                                                    \
    int cin = p.s1, h = p.s2, w = p.s3, ho = p.s4, wo = p.s5, kh = p.s6, kw = p.s7; \
    int s = p.s8, pad = p.s9, cout = p.sa, chunk = p.se;                        \
    int blocks = p.sf, rows = 64 / blocks, cols = 4 * blocks;                   \
    int groups = (cout + 7) / 8;                                                \
    int lid = (int)get_local_id(0);                                             \
    uint wg = (uint)get_group_id(0);                                            \
    int phases = T ? s * s : 1, hp = T ? (ho + s - 1) / s : ho, wp = T ? (wo + s - 1) / s : wo; \
    uint tilesR = (uint)((hp + rows - 1) / rows), tilesC = (uint)((wp + cols - 1) / cols); \
    uint tc = wg % tilesC, rest = wg / tilesC;                                  \
    uint tr = rest % tilesR; rest /= tilesR;                                    \
    int phase = (int)(rest % (uint)phases), g = (int)(rest / (uint)phases);     \
    if (g >= groups) return;                                                    \
    int lr = lid / blocks, cb = lid - lr * blocks, t = (int)tr * rows + lr, q0 = (int)tc * cols + cb * 4; \
    int pr = phase / s, pc = phase - pr * s;                                    \
    int u0, v0, nu, nv, rowsP, colsP, r0, c0, wh, ww, rs, us;                   \
    if (T) {                                                                    \
        u0 = (pr + pad) % s; v0 = (pc + pad) % s;                               \
        nu = kh > u0 ? (kh - u0 + s - 1) / s : 0; nv = kw > v0 ? (kw - v0 + s - 1) / s : 0; \
        rowsP = ho > pr ? (ho - pr + s - 1) / s : 0; colsP = wo > pc ? (wo - pc + s - 1) / s : 0; \
        r0 = (int)tr * rows + (pr + pad - u0) / s - (nu - 1);                   \
        c0 = (int)tc * cols + (pc + pad - v0) / s - (nv - 1);                   \
        wh = rows - 1 + nu; ww = cols - 1 + nv; rs = 1; us = s;                 \
    } else {                                                                    \
        u0 = 0; v0 = 0; nu = kh; nv = kw; rowsP = ho; colsP = wo;               \
        r0 = (int)tr * rows * s - pad; c0 = (int)tc * cols * s - pad;           \
        wh = (rows - 1) * s + kh; ww = (cols - 1) * s + kw; rs = s; us = 1;     \
    }                                                                           \
    int ww4 = (ww + 3) / 4 + 1, area4 = wh * ww4;                               \
    int fast = !D && rs == 1 && nv <= 5;                                        \
    int8 a0 = vload8(g, b3), a1 = a0, a2 = a0, a3 = a0;                         \
    for (int cc = 0; cc < cin; cc += chunk) {                                   \
        int n = min(chunk, cin - cc);                                           \
        if (!D) {                                                               \
            barrier(CLK_LOCAL_MEM_FENCE);                                       \
            for (int e = lid; e < n * area4; e += 64) {                         \
                int ch = e / area4, rem = e - ch * area4, rr = rem / ww4;       \
                int gr = r0 + rr, gc = c0 + (rem - rr * ww4) * 4;               \
                int4 v = (int4)(0);                                             \
                if (gr >= 0 && gr < h) {                                        \
                    __global const XT *xr = x + ((uint)(cc + ch) * (uint)h + (uint)gr) * (uint)w; \
                    if (gc >= 0 && gc < w) v.s0 = (int)xr[gc];                  \
                    if (gc + 1 >= 0 && gc + 1 < w) v.s1 = (int)xr[gc + 1];      \
                    if (gc + 2 >= 0 && gc + 2 < w) v.s2 = (int)xr[gc + 2];      \
                    if (gc + 3 >= 0 && gc + 3 < w) v.s3 = (int)xr[gc + 3];      \
                }                                                               \
                vstore4(v, e, tile);                                            \
            }                                                                   \
            barrier(CLK_LOCAL_MEM_FENCE);                                       \
        }                                                                       \
        for (int ch = 0; ch < n; ch++) {                                        \
            for (int a = 0; a < nu; a++) {                                      \
                int wr = T ? lr + (nu - 1 - a) : lr * rs + a, u = u0 + us * a;  \
                __global const int *wt = b2 + ((((uint)g * (uint)kh + (uint)u) * (uint)kw + (uint)v0) * (uint)cin + (uint)(cc + ch)) * 8u; \
                uint wstep = (uint)(us * cin) * 8u;                             \
                if (fast) {                                                     \
                    int at = ((ch * wh + wr) * ww4 + cb) * 4;                   \
                    int8 xs = vload8(0, tile + at);                             \
                    int xv[8]; vstore8(xs, 0, xv);                              \
                    for (int b = 0; b < nv; b++) {                              \
                        int o = T ? nv - 1 - b : b;                             \
                        int8 w8 = vload8(0, wt + (uint)b * wstep);              \
                        a0 += w8 * xv[o]; a1 += w8 * xv[o + 1]; a2 += w8 * xv[o + 2]; a3 += w8 * xv[o + 3]; \
                    }                                                           \
                    continue;                                                   \
                }                                                               \
                for (int b = 0; b < nv; b++) {                                  \
                    int wc = T ? cb * 4 + (nv - 1 - b) : cb * 4 * rs + b;       \
                    int8 w8 = vload8(0, wt + (uint)b * wstep);                  \
                    int x0, x1, x2, x3;                                         \
                    if (!D) {                                                   \
                        int base = (ch * wh + wr) * ww4 * 4 + wc;               \
                        x0 = tile[base]; x1 = tile[base + rs]; x2 = tile[base + 2 * rs]; x3 = tile[base + 3 * rs]; \
                    } else {                                                    \
                        int gr = r0 + wr, gc = c0 + wc;                         \
                        __global const XT *xr = x + ((uint)(cc + ch) * (uint)h + (uint)clamp(gr, 0, h - 1)) * (uint)w; \
                        int inside = gr >= 0 && gr < h;                         \
                        x0 = inside && gc >= 0 && gc < w ? (int)xr[gc] : 0;     \
                        x1 = inside && gc + rs >= 0 && gc + rs < w ? (int)xr[gc + rs] : 0; \
                        x2 = inside && gc + 2 * rs >= 0 && gc + 2 * rs < w ? (int)xr[gc + 2 * rs] : 0; \
                        x3 = inside && gc + 3 * rs >= 0 && gc + 3 * rs < w ? (int)xr[gc + 3 * rs] : 0; \
                    }                                                           \
                    a0 += w8 * x0; a1 += w8 * x1; a2 += w8 * x2; a3 += w8 * x3; \
                }                                                               \
            }                                                                   \
        }                                                                       \
    }                                                                           \
    if (t >= rowsP) return;                                                     \
    int i = T ? pr + s * t : t;                                                 \
    int lanes[32];                                                              \
    vstore8(a0, 0, lanes); vstore8(a1, 1, lanes); vstore8(a2, 2, lanes); vstore8(a3, 3, lanes); \
    for (int k = 0; k < 4 && q0 + k < colsP; k++) {                             \
        int j = T ? pc + s * (q0 + k) : q0 + k;                                 \
        for (int l = 0; l < 8 && g * 8 + l < cout; l++) {                       \
            int o = g * 8 + l, v = lanes[k * 8 + l];                            \
            if (p.sb) v = requantize1(v, b4[o], b5[o], p.sc, p.sd);             \
            y[((uint)o * (uint)ho + (uint)i) * (uint)wo + (uint)j] = (YT)v;     \
        }                                                                       \
    }                                                                           \
}
#define CONV2D(XN, YN, XT, YT) CONV_TILED(conv2d_d0, XN, YN, XT, YT, 0, 0, TILE_CAPACITY) \
                               CONV_TILED(conv2d_d1, XN, YN, XT, YT, 0, 1, 1)
#define CONVT2D(XN, YN, XT, YT) CONV_TILED(conv_transpose2d, XN, YN, XT, YT, 1, 0, TILE_CAPACITY)

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
