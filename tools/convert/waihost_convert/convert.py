"""A float ScaleHyperprior → an integer int_hyper model set (docs/capabilities/int_hyper.md).

Every activation gets a per-channel step Δ (float value ≈ integer · Δ) from calibration
images: the largest magnitude a channel reaches maps to ±2047. A convolution's integer
weights are w·Δin/Δout·2^s with the largest shift s that keeps its certified accumulator
inside ±2^30, so its requantize is a plain rounding shift (multiplier 1). Inverse GDN is
the host's op with β and γ rescaled; forward GDN (analysis only) is built from host ops:
x² by lookup, the 1×1 γ convolution, 1/√n by lookup, and the product x·(1/√n) as an inverse
GDN over [x, 1/√n] whose γ picks the second half. h_s ends with σ quantised linearly and a
lookup to CompressAI's scale-table index, so the decoder never evaluates a float."""
import math

import numpy as np
import torch
import torch.nn.functional as F

from .calibration import ActivationStats
from .graph import Graph
from . import hyper, tables
from .layers import ACT, BUDGET, conv

GDN_OUT = 4095      # (inverse) GDN outputs are clamped to twice the calibrated range
SQ_SHIFT = 6          # inverse GDN's square_shift
# g_a writes y at 2^-ANALYSIS_SHIFT steps and h_a reads it so (int_hyper.md §2.1 analysis_shift);
# the host codes y = round(that / 2^k). CompressAI's h_a sees the unrounded y: on |round(y)| instead
# z shrinks (|y| < ½ becomes 0), h_s's σ drop one to two scale-table steps and y costs 10–15 % more.
# 8, not 4: y is rounded twice (to 2^-k by g_a, to 1 by the host), and at 2^-4 that moved 0.6 % of
# the y symbols across a half (+2 % bits, most of them 0 → ±1 where σ is small); at 2^-8 0.08 %,
# as many as g_a's own error gives. ±63·2^8 stays 16-bit.
ANALYSIS_SHIFT = 8
R_SCALE = 32767 * 8   # forward GDN: 1/√n table holds R_SCALE/√i (i ≥ 64 unclamped)


def gdn_params(module):
    beta = module.beta_reparam(module.beta).detach().double().numpy()
    gamma = module.gamma_reparam(module.gamma).detach().double().numpy()
    return beta, gamma


class Calibration(ActivationStats):
    """Per-channel max |value| at every point the integer graphs quantise, over the images."""

    def __init__(self, model, images, latent_step=1.0):
        self.q = latent_step
        super().__init__(model, [(im,) for im in images])

    def _run(self, model, x):
        h = h_in = x   # h_in: the input of the layer before (each GDN's input)
        for i, layer in enumerate(model.g_a):
            h = layer(h)
            if i % 2 == 0 and i < 6:
                self._note(f"g_a.{i}", h)
            elif i % 2 == 1:
                beta, gamma = gdn_params(layer)
                self._note(f"g_a.{i}.in", h_in)
                self._note(f"g_a.{i}.n", F.conv2d(h_in ** 2, torch.from_numpy(gamma).float()[:, :, None, None],
                                                   torch.from_numpy(beta).float()))
                self._note(f"g_a.{i}", h)
            h_in = h
        y = h
        self._note("y", y / self.q)
        h = self._hyper_analysis(model, y)
        for i, layer in enumerate(model.h_s):
            h = layer(h)
            if i in (1, 3):
                self._note(f"h_s.{i}", h)
        h = torch.round(y / self.q) * self.q
        for i, layer in enumerate(model.g_s):
            h = layer(h)
            if i < 6:
                self._note(f"g_s.{i}", h)


def inverse_gdn(g, x, module, d_x, d_y, name):
    """CompressAI's inverse GDN y = x·√(β + γx²) as the host's op; returns (tensor, Δ of y)."""
    beta, gamma = gdn_params(module)
    a, b = g.interval(x)
    xmax = max(abs(a), abs(b))
    n_worst = beta + gamma @ ((xmax * d_x) ** 2)
    # y = x·isqrt(K·n) / 2^s, so Δy = Δx·2^s/√K: the largest s for which K·n_worst fits.
    ratio = d_y / d_x
    s = 30
    while s > 0 and np.any((d_x * 2.0 ** s / d_y) ** 2 * n_worst > 0.95 * 2 ** 31):
        s -= 1
    k = (2.0 ** s / ratio) ** 2
    beta_q = np.rint(beta * k)
    gamma_q = np.rint(gamma * (d_x[None, :] ** 2) * 2.0 ** SQ_SHIFT * k[:, None])
    out = g.inverse_gdn(x, beta_q.astype(np.int64), gamma_q.astype(np.int64), SQ_SHIFT, s, name=name)
    return g.clamp(out, -GDN_OUT, GDN_OUT, name=name + "_clamp"), d_x * 2.0 ** s / np.sqrt(k)


