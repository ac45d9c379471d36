"""The integer graph run in Python (docs/integer-ops.md §4), for calibration diagnostics:
every value is an integer held exactly (float64 convolutions of integers below 2^53, every
other op in int64)."""
import numpy as np

from .graph import ADD, CONCAT, CONV2D, CONV_T, IGDN, LOOKUP, REQUANTIZE, CLAMP, WARP


def _rnd(x, s):
    s = np.asarray(s, dtype=np.int64).reshape(-1, 1, 1)
    half = np.where(s > 0, np.left_shift(1, np.maximum(s - 1, 0)), 0)
    return np.right_shift(x + half, s)


def _conv(a, p, transposed):
    # torch only where a graph has convs: a graph of the other ops runs on numpy alone.
    import torch
    import torch.nn.functional as F

    t = torch.from_numpy(a.astype(np.float64))[None]
    w = torch.from_numpy(np.asarray(p["weights"], dtype=np.float64))
    b = torch.tensor(p["bias"], dtype=torch.float64)
    if transposed:
        out = F.conv_transpose2d(t, w, b, stride=p["stride"], padding=p["pad"], output_padding=p["output_pad"])
    else:
        out = F.conv2d(t, w, b, stride=p["stride"], padding=p["pad"])
    return out[0].numpy().round().astype(np.int64)


def warp(v, flow, scales, frac_bits):
    """docs/integer-ops.md §4.10 exactly: coordinates j·E + dx, i·E + dy and ds clamped to
    the borders before the split (`>>` is floor), exact weights wz·wy·wx summing to E³, one
    rnd(acc, 3F) with ties toward +inf. v: (S·C)×H×W scale-major, flow: 3×H×W."""
    v = np.asarray(v, dtype=np.int64)
    flow = np.asarray(flow, dtype=np.int64)
    s, f = int(scales), int(frac_bits)
    cs, h, w = v.shape
    c = cs // s
    e = 1 << f
    vol = v.reshape(s, c, h, w)
    rows = np.arange(h, dtype=np.int64)[:, None]
    cols = np.arange(w, dtype=np.int64)[None, :]
    x = np.clip(cols * e + flow[0], 0, (w - 1) * e)
    y = np.clip(rows * e + flow[1], 0, (h - 1) * e)
    z = np.clip(flow[2], 0, (s - 1) * e)
    x0, y0, z0 = x >> f, y >> f, z >> f
    ax, ay, az = x - x0 * e, y - y0 * e, z - z0 * e
    xs = ((x0, e - ax), (np.minimum(x0 + 1, w - 1), ax))
    ys = ((y0, e - ay), (np.minimum(y0 + 1, h - 1), ay))
    zs = ((z0, e - az), (np.minimum(z0 + 1, s - 1), az))
    acc = np.zeros((c, h, w), dtype=np.int64)
    for zi, wz in zs:
        for yi, wy in ys:
            for xi, wx in xs:
                # vol[zi, :, yi, xi] is H×W×C: channel last, moved first.
                acc += (wz * wy * wx)[None] * np.moveaxis(vol[zi, :, yi, xi], -1, 0)
    return _rnd(acc, [3 * f] * c)


def run(graph, x):
    """All tensors of the graph for its inputs: x is the first input's values (C×H×W), or
    a list of every input's values in graph order."""
    xs = x if isinstance(x, (list, tuple)) else [x]
    if len(xs) != len(graph.inputs):
        raise ValueError(f"{len(xs)} input values for {len(graph.inputs)} graph inputs")
    vals = {t: np.asarray(a, dtype=np.int64) for t, a in zip(graph.inputs, xs)}
    for n in graph.nodes:
        a = vals[n.inputs[0]]
        p = n.params
        if n.op in (CONV2D, CONV_T):
            vals[n.output] = _conv(a, p, n.op == CONV_T)
        elif n.op == REQUANTIZE:
            m = np.asarray(p["m"], dtype=np.int64).reshape(-1, 1, 1)
            vals[n.output] = np.clip(_rnd(a * m, p["s"]), p["lo"], p["hi"])
        elif n.op == ADD:
            vals[n.output] = a + vals[n.inputs[1]]
        elif n.op == CLAMP:
            vals[n.output] = np.clip(a, p["lo"], p["hi"])
        elif n.op == LOOKUP:
            t = np.asarray(p["table"], dtype=np.int64)
            vals[n.output] = t[np.clip(a - p["offset"], 0, len(t) - 1)]
        elif n.op == CONCAT:
            vals[n.output] = np.concatenate([vals[i] for i in n.inputs], 0)
        elif n.op == IGDN:
            c = a.shape[0]
            sq = np.right_shift(a * a, p["q"])
            gamma = np.asarray(p["gamma"], dtype=np.int64).reshape(c, c)
            nn = np.asarray(p["beta"], dtype=np.int64)[:, None, None] + np.tensordot(gamma, sq, axes=(1, 0))
            r = np.floor(np.sqrt(nn.astype(np.float64))).astype(np.int64)
            r -= (r * r > nn)
            r += ((r + 1) * (r + 1) <= nn)
            vals[n.output] = _rnd(a * r, [p["s"]] * c)
        elif n.op == WARP:
            vals[n.output] = warp(a, vals[n.inputs[1]], p["scales"], p["frac_bits"])
        else:
            raise ValueError(f"op {n.op}")
    return vals
