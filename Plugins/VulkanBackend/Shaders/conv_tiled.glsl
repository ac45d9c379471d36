// The tiled convolution of docs/gpu-kernels.md, shared by conv2d.comp (TRANSPOSED 0) and
// conv_transpose2d.comp (TRANSPOSED 1). One dispatch computes one phase of a transposed
// convolution (all of a conv2d) for the output-channel groups of one weight window (§2):
// a work group of 64 invocations is a tile of 8 rows × 64 columns × 8 channels, each
// invocation one row, 8 adjacent columns, 8 channels (16 ivec4 accumulators: A columns 0–3,
// B columns 4–7).
// The tap counts of the phase (NU × NV), the input column step of an invocation's columns
// (CS: the conv2d stride, 1 for a phase) and the mode are specialization constants, so the
// tap loops unroll into straight-line code: no per-tap loop, mask or dynamic index (§3).
// Weights come from a uniform buffer window with offsets the same in every invocation
// (§3: the loads drivers turn into one broadcast, or lavapipe into one branch-free gather
// per component), packed two int16 per int32; MODE bit 0 clear reads the same words from
// the storage buffer instead (a window that exceeds the device's uniform-buffer range).
// MODE bit 1: taps or window too large to unroll, loops over p[6] × p[7] taps at run time.
// Accumulation is int32: the certificate bounds every partial sum in any order (§4), and a
// zero input (outside the input) adds 0. Fused requantize (p[12] = 1) is §4.3 on the
// accumulators before the store.
// p: count, cin, h, w, ho, wo, nu, nv, stride, pad, cout, g0, fused, lo, hi, phase.
// Weights (binding 2 / binding 4, from the window's start): [group − g0][a][b][cin] as one
// ivec4 of 8 channels' int16 weights in pairs (channel 2k low, 2k + 1 high half of word k).
// Binding 3: bias, then (fused) multiplier and shift, each padded to a multiple of 8 channels.
layout(constant_id = 0) const int NU = 1;
layout(constant_id = 1) const int NV = 1;
layout(constant_id = 2) const int CS = 1;
layout(constant_id = 3) const int MODE = 1;
// §3: unrolled up to 5 taps per axis and a window row of 21 values.
#define MAXT 5
#define MAXWIN 21
// Quads of a window: MAXWIN values from any of the 4 positions in the first.
#define MAXQ ((MAXWIN + 6) / 4)
#if X == 16
// The input as 64-bit words, four values each (element 4k + i in bits 16i … 16i + 15: the
// devices' little-endian memory; common.glsl enables int64 where XQUADS is defined).
layout(std430, set = 0, binding = 0) readonly buffer XQuads { int64_t xquads[]; };
#endif

layout(std430, set = 0, binding = 2) readonly buffer WBuffer { ivec4 ws[]; };
layout(std430, set = 0, binding = 3) readonly buffer PBuffer { int prm[]; };
// 64 KiB: the most a window spans (the host keeps it within maxUniformBufferRange).
layout(std140, set = 0, binding = 4) uniform WUniform { ivec4 wu[4096]; };

ivec4 weights(int k) {
    ivec4 v;
    if ((MODE & 1) != 0) v = wu[k]; else v = ws[uint(k)];
    return v;
}

// The input value at (row r, column c) of channel plane `plane`, 0 outside the input; the
// load itself always reads inside the buffer.
int inputAt(int planeRow, bool rowIn, int c, int w) {
    bool inside = rowIn && c >= 0 && c < w;
    int v = loadX(uint(inside ? planeRow + c : 0));
    return inside ? v : 0;
}