def forward_gdn(g, x, module, d_x, n_max, y_max, name):
    """CompressAI's GDN y = x / √(β + γx²) from host ops (analysis side only)."""
    beta, gamma = gdn_params(module)
    c = len(beta)
    lo, hi = g.interval(x)
    sq = g.lookup(x, [(v * v) >> 7 for v in range(lo, hi + 1)], lo, name=name + "_square")
    sq_hi = g.interval(sq)[1]
    # n_int = K·n ≈ βK + Σ γK·Δx²·2^7 · sq
    unit = gamma * (d_x[None, :] ** 2) * 128.0
    k_int16 = 32767 / np.maximum(unit.max(1), 1e-30)
    k_budget = BUDGET / (beta + unit.sum(1) * sq_hi)
    k = np.minimum(k_int16, k_budget)
    wq = np.rint(unit * k[:, None])[:, :, None, None]
    n = g.conv(sq, wq.astype(np.int64), np.rint(beta * k).astype(np.int64), 1, 0, name=name + "_norm")
    # index i = n_int >> s ≈ n / Dr, with the calibrated largest n at about 65535
    shifts = [max(0, min(31, math.ceil(math.log2(max(k[o] * n_max[o] / 65535, 1e-30))))) for o in range(c)]
    d_r = np.array([2.0 ** s for s in shifts]) / k
    idx = g.requantize(n, [1] * c, shifts, 0, 65535, name=name + "_norm_index")
    r = g.lookup(idx, [min(32767, round(R_SCALE / math.sqrt(max(i, 0.25)))) for i in range(65536)], 0,
                 name=name + "_rsqrt")
    both = g.concat([x, r], name=name + "_pair")
    # y = x·r / 2^s, Δy = Δx·2^s/(R_SCALE·√Dr): the smallest s that keeps every channel in ACT.
    s = 0
    while s < 30 and np.any(y_max / (d_x * 2.0 ** s / (R_SCALE * np.sqrt(d_r))) > ACT):
        s += 1
    gamma_pick = np.zeros((2 * c, 2 * c), dtype=np.int64)
    for o in range(c):
        gamma_pick[o, c + o] = 1
    prod = g.inverse_gdn(both, [0] * (2 * c), gamma_pick, 0, s, name=name + "_product")
    pick = np.zeros((c, 2 * c, 1, 1), dtype=np.int64)
    for o in range(c):
        pick[o, o] = 1
    sel = g.conv(prod, pick, [0] * c, 1, 0, name=name + "_select")
    return g.clamp(sel, -GDN_OUT, GDN_OUT, name=name + "_clamp"), d_x * 2.0 ** s / (R_SCALE * np.sqrt(d_r))


class Converted:
    def __init__(self, g_a, h_a, h_s, g_s, entropy, y_contract, z_contract, analysis_shift=0):
        self.g_a, self.h_a, self.h_s, self.g_s = g_a, h_a, h_s, g_s
        self.entropy = entropy
        self.y_contract, self.z_contract = y_contract, z_contract
        self.analysis_shift = analysis_shift

    def coded_y(self, analysed):
        """The y the host codes from g_a's output (the rounding shift by analysis_shift)."""
        k = self.analysis_shift
        return analysed if k == 0 else (analysed + (1 << (k - 1))) >> k


def convert(model, calibration_images, latent_step=1.0):
    """latent_step q: y is coded as round(y/q) (q = 1 is CompressAI's own quantisation); a
    larger q gives a lower rate from the same float model."""
    m = model.g_a[6].weight.shape[0]
    q_y = float(latent_step)
    cal = Calibration(model, calibration_images, q_y)
    y_max = int(max(63, math.ceil(1.5 * cal.stats["y"].max())))
    y_contract = (-y_max, y_max)
    med = hyper.medians(model)
    z_contract = hyper.z_contract(model, cal.stats["z"].max())

    # g_a: picture (Δ 1/255) → y (Δ 1)
    ga = Graph()
    x = ga.input("picture", (3, 16, 16), 0, 255)
    d = np.full(3, 1 / 255)
    for i in (0, 2, 4):
        d_out = cal.step(f"g_a.{i}")
        x, d_out = conv(ga, x, model.g_a[i], d, d_out, -ACT, ACT, f"g_a_{i}")
        x, d = forward_gdn(ga, x, model.g_a[i + 1], d_out, cal.stats[f"g_a.{i + 1}.n"], cal.stats[f"g_a.{i + 1}"],
                           f"g_a_{i + 1}")
    # y at 2^-k steps, inside ±y_max·2^k, whose rounding shift lies inside y's contract
    k = ANALYSIS_SHIFT
    fine = (y_contract[0] << k, y_contract[1] << k)
    y, _ = conv(ga, x, model.g_a[6], d, np.full(m, q_y / (1 << k)), *fine, "g_a_6", fixed=True)
    ga.outputs = [y]

    # h_a: g_a's y (2^-k steps) → |y| → z (Δ 1, the medians subtracted); h_s: z → scale index
    step = lambda key: cal.step(key)
    ha = hyper.analysis(model, step, fine, np.full(m, q_y / (1 << k)), z_contract)
    hs, scale_table = hyper.synthesis(model, step, z_contract, q_y)

    # g_s: y (Δ 1) → RGB (Δ 1/255, 0…255)
    gs = Graph()
    x = gs.input("y", (m, 1, 1), *y_contract)
    d = np.full(m, q_y)
    for i in (0, 2, 4):
        d_out = cal.step(f"g_s.{i}")
        x, d_out = conv(gs, x, model.g_s[i], d, d_out, -ACT, ACT, f"g_s_{i}", transposed=True)
        x, d = inverse_gdn(gs, x, model.g_s[i + 1], d_out, cal.step(f"g_s.{i + 1}"), f"g_s_{i + 1}")
    rgb, _ = conv(gs, x, model.g_s[6], d, np.full(3, 1 / 255), 0, 255, "g_s_6", transposed=True, fixed=True)
    gs.outputs = [rgb]

    entropy = tables.entropy_json(model, med, z_contract, y_contract, scale_table)
    return Converted(ga, ha, hs, gs, entropy, y_contract, z_contract, k)
