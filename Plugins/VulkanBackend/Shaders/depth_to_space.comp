// variants: X=16,32 Y=16,32
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
// §4.6 y[c][i·r + u][j·r + v] = x[c·r² + u·r + v][i][j], gathered per output element.
// p: count, h, w, r (h, w: the input's).
void main() {
    uint id = invocation();
    if (id >= uint(p[0])) return;
    uint h = uint(p[1]), w = uint(p[2]), r = uint(p[3]);
    uint yh = h * r, yw = w * r;
    uint c = id / (yh * yw);
    uint rest = id - c * yh * yw;
    uint yi = rest / yw, yj = rest - (rest / yw) * yw;
    uint i = yi / r, u = yi - i * r;
    uint j = yj / r, v = yj - j * r;
    storeY(id, loadX(((c * r * r + u * r + v) * h + i) * w + j));
}
