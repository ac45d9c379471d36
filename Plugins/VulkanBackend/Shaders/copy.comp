// variants: X=16,32 Y=16,32
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
// §4.7 concat: each input is copied to its channel offset (CHW makes that a flat offset).
// p: count, offset.
void main() {
    uint id = invocation();
    if (id >= uint(p[0])) return;
    storeY(uint(p[1]) + id, loadX(id));
}
