// The tiled convolution of docs/gpu-kernels.md, shared by conv2d.comp (TRANSPOSED 0) and
// conv_transpose2d.comp (TRANSPOSED 1); the OpenCL backend's CONV_TILED is the same design.
// A work group of 64 invocations (64/cb tile rows × cb column blocks, cb = p[15] in 4, 8, 16,
// the host's choice for the output's shape) computes a tile of 64/cb rows × 4·cb columns × 8
// output channels; each invocation 4 adjacent columns × 8 channels in 8 ivec4 accumulators. A transposed convolution is split into its stride² phases (every output of a
// phase uses the same taps, so a work group never diverges); tile coordinates are phase
// coordinates there. Input channels go through in chunks of p[11] channels whose input window
// is staged in shared memory, zero outside the input, so borders need no test in the inner
// loop (DIRECT 1: read from the input buffer instead, for windows too large to stage).
// Accumulation is int32: the certificate bounds every partial sum in any order (§5), and a
// zero tap adds 0. Fused requantize (p[12] = 1) is §4.3 on the accumulators before the store.
// p: count, cin, h, w, ho, wo, kh, kw, stride, pad, cout, chunk, fused, lo, hi, cb.
// Weights (binding 2): [group][kh][kw][cin][8] as ivec4 pairs; binding 3: bias, then (fused)
// multiplier and shift, each padded with zeros to a multiple of 8 channels.
layout(std430, set = 0, binding = 2) readonly buffer WBuffer { ivec4 w4[]; };
layout(std430, set = 0, binding = 3) readonly buffer PBuffer { int prm[]; };

#define TILE_CAPACITY 4096
#if DIRECT == 0
// Rows of the window padded to whole ivec4s, so an invocation's 4 columns (and the taps
// beside them) come in two vector loads.
shared ivec4 tile[TILE_CAPACITY / 4];
int tileAt(int k) { return tile[k >> 2][k & 3]; }
#endif

