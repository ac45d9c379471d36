// variants: X=16,32 B=16,32 Y=16,32
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
// §4.10 warp, one invocation per output element (c, i, j): x the (S·C)×H×W volume (scale s
// of channel c at s·C + c), binding 2 the 3×H×W flow (dx, dy, ds with F fractional bits).
// Each coordinate is clamped to the border before it is split (all ≥ 0, so >> is a plain
// shift and the fraction lies in 0…E−1); the eight weights are exact and sum to E³; the
// certificate keeps the coordinates, every partial sum of acc and acc + 2^(3F−1) in int32.
// p: count, C, S, H, W, F.
#if B == 16
layout(std430, set = 0, binding = 2) readonly buffer BBuffer { int16_t fs[]; };
#else
layout(std430, set = 0, binding = 2) readonly buffer BBuffer { int fs[]; };
#endif

void main() {
    uint id = invocation();
    if (id >= uint(p[0])) return;
    int C = p[1], S = p[2], H = p[3], W = p[4], F = p[5], E = 1 << F;
    uint hw = uint(H) * uint(W), c = id / hw, at = id - c * hw;
    int i = int(at / uint(W)), j = int(at - uint(i) * uint(W));
    int cx = min(max(j * E + int(fs[at]), 0), (W - 1) * E);   // X, Y are the variant macros
    int cy = min(max(i * E + int(fs[hw + at]), 0), (H - 1) * E);
    int cz = min(max(int(fs[2u * hw + at]), 0), (S - 1) * E);
    int x0 = cx >> F, y0 = cy >> F, z0 = cz >> F;
    int ax = cx - x0 * E, ay = cy - y0 * E, az = cz - z0 * E;
    int xs2[2] = int[2](x0, min(x0 + 1, W - 1)), ys2[2] = int[2](y0, min(y0 + 1, H - 1));
    int zs2[2] = int[2](z0, min(z0 + 1, S - 1));
    int wx[2] = int[2](E - ax, ax), wy[2] = int[2](E - ay, ay), wz[2] = int[2](E - az, az);
    int acc = 0;
    for (int r = 0; r < 2; r++)
        for (int q = 0; q < 2; q++)
            for (int t = 0; t < 2; t++) {
                uint plane = uint(zs2[r] * C) + c;
                acc += wz[r] * wy[q] * wx[t] * loadX((plane * uint(H) + uint(ys2[q])) * uint(W) + uint(xs2[t]));
            }
    storeY(id, rnd(acc, 3 * F));
}
