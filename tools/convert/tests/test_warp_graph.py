"""The converter's warp (docs/integer-ops.md §4.10) against the real host: a graph built by
waihost_convert.graph is accepted by the host's certificate verifier (so the Python rule
computes the host's intervals) and runs to the same outputs on the reference interpreter
and the CPU backend; a volume too wide for its fractional bits is refused in Python first.
Needs only numpy (no torch)."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from waihost_convert.graph import CertificateError, Graph

REPO = Path(__file__).resolve().parents[3]


def waihost_bin():
    exe = os.environ.get("WAIHOST_BIN") or str(REPO / ".build" / "debug" / "waihost")
    assert Path(exe).is_file(), f"{exe} not built (swift build) and WAIHOST_BIN not set"
    return exe


def ssf_like_graph(frac_bits=4):
    """Frame and two blurred copies (here: the same frame) as a 3-scale volume, warped."""
    g = Graph()
    x = g.input("x", (3, 6, 9), 0, 255)
    flow = g.input("flow", (3, 6, 9), -80, 80)
    volume = g.concat([x, x, x], name="volume")
    y = g.warp(volume, flow, scales=3, frac_bits=frac_bits, name="y")
    g.outputs = [y]
    return g, y


def test_the_python_rule_is_the_hosts_and_every_unit_agrees(tmp_path):
    g, y = ssf_like_graph()
    assert (g.tensors[y].shape, g.tensors[y].lo, g.tensors[y].hi) == ((3, 6, 9), 0, 255)
    model = tmp_path / "warp.whm"
    model.write_bytes(g.encode())
    exe = waihost_bin()
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    for so in Path(exe).parent.glob("libWaiCPUBackend.so"):
        shutil.copy(so, plugins)
    env = dict(os.environ, WAI_PLUGIN_PATH=str(plugins), WAIHOST_CACHE_DIR=str(tmp_path / "cache"))
    hashes = {}
    for unit in ["reference", "cpu"]:
        r = subprocess.run([exe, "run-graph", str(model), "--unit", unit, "--json"], env=env,
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        report = json.loads(r.stdout)
        assert report["report"]["backend"] == ("reference" if unit == "reference" else "cpu"), report["report"]
        hashes[unit] = report["outputs_sha256"]
    assert hashes["reference"] == hashes["cpu"]


def test_a_volume_too_wide_for_its_fractional_bits_is_refused():
    g = Graph()
    v = g.input("v", (2, 4, 4), -32768, 32767)
    f = g.input("f", (3, 4, 4), -8, 8)
    g.warp(v, f, scales=2, frac_bits=5)
    with pytest.raises(CertificateError, match="partial sums of acc"):
        g.warp(v, f, scales=2, frac_bits=6)
    with pytest.raises(CertificateError, match="scales"):
        g.warp(v, f, scales=3, frac_bits=1)
