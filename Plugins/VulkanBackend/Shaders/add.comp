// variants: X=16,32 B=16,32 Y=16,32
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
// §4.4 y = a + b (a at binding 0, b at binding 2). p: count.
#if B == 16
layout(std430, set = 0, binding = 2) readonly buffer BBuffer { int16_t bs[]; };
#else
layout(std430, set = 0, binding = 2) readonly buffer BBuffer { int bs[]; };
#endif

void main() {
    uint id = invocation();
    if (id >= uint(p[0])) return;
    storeY(id, loadX(id) + int(bs[id]));
}
