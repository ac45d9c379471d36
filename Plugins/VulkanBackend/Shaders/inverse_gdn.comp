// variants: X=16,32 Y=16,32
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
// §4.9 at every position: sq[k] = (x[k]·x[k]) >> q; n[c] = beta[c] + Σ_k gamma[c][k]·sq[k];
// y[c] = rnd(x[c]·isqrt(n[c]), s). |x| ≤ 46340 and every partial sum of n fits int32 (§5).
// n is a 1×1 convolution of the squares, run on the convolutions' design
// (docs/gpu-kernels.md §8): one dispatch per weight window of 8-channel groups, a work group
// of 64 invocations a tile of 512 positions × 8 channels, invocation l the 8 positions from
// tile·512 + 8·l and all 8 channels, 16 ivec4 accumulators (A: positions 0–3, B: 4–7), so
// each weight load serves 8 positions and each square 8 channels. The channel count is a specialization
// constant (the loop's trip count is a constant); gamma comes from the uniform window, the
// same offset in every invocation (§3), MODE bit 0 clear: from the storage view.
// p: count, channels, plane, q, s, g0.
// Binding 2 / 4 (from the window's start): gamma as [group − g0][k] 2 ivec4 (channels 0–3,
// 4–7 of the group; 0 past the channel count). Binding 3: beta, padded to 8 channels.
layout(constant_id = 0) const int CH = 1;
layout(constant_id = 3) const int MODE = 1;

layout(std430, set = 0, binding = 2) readonly buffer GammaBuffer { ivec4 gs[]; };
layout(std430, set = 0, binding = 3) readonly buffer BetaBuffer { int beta[]; };
// 64 KiB: the most a window spans (the host keeps it within maxUniformBufferRange).
layout(std140, set = 0, binding = 4) uniform GammaUniform { ivec4 gu[4096]; };

ivec4 gammas(int k) {
    ivec4 v;
    if ((MODE & 1) != 0) v = gu[k]; else v = gs[uint(k)];
    return v;
}

// The largest r with r·r ≤ n, for 0 ≤ n < 2^31: the float estimate truncated, then two
// corrections each way, without loops (64 roots per invocation: a loop each would be 128
// loops to compile and mask). Exact where the estimate is within 2 of the root: Vulkan's
// sqrt (2 ULP of inversesqrt, the conversion ½ ULP) is within 0.02 of it at the top of the
// range; a driver further off is what the probe's square-root cases catch.
// r ≤ 46340 for such n, so (r + 1)² ≤ 46341² < 2^32 never wraps; r·r > n only for r ≥ 1.
uint isqrt(uint n) {
    uint r = min(uint(sqrt(float(n))), 46340u);
    r -= r * r > n ? 1u : 0u;
    r -= r * r > n ? 1u : 0u;
    r += r < 46340u && (r + 1u) * (r + 1u) <= n ? 1u : 0u;
    r += r < 46340u && (r + 1u) * (r + 1u) <= n ? 1u : 0u;
    return r;
}