#define ACCUMULATE(pk, xv, yv) { ivec4 lo_ = (pk << 16) >> 16, hi_ = pk >> 16; \
    A0 += lo_.x * xv; A1 += hi_.x * xv; A2 += lo_.y * xv; A3 += hi_.y * xv; \
    A4 += lo_.z * xv; A5 += hi_.z * xv; A6 += lo_.w * xv; A7 += hi_.w * xv; \
    B0 += lo_.x * yv; B1 += hi_.x * yv; B2 += lo_.y * yv; B3 += hi_.y * yv; \
    B4 += lo_.z * yv; B5 += hi_.z * yv; B6 += lo_.w * yv; B7 += hi_.w * yv; }
#define ACCUMULATORS inout ivec4 A0, inout ivec4 A1, inout ivec4 A2, inout ivec4 A3, \
    inout ivec4 A4, inout ivec4 A5, inout ivec4 A6, inout ivec4 A7, \
    inout ivec4 B0, inout ivec4 B1, inout ivec4 B2, inout ivec4 B3, \
    inout ivec4 B4, inout ivec4 B5, inout ivec4 B6, inout ivec4 B7
#define ALL A0, A1, A2, A3, A4, A5, A6, A7, B0, B1, B2, B3, B4, B5, B6, B7

#if TRANSPOSED
#define TAPCOLUMN(b) (NV - 1 - (b))
#else
#define TAPCOLUMN(b) (b)
#endif
// One row tap of the unrolled kernel: its window of the input row (at most MAXWIN values),
// then its NV column taps. A function, not a macro, to keep the module small; the driver
// inlines it and folds every test on a constant.
#define LOADW(e) if ((e) < win) xw[e] = inputAt(planeRow, rowIn, colBase + (e), w);
#define TAP(b) if ((b) < NV) { ivec4 pk = weights(((gl * NU + a) * NV + (b)) * cin + ci); \
    ivec4 xv = ivec4(xw[TAPCOLUMN(b)], xw[TAPCOLUMN(b) + CS], xw[TAPCOLUMN(b) + 2 * CS], xw[TAPCOLUMN(b) + 3 * CS]); \
    ivec4 yv = ivec4(xw[TAPCOLUMN(b) + 4 * CS], xw[TAPCOLUMN(b) + 5 * CS], xw[TAPCOLUMN(b) + 6 * CS], xw[TAPCOLUMN(b) + 7 * CS]); \
    ACCUMULATE(pk, xv, yv) }
#if X == 16
// §3: narrow inputs read as the 64-bit words holding four of them (XQuads), about a third
// of the loads of the window: gallivm's cost is per load and lane, whatever its width. Which
// quarter starts the window is the same for all invocations of a row (columns 8 apart), so
// each value is two selects between constant-index unpackings (a shift by 0–3 values).
#define LOADQ(k) if ((k) <= (win + 2) / 4) { ivec2 q_ = unpackInt2x32(xquads[clamp(q0 + (k), 0, lastQuad)]); \
    u[4 * (k)] = (q_.x << 16) >> 16; u[4 * (k) + 1] = q_.x >> 16; \
    u[4 * (k) + 2] = (q_.y << 16) >> 16; u[4 * (k) + 3] = q_.y >> 16; }
#define SHIFT2(j) if ((j) <= win) v2[j] = (sh & 2) != 0 ? u[(j) + 2] : u[j];
#define LOADH(e) if ((e) < win) { int c_ = colBase + (e); \
    xw[e] = rowIn && c_ >= 0 && c_ < w ? ((sh & 1) != 0 ? v2[(e) + 1] : v2[e]) : 0; }
