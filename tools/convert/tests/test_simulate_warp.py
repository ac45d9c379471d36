"""The converter's integer simulator (waihost_convert.simulate) runs the warp exactly as
docs/integer-ops.md §4.10 says: on graphs built by waihost_convert.graph — a scale-space
prediction as wai.video.int_motion makes it (blur convs, requantize, concat, a conv-made
flow, warp, add, clamp) and bare warps whose flow reaches past every border and both scale
ends — every output equals the host's reference interpreter bit for bit (`waihost
run-graph --unit reference`, with the CLI's seeded inputs regenerated here)."""
import hashlib
import json
import os
import subprocess

import numpy as np
import pytest

from conftest import waihost_bin
from waihost_convert import simulate
from waihost_convert.graph import Graph

MASK64 = (1 << 64) - 1


class SplitMix64:
    """The host's generator (Sources/WaiCore/Support/SplitMix64.swift)."""

    def __init__(self, seed):
        self.state = seed & MASK64

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def int(self, lo, hi):
        span = (hi - lo + 1) & MASK64
        return lo + (self.next() % span) if span else self.next()


def seeded_inputs(g, seed):
    """`waihost run-graph --input-seed` (docs/cli.md): every input uniform in its interval."""
    rng = SplitMix64(seed)
    out = []
    for t in g.inputs:
        spec = g.tensors[t]
        n = int(np.prod(spec.shape))
        out.append(np.array([rng.int(spec.lo, spec.hi) for _ in range(n)], dtype=np.int64).reshape(spec.shape))
    return out


def reference_hashes(g, seed, tmp_path):
    model = tmp_path / f"graph-{seed}.whm"
    model.write_bytes(g.encode())
    plugins = tmp_path / "no-plugins"
    plugins.mkdir(exist_ok=True)
    env = dict(os.environ, WAI_PLUGIN_PATH=str(plugins), WAIHOST_CACHE_DIR=str(tmp_path / "cache"))
    r = subprocess.run([waihost_bin(), "run-graph", str(model), "--unit", "reference", "--input-seed", str(seed), "--json"],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    return [o["sha256"] for o in report["outputs"]], report["outputs_sha256"]


def sha(values):
    return hashlib.sha256(np.asarray(values, dtype="<i4").tobytes()).hexdigest()


def binomial_blur():
    taps = np.array([1, 4, 6, 4, 1])
    k = np.outer(taps, taps)
    w = np.zeros((3, 3, 5, 5), dtype=np.int64)
    for c in range(3):
        w[c, c] = k
    return w


def ssf_prediction(h=14, w=19, frac_bits=4):
    """Frame, two blurred copies → 3-scale volume; flow by a 3×3 conv of a motion feature;
    warp; residual added; clamp to 0…255 (docs/probe.md, `decode`, the same shape)."""
    g = Graph()
    frame = g.input("frame", (3, h, w), 0, 255)
    motion = g.input("motion", (4, h, w), -64, 63)
    residual = g.input("residual", (3, h, w), -32, 31)
    volume, x = [frame], frame
    for s in (1, 2):
        acc = g.conv(x, binomial_blur(), [0, 0, 0], stride=1, pad=2, name=f"blur_{s}")
        x = g.requantize(acc, [1, 1, 1], [8, 8, 8], 0, 255, name=f"scale_{s}")
        volume.append(x)
    v = g.concat(volume, name="volume")
    rng = np.random.default_rng(7)
    fw = rng.integers(-8, 9, size=(3, 4, 3, 3))
    flow_acc = g.conv(motion, fw, [0, 0, 512], stride=1, pad=1, name="flow_conv")
    flow = g.requantize(flow_acc, [1, 1, 1], [4, 4, 5], -128, 127, name="flow")
    y = g.warp(v, flow, scales=3, frac_bits=frac_bits, name="prediction")
    out = g.clamp(g.add(y, residual, name="reconstruction"), 0, 255, name="frame_out")
    g.outputs = [flow, y, out]
    return g


def bare_warp(c, s, h, w, frac_bits, volume, reach):
    g = Graph()
    e = 1 << frac_bits
    v = g.input("volume", (s * c, h, w), *volume)
    f = g.input("flow", (3, h, w), -reach * e, reach * e)
    g.outputs = [g.warp(v, f, scales=s, frac_bits=frac_bits, name="y")]
    return g


GRAPHS = {
    "ssf_prediction": ssf_prediction,
    # Narrow volume at the certificate's F = 5 edge, flow past every border.
    "narrow_f5": lambda: bare_warp(2, 3, 5, 9, 5, (-32768, 32767), 12),
    # F = 0: integer offsets, no rounding, all of int32 in the volume.
    "wide_f0": lambda: bare_warp(1, 4, 4, 6, 0, (-(1 << 31), (1 << 31) - 1), 9),
    # F = 10 at acc's int32 edge: volume [-2, 1].
    "wide_f10": lambda: bare_warp(3, 2, 3, 7, 10, (-2, 1), 10),
    "one_scale_f3": lambda: bare_warp(3, 1, 6, 5, 3, (-1000, 1000), 8),
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_the_simulator_computes_the_references_integers(name, tmp_path):
    g = GRAPHS[name]()
    for seed in (1, 2):
        values = simulate.run(g, seeded_inputs(g, seed))
        expected, whole = reference_hashes(g, seed, tmp_path)
        got = [sha(values[t]) for t in g.outputs]
        assert got == expected, f"{name} seed {seed}: outputs differ from the reference"
        assert hashlib.sha256(b"".join(np.asarray(values[t], dtype="<i4").tobytes() for t in g.outputs)).hexdigest() == whole


def test_the_warp_rounds_once_with_ties_toward_plus_infinity():
    # F = 1, half a column right of x = 0 over -3 and -2: acc = 4·(-3) + 4·(-2) = -20, and
    # rnd(-20, 3) = -2 (the tie -2.5 goes up), not -3 (away from zero).
    v = np.array([[[-3, -2]]])
    flow = np.array([[[1, 0]], [[0, 0]], [[0, 0]]])
    assert simulate.warp(v, flow, scales=1, frac_bits=1).tolist() == [[[-2, -2]]]


def test_the_warp_clamps_the_coordinate_before_splitting_it():
    # dx = -E/2 at x = 0 reads the border sample itself (no blend with x = 1); ds past the
    # last scale reads it; a negative ds reads scale 0.
    e = 8
    v = np.array([[[10, 50]], [[20, 60]]])  # S = 2, C = 1, 1×2
    flow = np.array([[[-e // 2, e // 2]], [[0, 0]], [[-3, 5 * e]]])
    assert simulate.warp(v, flow, scales=2, frac_bits=3).tolist() == [[[10, 60]]]


def test_zero_flow_is_the_identity_on_scale_zero():
    rng = np.random.default_rng(3)
    v = rng.integers(-32768, 32768, size=(6, 4, 5))
    y = simulate.warp(v, np.zeros((3, 4, 5), dtype=np.int64), scales=3, frac_bits=5)
    assert (y == v[:2]).all()
