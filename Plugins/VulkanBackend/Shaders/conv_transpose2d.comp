// variants: X=16,32 Y=16,32
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
// §4.2 y[o][i][j] = b[o] + Σ { w[c][o][u][v] · x[c][a][bb] : a·stride − pad + u = i, bb·stride − pad + v = j }.
// Gathered per output position and group of 8 output channels (weights repacked by the
// host as w[c][o'][u][v] with o' padded with zeros to cout8, a multiple of 8). The taps u
// with (i + pad − u) ≥ 0 divisible by stride are u ≡ (i + pad) mod stride; all operands
// of % and / are non-negative, so no signed % or / is needed.
// p: count (groups · ho · wo), cin, h, w, ho, wo, kh, kw, stride, pad, cout, cout8.
layout(std430, set = 0, binding = 2) readonly buffer WBuffer { int weights[]; };
layout(std430, set = 0, binding = 3) readonly buffer BBuffer { int bias[]; };

void main() {
    uint id = invocation();
    if (id >= uint(p[0])) return;
    int cin = p[1], h = p[2], w = p[3], ho = p[4], wo = p[5], kh = p[6], kw = p[7], stride = p[8], pad = p[9];
    int cout = p[10], cout8 = p[11];
    uint plane = uint(ho * wo);
    uint group = id / plane;
    uint rest = id - group * plane;
    int i = int(rest / uint(wo));
    int j = int(rest) - i * wo;
    int o0 = int(group) * 8;
    int kernel = kh * kw;
    uint ti = uint(i + pad), tj = uint(j + pad);
    // Taps u ≡ (i + pad) mod stride with a = (i + pad − u) / stride in 0…h−1, i.e.
    // i + pad − (h − 1)·stride ≤ u ≤ i + pad; likewise v.
    int uLo = int(ti % uint(stride)), vLo = int(tj % uint(stride));
    int firstU = i + pad - (h - 1) * stride, firstV = j + pad - (w - 1) * stride;
    if (firstU > uLo) uLo += int(uint(firstU - uLo + stride - 1) / uint(stride)) * stride;
    if (firstV > vLo) vLo += int(uint(firstV - vLo + stride - 1) / uint(stride)) * stride;
    int uHi = min(kh - 1, i + pad), vHi = min(kw - 1, j + pad);
    ivec4 acc = ivec4(bias[o0], bias[o0 + 1], bias[o0 + 2], bias[o0 + 3]);
    ivec4 acc2 = ivec4(bias[o0 + 4], bias[o0 + 5], bias[o0 + 6], bias[o0 + 7]);
    for (int c = 0; c < cin; c++) {
        for (int u = uLo; u <= uHi; u += stride) {
            int a = int((ti - uint(u)) / uint(stride));
            int wRow = ((c * cout8 + o0) * kh + u) * kw;
            int xRow = (c * h + a) * w;
            for (int v = vLo; v <= vHi; v += stride) {
                int bb = int((tj - uint(v)) / uint(stride));
                int k = wRow + v;
                int xv = loadX(uint(xRow + bb));
                acc += ivec4(weights[k], weights[k + kernel], weights[k + 2 * kernel], weights[k + 3 * kernel]) * xv;
                k += 4 * kernel;
                acc2 += ivec4(weights[k], weights[k + kernel], weights[k + 2 * kernel], weights[k + 3 * kernel]) * xv;
            }
        }
    }
    for (int k = 0; k < 4; k++) {
        if (o0 + k < cout) storeY(uint(o0 + k) * plane + rest, acc[k]);
        if (o0 + 4 + k < cout) storeY(uint(o0 + 4 + k) * plane + rest, acc2[k]);
    }
}
