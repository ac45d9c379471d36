// variants: X=16,32 Y=16,32
#version 450
#extension GL_GOOGLE_include_directive : require
// The tiled kernel reads narrow inputs as 64-bit words (conv_tiled.glsl).
#define XQUADS 1
#include "common.glsl"
// §4.2 y[o][i][j] = b[o] + Σ { w[c][o][u][v] · x[c][a][bb] : a·stride − pad + u = i, bb·stride − pad + v = j },
// one dispatch per phase (conv_tiled.glsl, docs/gpu-kernels.md §1).
#define TRANSPOSED 1
#include "conv_tiled.glsl"
