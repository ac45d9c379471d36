"""The converter against the real host: a small ScaleHyperprior checkpoint in CompressAI's own
format is converted, and `waihost` must accept the set (its certificate verified on load),
encode with it, and decode to exactly the same bytes on the reference interpreter and on the
CPU backend. RD figures are not asserted here (tools/rd measures them)."""
import json
import shutil
import subprocess

import numpy as np
import pytest
import torch
from compressai.models import ScaleHyperprior
from PIL import Image

from conftest import REPO
from waihost_convert import cli

@pytest.fixture(scope="session")
def checkpoint(tmp_path_factory):
    """Seeded N=8, M=12 model, its latents widened so that y and z take many values."""
    torch.manual_seed(11)
    model = ScaleHyperprior(N=8, M=12)
    with torch.no_grad():
        model.g_a[6].weight.mul_(60)
        model.h_a[4].weight.mul_(20)
        model.h_s[4].bias.add_(2)
    model.update(force=True)
    path = tmp_path_factory.mktemp("ckpt") / "tiny.pth.tar"
    torch.save({"epoch": 0, "state_dict": model.state_dict()}, path)  # compressai's examples/train.py layout
    return path


@pytest.fixture(scope="session")
def picture(tmp_path_factory):
    rng = np.random.default_rng(5)
    h, w = 40, 72
    yy, xx = np.mgrid[0:h, 0:w]
    rgb = np.stack([xx * 3, yy * 6, (xx + yy) * 2], -1) + rng.integers(0, 40, (h, w, 3))
    path = tmp_path_factory.mktemp("pic") / "pic.png"
    Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8)).save(path)
    return path


@pytest.fixture(scope="session")
def model_set(tmp_path_factory, checkpoint, picture):
    out = tmp_path_factory.mktemp("set") / "tiny"
    assert cli.main([str(checkpoint), "-o", str(out), "--name", "tiny-test", "--calibration", str(picture)]) == 0
    return out


