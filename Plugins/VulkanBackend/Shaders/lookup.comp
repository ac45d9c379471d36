// variants: X=16,32 Y=16,32
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
// §4.8 y = t[clamp(x − offset, 0, L − 1)]; the certificate keeps x − offset in int32.
// p: count, offset, L.
layout(std430, set = 0, binding = 2) readonly buffer TBuffer { int table[]; };

void main() {
    uint id = invocation();
    if (id >= uint(p[0])) return;
    int index = min(max(loadX(id) - p[1], 0), p[2] - 1);
    storeY(id, table[index]);
}