void main() {
    uint wg = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (wg * 64u >= uint(p[0])) return;      // the whole group: a 2-D dispatch's spare groups
    int plane = p[2], q = p[3], s = p[4], g0 = p[5];
    int tiles = (plane + 511) / 512;
    int gl = int(wg) / tiles, tile = int(wg) - gl * tiles;
    int g = g0 + gl;
    int pos0 = tile * 512 + 8 * int(gl_LocalInvocationID.x), last = plane - 1;
#if X == 16
    int lastWord = int(xwords.length()) - 1;
#else
    // Positions past the plane read the last one (inside the buffer) and store nothing.
    ivec4 ia = min(ivec4(pos0, pos0 + 1, pos0 + 2, pos0 + 3), ivec4(last));
    ivec4 ib = min(ivec4(pos0 + 4, pos0 + 5, pos0 + 6, pos0 + 7), ivec4(last));
#endif
    ivec4 A0 = ivec4(beta[g * 8]), A1 = ivec4(beta[g * 8 + 1]), A2 = ivec4(beta[g * 8 + 2]), A3 = ivec4(beta[g * 8 + 3]);
    ivec4 A4 = ivec4(beta[g * 8 + 4]), A5 = ivec4(beta[g * 8 + 5]), A6 = ivec4(beta[g * 8 + 6]), A7 = ivec4(beta[g * 8 + 7]);
    ivec4 B0 = A0, B1 = A1, B2 = A2, B3 = A3, B4 = A4, B5 = A5, B6 = A6, B7 = A7;
    for (int k = 0; k < CH; k++) {
        int row = k * plane;
#if X == 16
        // The 8 values as the int32 words holding them in pairs (common.glsl): 5 loads, not 8.
        // Words past the buffer are read clamped; positions past the plane store nothing, and
        // every value read is a value of x (or a zero half past its end), so the sums of
        // those positions stay inside the certified bound too.
        int start = row + pos0, w0 = start >> 1;
        int v0 = xwords[clamp(w0, 0, lastWord)], v1 = xwords[clamp(w0 + 1, 0, lastWord)];
        int v2 = xwords[clamp(w0 + 2, 0, lastWord)], v3 = xwords[clamp(w0 + 3, 0, lastWord)];
        int v4 = xwords[clamp(w0 + 4, 0, lastWord)];
        ivec4 l03 = (ivec4(v0, v1, v2, v3) << 16) >> 16, h03 = ivec4(v0, v1, v2, v3) >> 16;
        int l4 = (v4 << 16) >> 16;
        bool odd = (start & 1) != 0;
        ivec4 xa = odd ? ivec4(h03.x, l03.y, h03.y, l03.z) : ivec4(l03.x, h03.x, l03.y, h03.y);
        ivec4 xb = odd ? ivec4(h03.z, l03.w, h03.w, l4) : ivec4(l03.z, h03.z, l03.w, h03.w);
#else
        ivec4 xa = ivec4(loadX(uint(row + ia.x)), loadX(uint(row + ia.y)), loadX(uint(row + ia.z)), loadX(uint(row + ia.w)));
        ivec4 xb = ivec4(loadX(uint(row + ib.x)), loadX(uint(row + ib.y)), loadX(uint(row + ib.z)), loadX(uint(row + ib.w)));
#endif
        ivec4 sa = (xa * xa) >> q, sb = (xb * xb) >> q;       // x·x ≥ 0: the shift is exact
        ivec4 lo = gammas((gl * CH + k) * 2), hi = gammas((gl * CH + k) * 2 + 1);
        A0 += lo.x * sa; A1 += lo.y * sa; A2 += lo.z * sa; A3 += lo.w * sa;
        A4 += hi.x * sa; A5 += hi.y * sa; A6 += hi.z * sa; A7 += hi.w * sa;
        B0 += lo.x * sb; B1 += lo.y * sb; B2 += lo.z * sb; B3 += lo.w * sb;
        B4 += hi.x * sb; B5 += hi.y * sb; B6 += hi.z * sb; B7 += hi.w * sb;
    }
#define STORE1(n, e) if (pos0 + (e) < plane) { \
        uint at = uint(o * plane + pos0 + (e)); \
        storeY(at, rnd(loadX(at) * int(isqrt(uint(n))), s)); }
#define STORE(c) { int o = g * 8 + c; if (o < CH) { \
        STORE1(A##c.x, 0) STORE1(A##c.y, 1) STORE1(A##c.z, 2) STORE1(A##c.w, 3) \
        STORE1(B##c.x, 4) STORE1(B##c.y, 5) STORE1(B##c.z, 6) STORE1(B##c.w, 7) } }
    STORE(0) STORE(1) STORE(2) STORE(3) STORE(4) STORE(5) STORE(6) STORE(7)
}
