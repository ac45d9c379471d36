// variants: X=16,32 Y=16,32
#version 450
#extension GL_GOOGLE_include_directive : require
// The tiled kernel reads narrow inputs as 64-bit words (conv_tiled.glsl).
#define XQUADS 1
#include "common.glsl"
// §4.1 y[o][i][j] = b[o] + Σ_{c,u,v} w[o][c][u][v] · x[c][i·stride − pad + u][j·stride − pad + v],
// tiled (conv_tiled.glsl, docs/gpu-kernels.md).
#define TRANSPOSED 0
#include "conv_tiled.glsl"
