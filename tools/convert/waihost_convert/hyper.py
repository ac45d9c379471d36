"""A scale hyperprior's two hyper graphs (docs/capabilities/int_hyper.md §2.3): h_a reads y at
2^-k steps and writes z with the medians subtracted; h_s adds the medians back at 1/64 and
ends in the scale-table index. Shared by the picture codec (convert.py) and both latents of
the P-frame codec (ssf.py): `lat` is anything with CompressAI ScaleHyperprior's h_a, h_s,
entropy_bottleneck and gaussian_conditional; `step(key)` gives the calibrated steps of the
activation after layer `key` ("h_a.1", "h_s.3", …)."""
import numpy as np

from . import tables
from .graph import Graph
from .layers import ACT, conv

SIGMA_LEVELS = 65535  # σ / Δσ in 0…65535 before the scale-index lookup
Z_SCALE_SHIFT = 6     # h_s adds the medians to z at 1/64 resolution


def medians(lat):
    return lat.entropy_bottleneck._get_medians().detach().double().reshape(-1).numpy()


def z_contract(lat, z_calibrated_max):
    """±(the entropy bottleneck's reach, or the calibrated z, + 2), at least ±8."""
    q = lat.entropy_bottleneck.quantiles.detach().double().reshape(-1, 3).numpy()
    reach = max(np.max(q[:, 2] - q[:, 1]), np.max(q[:, 1] - q[:, 0]), z_calibrated_max)
    z_max = int(max(8, np.ceil(reach) + 2))
    return (-z_max, z_max)


def analysis(lat, step, fine, d_y, z_range, prefix=""):
    """h_a: y at steps d_y inside `fine` → |y| → z (Δ 1, the medians subtracted)."""
    m, n = lat.h_a[0].weight.shape[1], lat.h_a[4].weight.shape[0]
    ha = Graph()
    x = ha.input("y", (m, 4, 4), *fine)
    x = ha.lookup(x, [abs(v) for v in range(fine[0], fine[1] + 1)], fine[0], name=f"{prefix}h_a_abs")
    d = d_y
    for i in (0, 2):
        x, d = conv(ha, x, lat.h_a[i], d, step(f"h_a.{i + 1}"), 0, ACT, f"{prefix}h_a_{i}")
    z, _ = conv(ha, x, lat.h_a[4], d, np.ones(n), *z_range, f"{prefix}h_a_4", extra_bias=-medians(lat), fixed=True)
    ha.outputs = [z]
    return ha


def synthesis(lat, step, z_range, q_y=1.0, prefix=""):
    """h_s: z → ẑ = z + median at 1/64 → σ/Δσ → the scale index of docs/capabilities/int_hyper.md §2.2."""
    n, m = lat.h_s[0].weight.shape[0], lat.h_s[4].weight.shape[0]
    med = medians(lat)
    hs = Graph()
    x = hs.input("z", (n, 1, 1), *z_range)
    eye = np.zeros((n, n, 1, 1), dtype=np.int64)
    for c in range(n):
        eye[c, c] = 1 << Z_SCALE_SHIFT
    x = hs.conv(x, eye, np.rint(med * (1 << Z_SCALE_SHIFT)).astype(np.int64), 1, 0, name=f"{prefix}h_s_median")
    d = np.full(n, 1.0 / (1 << Z_SCALE_SHIFT))
    for i in (0, 2):
        x, d = conv(hs, x, lat.h_s[i], d, step(f"h_s.{i + 1}"), 0, ACT, f"{prefix}h_s_{i}", transposed=True)
    # σ in units of y's step: the tables are indexed by σ/q
    scale_table = tables.scale_table(lat)
    d_sigma = float(scale_table[-1]) / SIGMA_LEVELS
    x, _ = conv(hs, x, lat.h_s[4], d, np.full(m, d_sigma * q_y), 0, SIGMA_LEVELS, f"{prefix}h_s_4", fixed=True)
    idx = hs.lookup(x, tables.scale_indexes(scale_table, d_sigma, SIGMA_LEVELS + 1), 0,
                    name=f"{prefix}h_s_scale_index")
    hs.outputs = [idx]
    return hs, scale_table
