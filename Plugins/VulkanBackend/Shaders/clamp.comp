// variants: X=16,32 Y=16,32
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
// §4.5 y = clamp(x, lo, hi). p: count, lo, hi.
void main() {
    uint id = invocation();
    if (id >= uint(p[0])) return;
    storeY(id, min(max(loadX(id), p[1]), p[2]));
}
