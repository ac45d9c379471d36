"""A float conditional P-frame codec (cond_model.ConditionalCodec) → an integer
wai.video.int_cond model set (docs/capabilities/video_int_cond.md §2, with the trained
structure of §4.1). Steps as convert.py: every activation gets a per-channel step from
calibration frame pairs, convolutions become integer convs with a rounding shift, ReLU is the
clamp of each requantize, inverse GDN is the host's op (convert.inverse_gdn); the context's
copy of the reference blocks is an exact 0/1 convolution; y is written at step 1 (int_cond
has no analysis shift); the hyper analysis and the σ → scale-index lookup are the picture
codec's (hyper.py)."""
import math

import numpy as np
import torch
import torch.nn.functional as F

from . import hyper, tables
from .cond_model import BLOCK, REF_CHANNELS
from .convert import inverse_gdn
from .calibration import ActivationStats
from .graph import Graph
from .layers import ACT, conv
from .ssf import camera_pair

GRID = 64  # the P-frame grid: every frame is extended to a multiple of 64 (§3)


def calibration_pair(rgb):
    """A (reference, current) camera pair of the picture extended to the P-frame grid."""
    return camera_pair(rgb, multiple=GRID)


class Calibration(ActivationStats):
    """Per-channel max |value| after every layer the integer graphs quantise."""

    def _seq(self, seq, x, prefix):
        for i, layer in enumerate(seq):
            x = layer(x)
            self._note(f"{prefix}.{i}", x)
        return x

    def _run(self, model, ref, cur):
        c = torch.cat((F.pixel_unshuffle(ref, BLOCK), self._seq(model.context, ref, "context")), 1)
        e = self._seq(model.g_a_embed, cur, "g_a_embed")
        y = self._seq(model.g_a, torch.cat((e, c), 1), "g_a")
        self._note("y", y)
        self._seq(model.h_s, self._hyper_analysis(model, y), "h_s")
        self._seq(model.temporal, c, "temporal")  # the prior's last layer has σ's fixed step
        x = self._seq(model.g_s, torch.round(y), "g_s")
        self._seq(model.fuse, torch.cat((x, c), 1), "fuse")


class Converted:
    """The five graphs and the entropy file of the set, and what the report prints."""

    def __init__(self, graphs, entropy, contracts, k):
        self.graphs, self.entropy, self.contracts, self.context_channels = graphs, entropy, contracts, k


def _context(g, model, cal, ref):
    """ref → C = concat(the reference's 4×4 blocks, exact; the learned features) and C's steps."""
    blocks = np.zeros((REF_CHANNELS, 3, BLOCK, BLOCK), dtype=np.int64)
    for ch in range(3):
        for u in range(BLOCK):
            for v in range(BLOCK):
                blocks[ch * BLOCK * BLOCK + u * BLOCK + v, ch, u, v] = 1  # pixel_unshuffle's order
    copy = g.conv(ref, blocks, [0] * REF_CHANNELS, BLOCK, 0, name="context_blocks")
    d_ref = np.full(3, 1 / 255)
    x, d = conv(g, ref, model.context[0], d_ref, cal.step("context.1"), 0, ACT, "context_0")
    x, d = conv(g, x, model.context[2], d, cal.step("context.2"), -ACT, ACT, "context_2")
    x, d = inverse_gdn(g, x, model.context[3], d, cal.step("context.3"), "context_3")
    return g.concat([copy, x], name="context"), np.concatenate([np.full(REF_CHANNELS, 1 / 255), d])


