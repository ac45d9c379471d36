// variants: X=16,32 Y=16,32 D=0,1
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
// §4.1 y[o][i][j] = b[o] + Σ_{c,u,v} w[o][c][u][v] · x[c][i·stride − pad + u][j·stride − pad + v],
// tiled (conv_tiled.glsl). D=0 stages the input window in shared memory; D=1 reads it from
// the input buffer, for the shapes whose window does not fit (docs/gpu-kernels.md §3).
#define TRANSPOSED 0
#define DIRECT D
#include "conv_tiled.glsl"
