// variants: X=16,32 Y=16,32
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
// §4.2 y[o][i][j] = b[o] + Σ { w[c][o][u][v] · x[c][a][bb] : a·stride − pad + u = i, bb·stride − pad + v = j },
// gathered per phase and tiled (conv_tiled.glsl); every window fits the shared tile
// (docs/gpu-kernels.md §3).
#define TRANSPOSED 1
#define DIRECT 0
#include "conv_tiled.glsl"
