"""entropy.json (docs/capabilities/int_hyper.md §2.2) from the float model: z tables from the
learned entropy bottleneck, y tables from the Gaussian conditional at each scale-table σ."""
import json
import math

import numpy as np
import torch
from compressai.models.google import get_scale_table

PRECISION = 16
TAIL_SIGMAS = 6.0


def scale_table(model):
    t = model.gaussian_conditional.scale_table
    return (t if t.numel() > 0 else get_scale_table()).double().numpy()


def scale_indexes(table, d_sigma, length):
    """Lookup table: σ quantised to i·Δσ → CompressAI's build_indexes (the first table σ at or
    above the scale, with the scale lower-bounded at the table's first entry)."""
    sig = np.maximum(np.arange(length) * d_sigma, table[0])
    idx = np.full(length, len(table) - 1)
    for s in table[:-1]:
        idx -= (sig <= s)
    return idx.tolist()


def quantise(p, total=1 << PRECISION):
    """Every symbol ≥ 1, the rest by probability, the remainder to the most probable symbol."""
    p = np.asarray(p, dtype=np.float64)
    p = np.maximum(p, 0)
    p = p / p.sum()
    spare = total - len(p)
    f = 1 + np.floor(p * spare).astype(np.int64)
    f[int(np.argmax(p))] += total - int(f.sum())
    return f


def table(p_direct, offset):
    """Direct symbols with probabilities p_direct starting at value offset, escape last."""
    tail = max(0.0, 1.0 - float(np.sum(p_direct)))
    f = quantise(np.append(p_direct, tail))
    cdf = np.concatenate([[0], np.cumsum(f)])
    return {"offset": int(offset), "escape": len(f) - 1, "cdf": [int(v) for v in cdf]}


def _phi(x):
    return 0.5 * (1 + torch.erf(x / math.sqrt(2)))


def z_tables(model, med, contract):
    eb = model.entropy_bottleneck
    lo, hi = contract
    values = torch.arange(lo, hi + 1, dtype=torch.float32)
    samples = values[None, None, :] + torch.from_numpy(med).float()[:, None, None]
    with torch.no_grad():
        p, _, _ = eb._likelihood(samples, stop_gradient=True)
    p = p.reshape(len(med), -1).double().numpy()
    return [table(p[c], lo) for c in range(len(med))]


def y_tables(table_sigmas, contract):
    out = []
    for sigma in table_sigmas:
        r = max(1, math.ceil(TAIL_SIGMAS * sigma))
        lo, hi = max(contract[0], -r), min(contract[1], r)
        v = torch.arange(lo, hi + 1, dtype=torch.float64)
        p = (_phi((v + 0.5) / sigma) - _phi((v - 0.5) / sigma)).numpy()
        out.append(table(p, lo))
    return out


def entropy_json(model, med, z_contract, y_contract, table_sigmas) -> bytes:
    def line(t):
        return json.dumps(t, separators=(", ", ": "))
    zt = z_tables(model, med, z_contract)
    yt = y_tables(table_sigmas, y_contract)
    text = ("{\n  \"format\": \"wai.neural.int_hyper entropy model\",\n  \"format_version\": 1,\n"
            f"  \"precision\": {PRECISION},\n  \"z_tables\": [\n"
            + ",\n".join("    " + line(t) for t in zt) + "\n  ],\n  \"y_tables\": [\n"
            + ",\n".join("    " + line(t) for t in yt) + "\n  ]\n}\n")
    return text.encode()
