/// The OpenCL C of the convolutions and inverse GDN (docs/gpu-kernels.md §2, §5, §8): the design of the Vulkan
/// backend's conv_tiled.glsl, one program per set of compile-time constants, passed as `-D`
/// build options (OpenCL's specialization constants) and part of the program cache's key:
///
/// - `TRANSPOSED` 0 (conv2d) or 1 (one phase of conv_transpose2d, §1);
/// - `NU`, `NV` (the phase's taps), `CS` (input column step of an item's 8 columns) and
///   `UNROLLED` 1: the tap loops are straight-line code; `UNROLLED` 0: taps at run time
///   (p.s6, p.s7, p.s8), one program whatever the taps;
/// - `XT`, `YT`: short or int, the storage of x and y (docs/integer-ops.md §2);
/// - `WSPACE`: `__constant` where the window's weights fit the device's
///   CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, else `__global`.
/// - `GDN`: the channel count of an inverse GDN (§8); the program then holds
///   `inverse_gdn_tiled` instead of `conv_tiled`.
///
/// What the arithmetic relies on: int is 32-bit two's complement; every product and partial
/// sum is inside int32 by the certificate (§5 of docs/integer-ops.md); `>>` only of
/// non-negative values (a negative value's floor shift is `~(~v >> s)`, `~v` being
/// non-negative); `/` and `%` of non-negative operands only; `convert_int8` of short8 is
/// exact; a store as short only of values inside the tensor's certified interval.
enum ConvKernelSource {
    static let kernel = "conv_tiled"
    /// Inverse GDN on the same design (docs/gpu-kernels.md §8), built with `-D GDN=channels`.
    static let gdnKernel = "inverse_gdn_tiled"

