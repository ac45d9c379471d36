// variants: X=16,32 Y=16,32
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
// §4.3 y = clamp(rnd(x·m[c], s[c]), lo, hi). p: count, plane, lo, hi.
layout(std430, set = 0, binding = 2) readonly buffer MBuffer { int m[]; };
layout(std430, set = 0, binding = 3) readonly buffer SBuffer { int sh[]; };

void main() {
    uint id = invocation();
    if (id >= uint(p[0])) return;
    uint c = id / uint(p[1]);
    int v = rnd(loadX(id) * m[c], sh[c]);
    storeY(id, min(max(v, p[2]), p[3]));
}
