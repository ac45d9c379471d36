"""The integer graph run in Python (docs/integer-ops.md §4), for calibration diagnostics:
every value is an integer held exactly (float64 convolutions of integers below 2^53)."""
import numpy as np
import torch
import torch.nn.functional as F

from .graph import CONCAT, CONV2D, CONV_T, IGDN, LOOKUP, REQUANTIZE, CLAMP


def _rnd(x, s):
    s = np.asarray(s, dtype=np.int64).reshape(-1, 1, 1)
    half = np.where(s > 0, np.left_shift(1, np.maximum(s - 1, 0)), 0)
    return np.right_shift(x + half, s)


def run(graph, x):
    """All tensors of the graph for input x (C×H×W int64)."""
    vals = {graph.inputs[0]: np.asarray(x, dtype=np.int64)}
    for n in graph.nodes:
        a = vals[n.inputs[0]]
        p = n.params
        if n.op in (CONV2D, CONV_T):
            t = torch.from_numpy(a.astype(np.float64))[None]
            w = torch.from_numpy(np.asarray(p["weights"], dtype=np.float64))
            b = torch.tensor(p["bias"], dtype=torch.float64)
            if n.op == CONV2D:
                out = F.conv2d(t, w, b, stride=p["stride"], padding=p["pad"])
            else:
                out = F.conv_transpose2d(t, w, b, stride=p["stride"], padding=p["pad"], output_padding=p["output_pad"])
            vals[n.output] = out[0].numpy().round().astype(np.int64)
        elif n.op == REQUANTIZE:
            m = np.asarray(p["m"], dtype=np.int64).reshape(-1, 1, 1)
            vals[n.output] = np.clip(_rnd(a * m, p["s"]), p["lo"], p["hi"])
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
        else:
            raise ValueError(f"op {n.op}")
    return vals