def convert(model, pairs):
    """model: ConditionalCodec in eval mode, entropy models updated; pairs: (ref, cur) float
    tensors in [0, 1], 1×3×H×W with H and W multiples of 64."""
    cal = Calibration(model, pairs)
    n, m = model.n, model.m
    k = REF_CHANNELS + model.features
    y_max = int(max(63, math.ceil(1.5 * cal.stats["y"].max())))
    y_range = (-y_max, y_max)
    z_range = hyper.z_contract(model, cal.stats["z"].max())
    graphs = {}

    gc = Graph()
    c, d_c = _context(gc, model, cal, gc.input("ref", (3, GRID, GRID), 0, 255))
    gc.outputs = [c]
    graphs["cond_context.whm"] = gc
    c_range = gc.interval(c)

    def context_input(g):
        return g.input("context", (k, GRID // BLOCK, GRID // BLOCK), *c_range)

    # cond_prior: (C, z) → σ/Δσ → scale index; the hyper half is int_hyper's h_s without its last layer
    gp = Graph()
    cp = context_input(gp)
    z = gp.input("z", (n, 1, 1), *z_range)
    med = hyper.medians(model)
    eye = np.zeros((n, n, 1, 1), dtype=np.int64)
    for ch in range(n):
        eye[ch, ch] = 1 << hyper.Z_SCALE_SHIFT
    h = gp.conv(z, eye, np.rint(med * (1 << hyper.Z_SCALE_SHIFT)).astype(np.int64), 1, 0, name="h_s_median")
    d_h = np.full(n, 1.0 / (1 << hyper.Z_SCALE_SHIFT))
    for i in (0, 2):
        h, d_h = conv(gp, h, model.h_s[i], d_h, cal.step(f"h_s.{i + 1}"), 0, ACT, f"h_s_{i}", transposed=True)
    t, d_t = cp, d_c
    for i in (0, 2):
        t, d_t = conv(gp, t, model.temporal[i], d_t, cal.step(f"temporal.{i + 1}"), 0, ACT, f"temporal_{i}")
    both = gp.concat([h, t], name="hyper_and_temporal")
    scale_table = tables.scale_table(model)
    d_sigma = float(scale_table[-1]) / hyper.SIGMA_LEVELS
    sigma, _ = conv(gp, both, model.prior[0], np.concatenate([d_h, d_t]), np.full(m, d_sigma), 0, hyper.SIGMA_LEVELS,
                    "prior_sigma", fixed=True)
    gp.outputs = [gp.lookup(sigma, tables.scale_indexes(scale_table, d_sigma, hyper.SIGMA_LEVELS + 1), 0,
                            name="prior_scale_index")]
    graphs["cond_prior.whm"] = gp

    # cond_synth: (C, y) → 48 channels at Δ 1/255, clamped to 0…255 → depth_to_space
    gs = Graph()
    cs = context_input(gs)
    x = gs.input("y", (m, GRID // 16, GRID // 16), *y_range)
    d = np.ones(m)
    for i in (0, 2):
        x, d = conv(gs, x, model.g_s[i], d, cal.step(f"g_s.{i}"), -ACT, ACT, f"g_s_{i}", transposed=True)
        x, d = inverse_gdn(gs, x, model.g_s[i + 1], d, cal.step(f"g_s.{i + 1}"), f"g_s_{i + 1}")
    x, d = conv(gs, gs.concat([x, cs], name="fuse_in"), model.fuse[0], np.concatenate([d, d_c]), cal.step("fuse.0"),
                -ACT, ACT, "fuse_0")
    x, d = inverse_gdn(gs, x, model.fuse[1], d, cal.step("fuse.1"), "fuse_1")
    blocks, _ = conv(gs, gs.concat([x, cs], name="out_in"), model.out, np.concatenate([d, d_c]),
                     np.full(3 * BLOCK * BLOCK, 1 / 255), 0, 255, "out", fixed=True)
    gs.outputs = [gs.depth_to_space(blocks, BLOCK, name="frame")]
    graphs["cond_synth.whm"] = gs

    # cond_g_a: (current, C) → y at step 1 inside y_range
    ga = Graph()
    cur = ga.input("current", (3, GRID, GRID), 0, 255)
    ca = context_input(ga)
    e, d_e = conv(ga, cur, model.g_a_embed[0], np.full(3, 1 / 255), cal.step("g_a_embed.1"), 0, ACT, "g_a_embed")
    x, d = conv(ga, ga.concat([e, ca], name="g_a_in"), model.g_a[0], np.concatenate([d_e, d_c]), cal.step("g_a.1"),
                0, ACT, "g_a_0")
    y, _ = conv(ga, x, model.g_a[2], d, np.ones(m), *y_range, "g_a_2", fixed=True)
    ga.outputs = [y]
    graphs["cond_g_a.whm"] = ga

    # cond_h_a: int_hyper's h_a on the coded y (step 1)
    graphs["cond_h_a.whm"] = hyper.analysis(model, lambda key: cal.step(key), y_range, np.ones(m), z_range)
    entropy = tables.entropy_json(model, med, z_range, y_range, scale_table)
    return Converted(graphs, entropy, {"y": y_range, "z": z_range, "context": c_range}, k)