    static let text = #"""
// waihost OpenCL convolution and inverse GDN, version 3 (docs/gpu-kernels.md S2, S5, S8; docs/integer-ops.md S3, S4.1-4.3). ASCII only.

// S3 floor(v / 2^s) for 0 <= s <= 31 with no shift of a negative value: for v < 0, ~v = -v - 1 >= 0.
inline int floor_shift(int v, int s) { return v >= 0 ? v >> s : ~(~v >> s); }
// S3 rnd(x, s) = floor((x + 2^(s-1)) / 2^s) for s >= 1, x for s = 0.
inline int rnd(int x, int s) { return s == 0 ? x : floor_shift(x + (1 << (s - 1)), s); }

#ifdef GDN
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

// S4.9 (docs/gpu-kernels.md S8) sq[k] = (x[k]*x[k]) >> q; n[c] = beta[c] + sum_k gamma[c][k]*sq[k];
// y[c] = rnd(x[c]*isqrt(n[c]), s). n is a 1x1 convolution of the squares on the convolutions'
// design: one dispatch per weight window of 8-channel groups, a work group of 64 items a tile
// of 512 positions x 8 channels, item l the 8 positions from tile*512 + 8l and all 8
// channels (n0..n7: one int8 of channels per position), so each gamma load serves 8 positions
// and each square 8 channels. GDN (the channel count) is a constant: the loop's trip count.
// |x| <= 46340, so x*x >= 0 fits int32 and its shift is exact; every partial sum of n fits
// int32 (S5). Positions past the plane read the last one and store nothing; no barriers.
// p: count, channels, plane, q, s, g0. gt: the window, [group - g0][k] int8; beta: int, padded.
#define SQ(e) ((int)xk[idx##e] * (int)xk[idx##e]) >> q
__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void inverse_gdn_tiled(__global const XT *x, __global YT *y, WSPACE const int8 *gt, __global const int *beta,
                       __global const int *unused4, __global const int *unused5, int16 p) {
    int plane = p.s2, q = p.s3, s = p.s4, g0 = p.s5;
    uint wg = (uint)get_group_id(0);
    if (wg * 64u >= (uint)p.s0) return;
    int tiles = (plane + 511) / 512;
    int gl = (int)wg / tiles, tile = (int)wg - gl * tiles;
    int g = g0 + gl;
    int pos0 = tile * 512 + 8 * (int)get_local_id(0), last = plane - 1;
    uint idx0 = (uint)min(pos0, last), idx1 = (uint)min(pos0 + 1, last), idx2 = (uint)min(pos0 + 2, last);
    uint idx3 = (uint)min(pos0 + 3, last), idx4 = (uint)min(pos0 + 4, last), idx5 = (uint)min(pos0 + 5, last);
    uint idx6 = (uint)min(pos0 + 6, last), idx7 = (uint)min(pos0 + 7, last);
    int8 n0 = vload8(g, beta), n1 = n0, n2 = n0, n3 = n0, n4 = n0, n5 = n0, n6 = n0, n7 = n0;
    for (int k = 0; k < GDN; k++) {
        __global const XT *xk = x + (uint)k * (uint)plane;
        int8 gv = gt[gl * GDN + k];
        n0 += gv * (SQ(0)); n1 += gv * (SQ(1)); n2 += gv * (SQ(2)); n3 += gv * (SQ(3));
        n4 += gv * (SQ(4)); n5 += gv * (SQ(5)); n6 += gv * (SQ(6)); n7 += gv * (SQ(7));
    }
    int lanes[64];
    vstore8(n0, 0, lanes); vstore8(n1, 1, lanes); vstore8(n2, 2, lanes); vstore8(n3, 3, lanes);
    vstore8(n4, 4, lanes); vstore8(n5, 5, lanes); vstore8(n6, 6, lanes); vstore8(n7, 7, lanes);
    for (int l = 0; l < 8 && g * 8 + l < GDN; l++) {
        uint row = (uint)(g * 8 + l) * (uint)plane;
        for (int e = 0; e < 8 && pos0 + e < plane; e++) {
            uint at = row + (uint)(pos0 + e);
            y[at] = (YT)rnd((int)x[at] * (int)isqrt_u((uint)lanes[e * 8 + l]), s);
        }
    }
}
#else
#define MAXWIN 21
#if UNROLLED
#define TNU NU
#define TNV NV
#define TCS CS
#else
#define TNU nu
#define TNV nv
#define TCS cs
#endif
#if TRANSPOSED
#define TAPCOLUMN(b) (TNV - 1 - (b))
#else
#define TAPCOLUMN(b) (b)
#endif

// The input value at column c of the row starting at planeRow, 0 outside the input; the load
// itself always reads inside the buffer (index 0 where outside).
inline int input_at(__global const XT *x, int planeRow, int rowIn, int c, int w) {
    int inside = rowIn && c >= 0 && c < w;
    int v = (int)x[inside ? (uint)(planeRow + c) : 0u];
    return inside ? v : 0;
}

#define MAC(k, xv) acc##k += wv * (xv);

// One work group of 64 items: a tile of 8 rows x 64 columns (phase coordinates) x 8 output
// channels of one phase and one weight window; item (row lr, lane) one row, columns
// 8 lane .. 8 lane + 7, all 8 channels (8 int8 accumulators acc0..acc7, one per column), so
// each weight load (a short8: 8 channels of one tap and input channel) serves 8 columns.
// Items of a partial tile compute on zeros and store nothing; no barriers.
// p: count, cin, h, w, ho, wo, nu, nv, stride, pad, cout, g0, fused, lo, hi, phase.
// wt: the window, [group - g0][a][b][cin] short8; bias (padded to 8 channels), m, s: int.
__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void conv_tiled(__global const XT *x, __global YT *y, WSPACE const short8 *wt, __global const int *bias,
                __global const int *mul, __global const int *shf, int16 p) {
    int cin = p.s1, h = p.s2, w = p.s3, ho = p.s4, wo = p.s5, nu = p.s6, nv = p.s7, s = p.s8, pad = p.s9;
    int cout = p.sa, g0 = p.sb;
    uint wg = (uint)get_group_id(0);
    if (wg * 64u >= (uint)p.s0) return;
    int lid = (int)get_local_id(0), lane = lid & 7, lr = lid >> 3;
#if TRANSPOSED
    // S1: output row i = pr + s t uses the taps u = u0 + s a at input row t + qr - a (all
    // operands of / and % non-negative); likewise columns.
    int pr = p.sf / s, pc = p.sf - pr * s;
    int u0 = (pr + pad) % s, v0 = (pc + pad) % s;
    int qr = (pr + pad - u0) / s, qc = (pc + pad - v0) / s;
    int rowsP = ho > pr ? (ho - pr + s - 1) / s : 0, colsP = wo > pc ? (wo - pc + s - 1) / s : 0;
    int cs = 1;
#else
    int pr = 0, pc = 0, rowsP = ho, colsP = wo;
    int cs = s;
#endif
    int tilesC = (colsP + 63) / 64, tiles = ((rowsP + 7) / 8) * tilesC;
    if (tiles == 0) return;
    int gl = (int)wg / tiles, rest = (int)wg - gl * tiles;
    int tr = rest / tilesC, tc = rest - tr * tilesC;
    int g = g0 + gl;
    int t = tr * 8 + lr, q0 = tc * 64 + lane * 8;
#if TRANSPOSED
    // Tap a reads row t + qr - a; tap b of column k reads window column k + (nv - 1 - b)
    // from the leftmost column any tap reads.
    int rowBase = t + qr, rowStep = -1, colBase = q0 + qc - (TNV - 1);
#else
    int rowBase = t * s - pad, rowStep = 1, colBase = q0 * s - pad;
#endif
    int8 acc0 = vload8(g, bias), acc1 = acc0, acc2 = acc0, acc3 = acc0, acc4 = acc0, acc5 = acc0, acc6 = acc0, acc7 = acc0;
    for (int ci = 0; ci < cin; ci++) {
#if UNROLLED
        #pragma unroll
#endif
        for (int a = 0; a < TNU; a++) {
            int r = rowBase + rowStep * a;
            int rowIn = r >= 0 && r < h;
            int planeRow = (ci * h + r) * w;
#if UNROLLED
            // The row's window once (7 CS + NV values), then NV column taps of 64 MACs each;
            // NU, NV, CS are constants, so every loop here unrolls.
            int xw[MAXWIN];
            #pragma unroll
            for (int e = 0; e < 7 * CS + NV; e++) xw[e] = input_at(x, planeRow, rowIn, colBase + e, w);
            #pragma unroll
            for (int b = 0; b < NV; b++) {
                int8 wv = convert_int8(wt[((gl * NU + a) * NV + b) * cin + ci]);
                int o = TAPCOLUMN(b);
                MAC(0, xw[o]) MAC(1, xw[o + CS]) MAC(2, xw[o + 2 * CS]) MAC(3, xw[o + 3 * CS])
                MAC(4, xw[o + 4 * CS]) MAC(5, xw[o + 5 * CS]) MAC(6, xw[o + 6 * CS]) MAC(7, xw[o + 7 * CS])
            }
#else
            for (int b = 0; b < nv; b++) {
                int8 wv = convert_int8(wt[((gl * nu + a) * nv + b) * cin + ci]);
                int c0 = colBase + TAPCOLUMN(b);
                MAC(0, input_at(x, planeRow, rowIn, c0, w)) MAC(1, input_at(x, planeRow, rowIn, c0 + cs, w))
                MAC(2, input_at(x, planeRow, rowIn, c0 + 2 * cs, w)) MAC(3, input_at(x, planeRow, rowIn, c0 + 3 * cs, w))
                MAC(4, input_at(x, planeRow, rowIn, c0 + 4 * cs, w)) MAC(5, input_at(x, planeRow, rowIn, c0 + 5 * cs, w))
                MAC(6, input_at(x, planeRow, rowIn, c0 + 6 * cs, w)) MAC(7, input_at(x, planeRow, rowIn, c0 + 7 * cs, w))
            }
#endif
        }
    }

    if (t >= rowsP) return;
#if TRANSPOSED
    int i = pr + s * t, js = s;
#else
    int i = t, js = 1;
#endif
    int lanes[64];
    vstore8(acc0, 0, lanes); vstore8(acc1, 1, lanes); vstore8(acc2, 2, lanes); vstore8(acc3, 3, lanes);
    vstore8(acc4, 4, lanes); vstore8(acc5, 5, lanes); vstore8(acc6, 6, lanes); vstore8(acc7, 7, lanes);
    for (int l = 0; l < 8 && g * 8 + l < cout; l++) {
        int o = g * 8 + l;
        uint row = ((uint)o * (uint)ho + (uint)i) * (uint)wo;
        for (int k = 0; k < 8 && q0 + k < colsP; k++) {
            int v = lanes[k * 8 + l];
            // S4.3 on the accumulator when a requantize is fused (p.sc = 1).
            if (p.sc) v = min(max(rnd(v * mul[o], shf[o]), p.sd), p.se);
            y[row + (uint)(pc + js * (q0 + k))] = (YT)v;
        }
    }
}
#endif
"""#
}