def run(waihost, env, *args):
    r = subprocess.run([waihost, *map(str, args)], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r


def test_converted_set_encodes_and_decodes_identically_on_every_unit(waihost, host_env, model_set, picture, tmp_path):
    manifest = json.loads((model_set / "manifest.json").read_text())
    assert manifest["name"] == "tiny-test" and set(manifest["files"]) == {
        "entropy.json", "h_s.whm", "g_s.whm", "g_a.whm", "h_a.whm"}
    ref, cpu = tmp_path / "ref.wai", tmp_path / "cpu.wai"
    run(waihost, host_env, "encode", picture, "--model", model_set, "-o", ref, "--unit", "reference")
    run(waihost, host_env, "encode", picture, "--model", model_set, "-o", cpu, "--unit", "cpu")
    assert ref.read_bytes() == cpu.read_bytes()
    reports = {}
    for unit in ("reference", "cpu"):
        r = run(waihost, host_env, "decode", ref, "--model", model_set, "-o", tmp_path / f"{unit}.png",
                "--unit", unit, "--json", "--compare", picture)
        reports[unit] = json.loads(r.stdout)
    assert reports["cpu"]["backend"] == "cpu"
    assert reports["reference"]["sha256"] == reports["cpu"]["sha256"]
    assert (tmp_path / "reference.png").read_bytes() == (tmp_path / "cpu.png").read_bytes()
    # The latents really carry the picture: many distinct symbols, not a constant stream.
    payload = ref.read_bytes()
    assert len(payload) > 120
    assert reports["reference"]["comparison"]["original"] == str(picture)


def test_converter_is_deterministic(checkpoint, picture, model_set, tmp_path):
    again = tmp_path / "again"
    assert cli.main([str(checkpoint), "-o", str(again), "--name", "tiny-test", "--calibration", str(picture)]) == 0
    for f in ("manifest.json", "entropy.json", "g_a.whm", "h_a.whm", "h_s.whm", "g_s.whm"):
        assert (again / f).read_bytes() == (model_set / f).read_bytes(), f


def test_a_changed_container_is_refused_by_the_host(waihost, host_env, model_set, picture, tmp_path):
    bad = tmp_path / "bad"
    shutil.copytree(model_set, bad)
    data = bytearray((bad / "g_s.whm").read_bytes())
    data[100] ^= 1
    (bad / "g_s.whm").write_bytes(bytes(data))
    r = subprocess.run([waihost, "encode", str(picture), "--model", str(bad), "-o", str(tmp_path / "x.wai")],
                       env=host_env, capture_output=True, text=True)
    assert r.returncode == 1 and "g_s.whm" in r.stderr


def test_checkpoint_with_missing_and_unexpected_keys_is_refused_naming_them(checkpoint, picture, tmp_path, capsys):
    sd = torch.load(checkpoint, weights_only=True)["state_dict"]
    del sd["h_s.4.bias"]
    sd["g_s.7.weight"] = torch.zeros(1)
    bad = tmp_path / "bad.pth"
    torch.save(sd, bad)
    assert cli.main([str(bad), "-o", str(tmp_path / "out"), "--calibration", str(picture)]) == 1
    err = capsys.readouterr().err
    assert "missing keys ['h_s.4.bias']" in err and "unexpected keys ['g_s.7.weight']" in err
    assert not (tmp_path / "out").exists()


def test_file_that_is_not_a_checkpoint_is_refused(picture, tmp_path, capsys):
    bad = tmp_path / "notes.txt"
    bad.write_text("not a model")
    assert cli.main([str(bad), "-o", str(tmp_path / "out"), "--calibration", str(picture)]) == 1
    assert "not a PyTorch checkpoint" in capsys.readouterr().err



def test_hyper_analysis_reads_the_unrounded_latent_as_compressai_does(tmp_path):
    """CompressAI's h_a reads |y| before rounding; an integer h_a fed |round(y)| sees every |y| < ½
    as 0, its z moves and the scales h_s gives with it (the shipped sets spent 10–15 % more bits on
    y that way). g_a writes y at 2^-k steps, h_a reads that, the host codes y rounded (int_hyper.md
    §2.1 analysis_shift). On the shipped q1 float model, a picture the calibration did not see."""
    from waihost_convert import checkpoint as ck, convert, evaluate, modelset, simulate
    model, _, _ = ck.load(REPO / "samples" / "models" / "float" / "q1.pth.tar")
    model.update(force=True)
    photo = evaluate.load_rgb(REPO / "samples" / "photo.png")
    conv = convert.convert(model, [evaluate.to_tensor(photo[:256, :256])])
    k = conv.analysis_shift
    assert k == convert.ANALYSIS_SHIFT > 0
    modelset.write(conv, tmp_path / "set", "shift-test")
    assert json.loads((tmp_path / "set" / "manifest.json").read_text())["analysis_shift"] == k
    lo, hi = conv.g_a.interval(conv.g_a.outputs[0])
    assert conv.coded_y(np.array([lo, hi])).tolist() == list(conv.y_contract) and hi > conv.y_contract[1]

    test = photo[256:384, 192:448]
    analysed = simulate.run(conv.g_a, test.transpose(2, 0, 1).astype(np.int64))[conv.g_a.outputs[0]]
    with torch.no_grad():
        y = model.g_a(evaluate.to_tensor(test))
        med = model.entropy_bottleneck._get_medians().detach().reshape(1, -1, 1, 1)
        z_float = torch.round(model.h_a(torch.abs(y)) - med)[0].numpy()
    assert np.mean(conv.coded_y(analysed) == torch.round(y)[0].numpy()) > 0.95  # the coded y is round(y)
    z = simulate.run(conv.h_a, analysed)[conv.h_a.outputs[0]]
    z_of_rounded = simulate.run(conv.h_a, conv.coded_y(analysed) << k)[conv.h_a.outputs[0]]
    assert np.mean(z == z_float) > 0.98
    assert np.abs(z - z_float).mean() < 0.25 * np.abs(z_of_rounded - z_float).mean()
