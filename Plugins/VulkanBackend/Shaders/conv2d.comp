// variants: X=16,32 Y=16,32
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
// §4.1 y[o][i][j] = b[o] + Σ_{c,u,v} w[o][c][u][v] · x[c][i·stride − pad + u][j·stride − pad + v].
// One invocation per output position and group of 8 output channels, so each input value
// loaded serves 8 channels. The host pads weights and bias with zeros to a multiple of 8
// channels; the padding channels are computed and never stored. The certificate proves
// every partial sum in any order fits int32 (§5), so the int32 accumulators never wrap.
// p: count (groups · ho · wo), cin, h, w, ho, wo, kh, kw, stride, pad, cout.
layout(std430, set = 0, binding = 2) readonly buffer WBuffer { int weights[]; };
layout(std430, set = 0, binding = 3) readonly buffer BBuffer { int bias[]; };

void main() {
    uint id = invocation();
    if (id >= uint(p[0])) return;
    int cin = p[1], h = p[2], w = p[3], ho = p[4], wo = p[5], kh = p[6], kw = p[7], stride = p[8], pad = p[9], cout = p[10];
    uint plane = uint(ho * wo);
    uint group = id / plane;
    uint rest = id - group * plane;
    int i = int(rest / uint(wo));
    int j = int(rest) - i * wo;
    int o0 = int(group) * 8;
    int taps = cin * kh * kw;
    ivec4 acc = ivec4(bias[o0], bias[o0 + 1], bias[o0 + 2], bias[o0 + 3]);
    ivec4 acc2 = ivec4(bias[o0 + 4], bias[o0 + 5], bias[o0 + 6], bias[o0 + 7]);
    // The taps that land inside the input: 0 ≤ i·stride − pad + u < h, likewise v.
    int r0 = i * stride - pad, c0 = j * stride - pad;
    int uLo = max(0, -r0), uHi = min(kh, h - r0);
    int vLo = max(0, -c0), vHi = min(kw, w - c0);
    for (int c = 0; c < cin; c++) {
        for (int u = uLo; u < uHi; u++) {
            int wRow = ((o0 * cin + c) * kh + u) * kw;
            int xRow = (c * h + r0 + u) * w + c0;
            for (int v = vLo; v < vHi; v++) {
                int k = wRow + v;
                int xv = loadX(uint(xRow + v));
                acc += ivec4(weights[k], weights[k + taps], weights[k + 2 * taps], weights[k + 3 * taps]) * xv;
                k += 4 * taps;
                acc2 += ivec4(weights[k], weights[k + taps], weights[k + 2 * taps], weights[k + 3 * taps]) * xv;
            }
        }
    }
    for (int k = 0; k < 4; k++) {
        if (o0 + k < cout) storeY(uint(o0 + k) * plane + rest, acc[k]);
        if (o0 + 4 + k < cout) storeY(uint(o0 + 4 + k) * plane + rest, acc2[k]);
    }
}