void main() {
    int cin = p[1], h = p[2], w = p[3], ho = p[4], wo = p[5], kh = p[6], kw = p[7], s = p[8], pad = p[9];
    int cout = p[10], chunk = p[11], blocks = p[15], rows = 64 / blocks, cols = 4 * blocks;
    int groups = (cout + 7) / 8, cpad = groups * 8;
    uint lid = gl_LocalInvocationID.x;
    uint wg = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
#if TRANSPOSED
    int phases = s * s, hp = (ho + s - 1) / s, wp = (wo + s - 1) / s;
#else
    int phases = 1, hp = ho, wp = wo;   // one phase: tile space is output space
#endif
    uint tilesR = uint((hp + rows - 1) / rows), tilesC = uint((wp + cols - 1) / cols);
    uint tc = wg % tilesC, rest = wg / tilesC;
    uint tr = rest % tilesR; rest /= tilesR;
    uint phase = rest % uint(phases);
    int g = int(rest / uint(phases));
    if (g >= groups) return;                 // the whole group: a 2-D dispatch's spare groups
    int lr = int(lid) / blocks, cb = int(lid) - lr * blocks;
    int t = int(tr) * rows + lr, q0 = int(tc) * cols + cb * 4;   // tile-space row, first column

    // Rows: taps n < nu at weight row u = u0 + us·n, read at window row lr·rs + ro(n).
#if TRANSPOSED
    int pr = int(phase) / s, pc = int(phase) - pr * s;
    // Output row i = pr + s·t uses the taps u ≡ (pr + pad) mod s (all operands ≥ 0) at
    // input row a = t + qr − n; likewise columns.
    int u0 = (pr + pad) % s, v0 = (pc + pad) % s;
    int nu = kh > u0 ? (kh - u0 + s - 1) / s : 0, nv = kw > v0 ? (kw - v0 + s - 1) / s : 0;
    int qr = (pr + pad - u0) / s, qc = (pc + pad - v0) / s;
    int rowsP = ho > pr ? (ho - pr + s - 1) / s : 0, colsP = wo > pc ? (wo - pc + s - 1) / s : 0;
    int r0 = int(tr) * rows + qr - (nu - 1), c0 = int(tc) * cols + qc - (nv - 1);
    int wh = rows - 1 + nu, ww = cols - 1 + nv, rs = 1, cs = 1, us = s;
#else
    int u0 = 0, v0 = 0, nu = kh, nv = kw, rowsP = ho, colsP = wo;
    int r0 = int(tr) * rows * s - pad, c0 = int(tc) * cols * s - pad;
    int wh = (rows - 1) * s + kh, ww = (cols - 1) * s + kw, rs = s, cs = s, us = 1;
#endif
    // One spare ivec4 per row: the fast path's second load never leaves the row.
    int ww4 = (ww + 3) / 4 + 1, area4 = wh * ww4;
    ivec4 lo0 = ivec4(prm[g * 8], prm[g * 8 + 1], prm[g * 8 + 2], prm[g * 8 + 3]);
    ivec4 hi0 = ivec4(prm[g * 8 + 4], prm[g * 8 + 5], prm[g * 8 + 6], prm[g * 8 + 7]);
    ivec4 lo1 = lo0, lo2 = lo0, lo3 = lo0, hi1 = hi0, hi2 = hi0, hi3 = hi0;
    // §3 fast path: the 4 columns and every tap's shift of them lie in 8 consecutive window
    // columns (column step 1, at most 5 column taps): two ivec4 loads per row and channel.
    bool rowInRegisters = DIRECT == 0 && cs == 1 && nv <= 5;

    for (int cc = 0; cc < cin; cc += chunk) {
        int n = min(chunk, cin - cc);
#if DIRECT == 0
        barrier();                           // the previous chunk's reads are done
        for (int e = int(lid); e < n * area4; e += 64) {
            int ch = e / area4, rem = e - ch * area4;
            int rr = rem / ww4, gc = c0 + (rem - rr * ww4) * 4, gr = r0 + rr;
            ivec4 v = ivec4(0);
            if (gr >= 0 && gr < h) {
                uint at = uint(((cc + ch) * h + gr) * w);
                for (int k = 0; k < 4; k++) if (gc + k >= 0 && gc + k < w) v[k] = loadX(at + uint(gc + k));
            }
            tile[e] = v;
        }
        barrier();
#endif
        for (int ch = 0; ch < n; ch++) {
            for (int a = 0; a < nu; a++) {
#if TRANSPOSED
                int wr = lr + (nu - 1 - a);
#else
                int wr = lr * rs + a;
#endif
                int u = u0 + us * a;
                uint k0 = uint((((g * kh + u) * kw + v0) * cin + cc + ch) * 2), kstep = uint(us * cin * 2);
#if DIRECT == 0
                if (rowInRegisters) {
                    int at = (ch * wh + wr) * ww4 + cb;
                    ivec4 xa = tile[at], xb = tile[at + 1];
                    for (int b = 0; b < nv; b++) {
#if TRANSPOSED
                        int o = nv - 1 - b;
#else
                        int o = b;
#endif
                        ivec4 xv = o == 0 ? xa : o == 1 ? ivec4(xa.yzw, xb.x) : o == 2 ? ivec4(xa.zw, xb.xy)
                                 : o == 3 ? ivec4(xa.w, xb.xyz) : xb;
                        uint k = k0 + uint(b) * kstep;
                        ivec4 wl = w4[k], wu = w4[k + 1u];
                        lo0 += wl * xv.x; hi0 += wu * xv.x;
                        lo1 += wl * xv.y; hi1 += wu * xv.y;
                        lo2 += wl * xv.z; hi2 += wu * xv.z;
                        lo3 += wl * xv.w; hi3 += wu * xv.w;
                    }
                    continue;
                }
#endif
                for (int b = 0; b < nv; b++) {
#if TRANSPOSED
                    int wc = cb * 4 + (nv - 1 - b);
#else
                    int wc = cb * 4 * cs + b;
#endif
                    uint k = k0 + uint(b) * kstep;
                    ivec4 wl = w4[k], wu = w4[k + 1u];
#if DIRECT == 0
                    int base = (ch * wh + wr) * ww4 * 4 + wc;
                    int x0 = tileAt(base), x1 = tileAt(base + cs), x2 = tileAt(base + 2 * cs), x3 = tileAt(base + 3 * cs);
#else
                    int gr = r0 + wr, gc = c0 + wc, xr = ((cc + ch) * h + gr) * w;
                    bool rowIn = gr >= 0 && gr < h;
                    int x0 = rowIn && gc >= 0 && gc < w ? loadX(uint(xr + gc)) : 0;
                    int x1 = rowIn && gc + cs >= 0 && gc + cs < w ? loadX(uint(xr + gc + cs)) : 0;
                    int x2 = rowIn && gc + 2 * cs >= 0 && gc + 2 * cs < w ? loadX(uint(xr + gc + 2 * cs)) : 0;
                    int x3 = rowIn && gc + 3 * cs >= 0 && gc + 3 * cs < w ? loadX(uint(xr + gc + 3 * cs)) : 0;
#endif
                    lo0 += wl * x0; hi0 += wu * x0;
                    lo1 += wl * x1; hi1 += wu * x1;
                    lo2 += wl * x2; hi2 += wu * x2;
                    lo3 += wl * x3; hi3 += wu * x3;
                }
            }
        }
    }

    if (t >= rowsP) return;
#if TRANSPOSED
    int i = pr + s * t;
#else
    int i = t;
#endif
    uint planeY = uint(ho * wo);
    for (int k = 0; k < 4; k++) {
        int q = q0 + k;
        if (q >= colsP) break;
#if TRANSPOSED
        int j = pc + s * q;
#else
        int j = q;
#endif
        ivec4 l = k == 0 ? lo0 : k == 1 ? lo1 : k == 2 ? lo2 : lo3;
        ivec4 u = k == 0 ? hi0 : k == 1 ? hi1 : k == 2 ? hi2 : hi3;
        for (int c = 0; c < 8; c++) {
            int o = g * 8 + c;
            if (o >= cout) break;
            int v = c < 4 ? l[c] : u[c - 4];
            if (p[12] != 0) v = clamp(rnd(v * prm[cpad + o], prm[2 * cpad + o]), p[13], p[14]);
            storeY(uint(o) * planeY + uint(i * wo + j), v);
        }
    }
}
