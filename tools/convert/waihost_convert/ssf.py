"""A float scale-space-flow P-frame codec (ssf_model.ScaleSpaceFlow) → an integer
wai.video.int_motion model set (docs/capabilities/video_int_motion.md §2, with the structure
of §4). Steps as convert.py: every activation gets a per-channel step from calibration
frame pairs, convolutions become integer convs with a rounding shift; ReLU is the clamp of
each requantize; the flow is written in 1/2^FRAC_BITS pixels and scale steps for the warp;
the blur levels and the warp are the spec's fixed ops; both latents' hyper graphs are the
picture codec's (hyper.py)."""
import math

import numpy as np
import torch
import torch.nn.functional as F

from . import hyper, tables
from .calibration import ActivationStats
from .graph import Graph
from .layers import ACT, conv

ANALYSIS_SHIFT = 8   # as the picture codec (convert.py): g_a writes y at 2^-8, the host rounds
FRAC_BITS = 6        # the flow in 1/64 pixel: [0, 255] volumes allow up to 7 (integer-ops.md §4.10)
FLOW_LIMIT = 256     # |dx|, |dy| at most 256 pixels; ds is clamped by the warp itself
BINOMIAL = (1, 4, 6, 4, 1)


def camera_pair(rgb, multiple=16):
    """A (reference, current) pair from one picture of any size: the current frame is the
    picture moved by a small pan and zoom, what the calibration needs to see every
    activation's range. Both are extended to a multiple of `multiple` (int_motion's 16,
    int_cond's P-frame grid of 64)."""
    x = torch.from_numpy(rgb.copy()).permute(2, 0, 1).float()[None] / 255
    # extended by repeating the last row and column, as the host extends a frame
    # (video_int_motion.md §1, video_int_cond.md §1): the synthesis' output is that size
    x = F.pad(x, (0, -x.shape[3] % multiple, 0, -x.shape[2] % multiple), mode="replicate")
    _, _, h, w = x.shape
    theta = torch.tensor([[1 / 1.02, 0.0, 2 * 2.5 / w], [0.0, 1 / 1.02, -2 * 1.5 / h]])
    grid = F.affine_grid(theta[None], (1, 3, h, w), align_corners=False)
    cur = F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)
    return torch.round(x * 255) / 255, torch.round(cur * 255) / 255


class Calibration(ActivationStats):
    """Per-channel max |value| after every layer the integer graphs quantise."""

    def _seq(self, seq, x, prefix):
        for i, layer in enumerate(seq):
            x = layer(x)
            if i % 2 == 1:  # after each ReLU
                self._note(f"{prefix}.{i}", x)
        return x

    def _hyper(self, lat, y, prefix):
        self._note(f"{prefix}.y", y)
        h = self._hyper_analysis(lat, y, f"{prefix}.")
        for i, layer in enumerate(lat.h_s):
            h = layer(h)
            if i in (1, 3):
                self._note(f"{prefix}.h_s.{i}", h)
        return torch.round(y)

    def _run(self, model, ref, cur):
        y_m = self._seq(model.motion_g_a, torch.cat((cur, ref), 1), "motion_g_a")
        y_m = self._hyper(model.motion, y_m, "motion")
        flow = self._seq(model.motion_g_s, y_m, "motion_g_s")
        self._note("flow", flow)
        pred = model.warp(model.volume(ref), flow)
        y_r = self._seq(model.residual_g_a, cur - pred, "residual_g_a")
        y_r = self._hyper(model.residual, y_r, "residual")
        self._seq(model.residual_g_s, torch.cat((y_r, y_m), 1), "residual_g_s")


class Converted:
    """The ten graphs and two entropy files of the set, and what the report prints."""

    def __init__(self, graphs, entropy, contracts, scales, frac_bits):
        self.graphs, self.entropy, self.contracts = graphs, entropy, contracts
        self.scales, self.frac_bits = scales, frac_bits
        self.analysis_shift = ANALYSIS_SHIFT


def _analysis(g, x, seq, d, cal, prefix, y_fine, m):
    """Three conv + ReLU, then y at 2^-k steps inside y_fine."""
    for i in (0, 2, 4):
        x, d = conv(g, x, seq[i], d, cal.step(f"{prefix}.{i + 1}"), 0, ACT, f"{prefix}_{i}")
    y, _ = conv(g, x, seq[6], d, np.full(m, 1.0 / (1 << ANALYSIS_SHIFT)), *y_fine, f"{prefix}_6", fixed=True)
    return y


def _synthesis(g, x, seq, d, cal, prefix):
    """Three transposed conv + ReLU; returns the last activation and its steps."""
    for i in (0, 2, 4):
        x, d = conv(g, x, seq[i], d, cal.step(f"{prefix}.{i + 1}"), 0, ACT, f"{prefix}_{i}", transposed=True)
    return x, d


