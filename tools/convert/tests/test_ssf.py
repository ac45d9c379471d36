"""The P-frame codec's conversion against the real host (docs/capabilities/video_int_motion.md
§2, §4): a small seeded ScaleSpaceFlow checkpoint as tools/train/train_ssf.py writes it is
converted, `waihost` must accept the set (every certificate verified on load), encode a clip
with it, and decode the clip to the same frames on the reference interpreter and the CPU
backend. RD figures are not asserted (tools/rd measures them)."""
import json
import subprocess

import numpy as np
import pytest
import torch
from PIL import Image

from waihost_convert import cli, video_eval
from waihost_convert.ssf_model import ScaleSpaceFlow


@pytest.fixture(scope="module")
def ssf_checkpoint(tmp_path_factory):
    """N=8, M=12, 3 scale levels, seeded; the flow's last layer given weights so the decoded
    flow moves samples (a fresh model starts at zero flow)."""
    torch.manual_seed(7)
    model = ScaleSpaceFlow(8, 12, 3)
    with torch.no_grad():
        model.motion_g_s[-1].weight.normal_(0, 0.05)
        model.motion_g_s[-1].bias.copy_(torch.tensor([0.75, -0.5, 0.6]))
        model.motion_g_a[-1].weight.mul_(8)
        model.residual_g_a[-1].weight.mul_(8)
    path = tmp_path_factory.mktemp("ssf") / "ssf.pt"
    torch.save({"model": model.state_dict(), "step": 0, "args": {"scales": 3}}, path)  # train_ssf.py's layout
    return path


@pytest.fixture(scope="module")
def media(tmp_path_factory):
    d = tmp_path_factory.mktemp("media")
    yy, xx = np.mgrid[0:45, 0:70]  # not multiples of 16: calibration runs on the host's extension
    rgb = np.stack([(xx * 4) % 256, (yy * 5) % 256, ((xx + 2 * yy) * 3) % 256], -1).astype(np.uint8)
    Image.fromarray(rgb).save(d / "cal.png")
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10",
                    "-frames:v", "5", "-pix_fmt", "yuv420p", str(d / "clip.y4m")], check=True)
    return d


def test_the_converted_set_decodes_a_clip_identically_on_every_unit(ssf_checkpoint, media, waihost, host_env, tmp_path):
    out = tmp_path / "set"
    rc = cli.main([str(ssf_checkpoint), "-o", str(out), "--calibration", str(media / "cal.png"), "-q"])
    assert rc == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["capability"] == "wai.video.int_motion"
    assert len(manifest["files"]) == 10
    rows = [video_eval.integer_clip(waihost, out, media / "clip.y4m", 3, unit=u, env=host_env)
            for u in ("reference", "cpu")]
    assert rows[0]["frames"] == 5 and len(rows[0]["frame_sha256"]) == 5
    assert rows[0]["frame_sha256"] == rows[1]["frame_sha256"]
    assert rows[0]["bytes"] == rows[1]["bytes"]  # the closed-loop encoder is exact too
    assert rows[0]["psnr"]["y"] > 0


def test_a_p_frame_checkpoint_with_a_missing_layer_is_refused_naming_it(ssf_checkpoint, media, tmp_path, capsys):
    state = torch.load(ssf_checkpoint, weights_only=True)
    del state["model"]["residual_g_s.6.weight"]
    bad = tmp_path / "bad.pt"
    torch.save(state, bad)
    rc = cli.main([str(bad), "-o", str(tmp_path / "set"), "--calibration", str(media / "cal.png"), "-q"])
    assert rc == 1
    err = capsys.readouterr().err
    assert "residual_g_s.6.weight" in err and "ScaleSpaceFlow(N=8, M=12)" in err
    assert not (tmp_path / "set").exists()
