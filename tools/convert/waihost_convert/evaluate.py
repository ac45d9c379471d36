"""PSNR (RGB, dB) and bits per pixel of the float model (CompressAI's own compress and
decompress) and of the integer model set (`waihost encode` / `waihost decode`)."""
import json
import math
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image


def load_rgb(path):
    return np.asarray(Image.open(path).convert("RGB"))


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return float("inf") if mse == 0 else 10 * math.log10(255 ** 2 / mse)


def to_tensor(rgb):
    return torch.from_numpy(rgb.copy()).permute(2, 0, 1).float()[None] / 255


def float_twin(model, rgb, latent_step=1.0, multiple=64):
    """The float model with y coded as round(y/q): the rate is its own likelihoods (ideal
    entropy coding of z and y), the picture is g_s in float rounded to 8 bits. The picture is
    extended to a multiple of `multiple` by repeating edges: 64 as CompressAI's examples do,
    16 as the host does (int_hyper.md §3), so that the float model sees the same picture and
    latent grid as the integer set, its convolutions zero-padding where the host's do."""
    h, w, _ = rgb.shape
    x = to_tensor(rgb)
    ph, pw = (multiple - h % multiple) % multiple, (multiple - w % multiple) % multiple
    xp = F.pad(x, (0, pw, 0, ph), mode="replicate")
    q = float(latent_step)
    with torch.no_grad():
        y = model.g_a(xp)
        z = model.h_a(torch.abs(y))
        z_hat, z_lik = model.entropy_bottleneck(z, training=False)
        scales = model.h_s(z_hat)[:, :, :y.shape[2], :y.shape[3]]  # h_s's grid is z's ×4, y's rounded up
        y_int = torch.round(y / q)
        y_lik = model.gaussian_conditional._likelihood(y_int, scales / q)
        y_lik = model.gaussian_conditional.likelihood_lower_bound(y_lik)
        rec = model.g_s(y_int * q)
    # only the latents of the picture's own 16-pixel blocks count, as the host codes them
    yh, yw = -(-h // 16), -(-w // 16)
    zh, zw = -(-yh // 4), -(-yw // 4)
    bits = float(-torch.log2(y_lik[:, :, :yh, :yw]).sum() - torch.log2(z_lik[:, :, :zh, :zw]).sum())
    dec = (rec[0, :, :h, :w].clamp(0, 1).permute(1, 2, 0).numpy() * 255).round().astype(np.uint8)
    return {"bpp": bits / (h * w), "psnr": psnr(rgb, dec)}


def integer_set(waihost, model_dir, rgb, unit=None):
    """The host's encode and decode of the picture (bare payload, so the bits are the codec's)."""
    h, w, _ = rgb.shape
    with tempfile.TemporaryDirectory() as tmp:
        src, wai, out = Path(tmp) / "in.png", Path(tmp) / "in.wai", Path(tmp) / "out.png"
        Image.fromarray(rgb).save(src)
        sel = ["--unit", unit] if unit else []
        subprocess.run([waihost, "encode", str(src), "--model", str(model_dir), "-o", str(wai), "--raw"] + sel,
                       check=True, capture_output=True)
        r = subprocess.run([waihost, "decode", str(wai), "--model", str(model_dir), "-o", str(out), "--json"] + sel,
                           check=True, capture_output=True, text=True)
        report = json.loads(r.stdout)
        dec = load_rgb(out)
        return {"bpp": 8 * wai.stat().st_size / (h * w), "psnr": psnr(rgb, dec), "sha256": report["sha256"],
                "unit": report.get("unit")}