def _blur(g, x, name):
    """video_int_motion.md §4 step 2: one 5×5 binomial blur, channel to itself, rnd(·, 8)."""
    b = np.array(BINOMIAL, dtype=np.int64)
    c = g.shape(x)[0]
    w = np.zeros((c, c, 5, 5), dtype=np.int64)
    for ch in range(c):
        w[ch, ch] = np.outer(b, b)
    acc = g.conv(x, w, [0] * c, 1, 2, name=name + "_conv")
    return g.requantize(acc, [1] * c, [8] * c, 0, 255, name=name)


def _prediction(g, model, cal, ref, y_m, m_m):
    """video_int_motion.md §4 steps 1–3: motion decoder → flow, volume of ref, warp."""
    x, d = _synthesis(g, y_m, model.motion_g_s, np.ones(m_m), cal, "motion_g_s")
    e = 1 << FRAC_BITS
    flow, _ = conv(g, x, model.motion_g_s[6], d, np.full(3, 1.0 / e), -FLOW_LIMIT * e, FLOW_LIMIT * e,
                   "flow", transposed=True, fixed=True)
    levels, cur, applied = [ref], ref, 0
    for k in range(1, model.scales):
        while applied < 2 ** k - 1:
            applied += 1
            cur = _blur(g, cur, f"blur_{applied}")
        levels.append(cur)
    volume = g.concat(levels, name="volume")
    return g.warp(volume, flow, model.scales, FRAC_BITS, name="prediction")


def convert(model, pairs):
    """model: ScaleSpaceFlow in eval mode, entropy models updated; pairs: (ref, cur) float
    tensors in [0, 1], 1×3×H×W."""
    cal = Calibration(model, pairs)
    m_m = model.motion_g_a[6].weight.shape[0]
    m_r = model.residual_g_a[6].weight.shape[0]
    k = ANALYSIS_SHIFT
    graphs, entropy, contracts = {}, {}, {}
    for name, lat, m in (("motion", model.motion, m_m), ("residual", model.residual, m_r)):
        y_max = int(max(63, math.ceil(1.5 * cal.stats[f"{name}.y"].max())))
        if y_max > 127:
            raise ValueError(f"{name} latent reaches ±{y_max}: above ±127, h_a's |y| table at 2^-{k} steps "
                             f"would pass 65536 entries")
        y_range = (-y_max, y_max)
        z_range = hyper.z_contract(lat, cal.stats[f"{name}.z"].max())
        step = lambda key, n=name: cal.step(f"{n}.{key}")
        fine = (y_range[0] << k, y_range[1] << k)
        graphs[f"{name}_h_a.whm"] = hyper.analysis(lat, step, fine, np.full(m, 1.0 / (1 << k)), z_range, f"{name}_")
        hs, scale_table = hyper.synthesis(lat, step, z_range, prefix=f"{name}_")
        graphs[f"{name}_h_s.whm"] = hs
        entropy[f"{name}_entropy.json"] = tables.entropy_json(lat, hyper.medians(lat), z_range, y_range, scale_table)
        contracts[name] = {"y": y_range, "z": z_range, "fine": fine}

    # motion_g_a: (current, ref) RGB, Δ 1/255 → y_m at 2^-k
    ga = Graph()
    x = ga.input("current_and_ref", (6, 16, 16), 0, 255)
    graphs["motion_g_a.whm"] = ga
    ga.outputs = [_analysis(ga, x, model.motion_g_a, np.full(6, 1 / 255), cal, "motion_g_a",
                            contracts["motion"]["fine"], m_m)]
    # residual_g_a: current − prediction in [−255, 255] → y_r at 2^-k
    gr = Graph()
    x = gr.input("residual", (3, 16, 16), -255, 255)
    graphs["residual_g_a.whm"] = gr
    gr.outputs = [_analysis(gr, x, model.residual_g_a, np.full(3, 1 / 255), cal, "residual_g_a",
                            contracts["residual"]["fine"], m_r)]
    # predict: (ref, y_m) → prediction; p_synth: (ref, y_m, y_r) → frame
    for file in ("predict.whm", "p_synth.whm"):
        g = Graph()
        ref = g.input("ref", (3, 16, 16), 0, 255)
        y_m = g.input("y_m", (m_m, 1, 1), *contracts["motion"]["y"])
        pred = _prediction(g, model, cal, ref, y_m, m_m)
        if file == "predict.whm":
            g.outputs = [pred]
        else:
            y_r = g.input("y_r", (m_r, 1, 1), *contracts["residual"]["y"])
            x, d = _synthesis(g, g.concat([y_r, y_m], name="latents"), model.residual_g_s, np.ones(m_r + m_m), cal,
                              "residual_g_s")
            res, _ = conv(g, x, model.residual_g_s[6], d, np.full(3, 1 / 255), -255, 255, "residual",
                          transposed=True, fixed=True)
            g.outputs = [g.clamp(g.add(pred, res, name="sum"), 0, 255, name="frame")]
        graphs[file] = g
    return Converted(graphs, entropy, contracts, model.scales, FRAC_BITS)
