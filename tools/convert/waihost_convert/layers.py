"""One float convolution as integer ops (docs/integer-ops.md §4.1–§4.3): the weights rescaled
from the input's calibrated steps to the output's, with the largest shift that keeps the
certified accumulator inside the budget, so the requantize is a plain rounding shift."""
import numpy as np

ACT = 2047                      # inner activations: [-2047, 2047] (ReLU: [0, 2047])
BUDGET = float(1 << 30) * 0.98  # the certified accumulator's bound


def conv(g, x, layer, d_in, d_out, lo, hi, name, transposed=False, extra_bias=None, fixed=False):
    """layer (torch Conv2d/ConvTranspose2d) from input steps d_in to output steps d_out,
    requantized and clamped to [lo, hi]; returns the tensor and the output steps. A channel
    whose calibrated step is too fine for its weights (gain above 1) gets the finest step it
    can have, unless the steps are fixed (y, z, σ, RGB)."""
    w = layer.weight.detach().double().numpy()
    b = layer.bias.detach().double().numpy() if layer.bias is not None else np.zeros(w.shape[1 if transposed else 0])
    if extra_bias is not None:
        b = b + extra_bias
    stride, pad = layer.stride[0], layer.padding[0]
    outpad = layer.output_padding[0] if transposed else 0
    if transposed:  # [Cin][Cout][kh][kw]
        wr = w * d_in[:, None, None, None] / d_out[None, :, None, None]
        per_out = np.abs(wr).transpose(1, 0, 2, 3).reshape(wr.shape[1], -1)
    else:
        wr = w * d_in[None, :, None, None] / d_out[:, None, None, None]
        per_out = np.abs(wr).reshape(wr.shape[0], -1)
    br = b / d_out
    a, bb = g.interval(x)
    xmax = max(abs(a), abs(bb), 1)
    bound = per_out.sum(1) * xmax + np.abs(br)
    over = np.maximum(np.maximum(bound, np.abs(br)) / BUDGET, per_out.max(1) / 32767) * 1.01
    if np.any(over > 1):
        if fixed:
            o = int(np.argmax(over))
            raise ValueError(f"{name}: output channel {o} needs a gain of {over[o]:.3g} above 1 "
                             f"(its accumulator or a weight would leave its range even at shift 0)")
        grow = np.maximum(over, 1)
        d_out = d_out * grow
        wr = wr / (grow[None, :, None, None] if transposed else grow[:, None, None, None])
        per_out = per_out / grow[:, None]
        br = br / grow
        bound = bound / grow
    shifts = []
    for o in range(len(br)):
        s = 31
        while s > 0 and (bound[o] * 2.0 ** s > BUDGET or per_out[o].max() * 2.0 ** s > 32767 or abs(br[o]) * 2.0 ** s > BUDGET):
            s -= 1
        shifts.append(s)
    f = np.array([2.0 ** s for s in shifts])
    if transposed:
        wq = np.rint(wr * f[None, :, None, None])
    else:
        wq = np.rint(wr * f[:, None, None, None])
    bq = np.rint(br * f)
    acc = g.conv(x, wq.astype(np.int64), bq.astype(np.int64), stride, pad, transposed, outpad, name=name + "_conv")
    return g.requantize(acc, [1] * len(shifts), shifts, lo, hi, name=name + "_requantize"), d_out