#endif
void row(int a, int ci, int cin, int gl, int rowBase, int rowStep, int colBase, int h, int w, ACCUMULATORS) {
    int win = 7 * CS + NV;
    int r = rowBase + rowStep * a;
    bool rowIn = r >= 0 && r < h;
    int planeRow = (ci * h + r) * w;
    int xw[MAXWIN];
#if X == 16
    // Quads q0 … hold the window (from element start, the value sh of the first); a quad
    // outside the buffer (a row or columns outside the input) is read clamped and every
    // value taken from it is outside, so replaced by 0. Buffers are whole quads (graph.c).
    int start = planeRow + colBase, q0 = start >> 2, sh = start & 3, lastQuad = int(xquads.length()) - 1;
    int u[MAXQ * 4], v2[MAXWIN + 1];
    LOADQ(0) LOADQ(1) LOADQ(2) LOADQ(3) LOADQ(4) LOADQ(5)
    SHIFT2(0) SHIFT2(1) SHIFT2(2) SHIFT2(3) SHIFT2(4) SHIFT2(5) SHIFT2(6) SHIFT2(7) SHIFT2(8)
    SHIFT2(9) SHIFT2(10) SHIFT2(11) SHIFT2(12) SHIFT2(13) SHIFT2(14) SHIFT2(15) SHIFT2(16)
    SHIFT2(17) SHIFT2(18) SHIFT2(19) SHIFT2(20) SHIFT2(21)
    LOADH(0) LOADH(1) LOADH(2) LOADH(3) LOADH(4) LOADH(5) LOADH(6) LOADH(7) LOADH(8)
    LOADH(9) LOADH(10) LOADH(11) LOADH(12) LOADH(13) LOADH(14) LOADH(15) LOADH(16)
    LOADH(17) LOADH(18) LOADH(19) LOADH(20)
#else
    LOADW(0) LOADW(1) LOADW(2) LOADW(3) LOADW(4) LOADW(5) LOADW(6) LOADW(7) LOADW(8)
    LOADW(9) LOADW(10) LOADW(11) LOADW(12) LOADW(13) LOADW(14) LOADW(15) LOADW(16)
    LOADW(17) LOADW(18) LOADW(19) LOADW(20)
#endif
    TAP(0) TAP(1) TAP(2) TAP(3) TAP(4)
}
#define ROW(a) if ((a) < NU) row(a, ci, cin, gl, rowBase, rowStep, colBase, h, w, ALL);

// §4.3 on the accumulators when a requantize is fused (p[12] = 1); binding 3 holds the
// multipliers and shifts only then.
ivec4 requantized(ivec4 v, int o, int cpad) {
    if (p[12] != 0) {
        int m = prm[cpad + o], sh = prm[2 * cpad + o];
        v = ivec4(clamp(rnd(v.x * m, sh), p[13], p[14]), clamp(rnd(v.y * m, sh), p[13], p[14]),
                  clamp(rnd(v.z * m, sh), p[13], p[14]), clamp(rnd(v.w * m, sh), p[13], p[14]));
    }
    return v;
}

