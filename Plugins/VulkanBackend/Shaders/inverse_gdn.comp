// variants: X=16,32 Y=16,32
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
// §4.9 at every position: sq[k] = (x[k]·x[k]) >> q; n[c] = beta[c] + Σ_k gamma[c][k]·sq[k];
// y[c] = rnd(x[c]·isqrt(n[c]), s). |x| ≤ 46340 and every partial sum of n fits int32 (§5).
// p: count, channels, plane, q, s.
layout(std430, set = 0, binding = 2) readonly buffer BetaBuffer { int beta[]; };
layout(std430, set = 0, binding = 3) readonly buffer GammaBuffer { int gamma[]; };

// The largest r with r·r ≤ n, for 0 ≤ n < 2^31: a float estimate, corrected exactly in uint.
// r ≤ 46340 for such n, so (r + 1)² ≤ 46341² < 2^32 never wraps.
uint isqrt(uint n) {
    uint r = min(uint(sqrt(float(n))), 46340u);
    while (r * r > n) r--;
    while (r < 46340u && (r + 1u) * (r + 1u) <= n) r++;
    return r;
}

void main() {
    uint id = invocation();
    if (id >= uint(p[0])) return;
    int channels = p[1];
    uint plane = uint(p[2]);
    int q = p[3], s = p[4];
    uint c = id / plane;
    uint pos = id - c * plane;
    int n = beta[c];
    uint row = c * uint(channels);
    for (int k = 0; k < channels; k++) {
        int xk = loadX(uint(k) * plane + pos);
        n += gamma[row + uint(k)] * ((xk * xk) >> q);
    }
    int r = int(isqrt(uint(n)));
    storeY(id, rnd(loadX(id) * r, s));
}
