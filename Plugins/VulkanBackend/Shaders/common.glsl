// Shared by every kernel (docs/integer-ops.md). Storage: a tensor of 16 bits is read
// through a 16-bit storage buffer and sign-extended on load (§2); all arithmetic is int32.
// Bindings follow one layout for all kernels: 0 = x, 1 = y, 2 and 3 = parameters (or the
// second input of add). Push constants: p[0] is always the number of invocations wanted.
#if (defined(X) && X == 16) || (defined(Y) && Y == 16) || (defined(B) && B == 16)
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#endif
#if defined(XQUADS) && X == 16
// The tiled convolutions read narrow inputs as 64-bit words (docs/gpu-kernels.md §3).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#endif

layout(local_size_x = 64) in;
layout(push_constant) uniform Params { int p[16]; };

#if X == 16
layout(std430, set = 0, binding = 0) readonly buffer XBuffer { int16_t xs[]; };
// The same buffer as int32 words, two values each: element 2k in the low, 2k + 1 in the
// high half (the devices' little-endian memory; buffers are whole words). Kernels that read
// runs of adjacent values (docs/gpu-kernels.md §3, §8) load half as many words.
layout(std430, set = 0, binding = 0) readonly buffer XWords { int xwords[]; };
#else
layout(std430, set = 0, binding = 0) readonly buffer XBuffer { int xs[]; };
#endif
int loadX(uint i) { return int(xs[i]); }

#if Y == 16
layout(std430, set = 0, binding = 1) writeonly buffer YBuffer { int16_t ys[]; };
void storeY(uint i, int v) { ys[i] = int16_t(v); }
#else
layout(std430, set = 0, binding = 1) writeonly buffer YBuffer { int ys[]; };
void storeY(uint i, int v) { ys[i] = v; }
#endif

// Dispatches are 2-D when one row of work groups would exceed the device's limit.
uint invocation() {
    return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
}

// §3 rnd(x, s) = (x + 2^(s−1)) >> s for s ≥ 1, x for s = 0. GLSL's >> on int is arithmetic
// (floor) and s ≤ 31, so no shift reaches 32; the certificate keeps x + 2^(s−1) in int32.
int rnd(int x, int s) {
    return s == 0 ? x : (x + (1 << (s - 1))) >> s;
}