void main() {
    int cin = p[1], h = p[2], w = p[3], ho = p[4], wo = p[5], nu = p[6], nv = p[7], s = p[8], pad = p[9];
    int cout = p[10], g0 = p[11];
    uint wg = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (wg * 64u >= uint(p[0])) return;      // the whole group: a 2-D dispatch's spare groups
    int lid = int(gl_LocalInvocationID.x), lane = lid & 7, lr = lid >> 3;
#if TRANSPOSED
    // §1: output row i = pr + s·t uses the taps u ≡ (pr + pad) mod s (all operands ≥ 0) at
    // input row t + qr − a; likewise columns.
    int pr = p[15] / s, pc = p[15] - pr * s;
    int u0 = (pr + pad) % s, v0 = (pc + pad) % s;
    int qr = (pr + pad - u0) / s, qc = (pc + pad - v0) / s;
    int rowsP = ho > pr ? (ho - pr + s - 1) / s : 0, colsP = wo > pc ? (wo - pc + s - 1) / s : 0;
#else
    int pr = 0, pc = 0, rowsP = ho, colsP = wo;
#endif
    int tilesC = (colsP + 63) / 64, tiles = ((rowsP + 7) / 8) * tilesC;
    if (tiles == 0) return;
    int gl = int(wg) / tiles, rest = int(wg) - gl * tiles;
    int tr = rest / tilesC, tc = rest - tr * tilesC;
    int g = g0 + gl;
    int t = tr * 8 + lr, q0 = tc * 64 + lane * 8;      // tile-space row, first column
#if TRANSPOSED
    // Tap a reads row t + qr − a; tap b of column k reads column q0 + k + qc − b, i.e.
    // window column k + (nv − 1 − b) from the leftmost column any tap reads.
    int rowBase = t + qr, rowStep = -1, colBase = q0 + qc - (nv - 1), colStep = 1;
#else
    int rowBase = t * s - pad, rowStep = 1, colBase = q0 * s - pad, colStep = s;
#endif
    ivec4 A0 = ivec4(prm[g * 8]), A1 = ivec4(prm[g * 8 + 1]), A2 = ivec4(prm[g * 8 + 2]), A3 = ivec4(prm[g * 8 + 3]);
    ivec4 A4 = ivec4(prm[g * 8 + 4]), A5 = ivec4(prm[g * 8 + 5]), A6 = ivec4(prm[g * 8 + 6]), A7 = ivec4(prm[g * 8 + 7]);
    ivec4 B0 = A0, B1 = A1, B2 = A2, B3 = A3, B4 = A4, B5 = A5, B6 = A6, B7 = A7;
    for (int ci = 0; ci < cin; ci++) {
        if ((MODE & 2) == 0) {
            // Unrolled: NU, NV, CS are constants here (every `if` below folds away); each
            // row's window is loaded once.
            ROW(0) ROW(1) ROW(2) ROW(3) ROW(4)
        } else {
            for (int a = 0; a < nu; a++) {
                int r = rowBase + rowStep * a;
                bool rowIn = r >= 0 && r < h;
                int planeRow = (ci * h + r) * w;
                for (int b = 0; b < nv; b++) {
                    ivec4 pk = weights(((gl * nu + a) * nv + b) * cin + ci);
#if TRANSPOSED
                    int c0 = colBase + nv - 1 - b;
#else
                    int c0 = colBase + b;
#endif
                    ivec4 xv = ivec4(inputAt(planeRow, rowIn, c0, w), inputAt(planeRow, rowIn, c0 + colStep, w),
                                    inputAt(planeRow, rowIn, c0 + 2 * colStep, w), inputAt(planeRow, rowIn, c0 + 3 * colStep, w));
                    int c4 = c0 + 4 * colStep;
                    ivec4 yv = ivec4(inputAt(planeRow, rowIn, c4, w), inputAt(planeRow, rowIn, c4 + colStep, w),
                                    inputAt(planeRow, rowIn, c4 + 2 * colStep, w), inputAt(planeRow, rowIn, c4 + 3 * colStep, w));
                    ACCUMULATE(pk, xv, yv)
                }
            }
        }
    }

    if (t >= rowsP) return;
#if TRANSPOSED
    int i = pr + s * t, js = s;
#else
    int i = t, js = 1;
#endif
    int cpad = ((cout + 7) / 8) * 8, plane = ho * wo, j0 = pc + js * q0;
#define STORE4(v, q, at) { \
        if ((q) < colsP) storeY(at, v.x); \
        if ((q) + 1 < colsP) storeY(at + uint(js), v.y); \
        if ((q) + 2 < colsP) storeY(at + uint(2 * js), v.z); \
        if ((q) + 3 < colsP) storeY(at + uint(3 * js), v.w); }
#define STORE(c) { int o = g * 8 + c; if (o < cout) { \
        ivec4 va = requantized(A##c, o, cpad), vb = requantized(B##c, o, cpad); \
        uint at = uint(o * plane + i * wo + j0); \
        STORE4(va, q0, at) STORE4(vb, q0 + 4, at + uint(4 * js)) } }
    STORE(0) STORE(1) STORE(2) STORE(3) STORE(4) STORE(5) STORE(6) STORE(7)
}
