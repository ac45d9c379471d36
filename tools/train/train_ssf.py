"""Train a scale-space-flow P-frame codec (Agustsson et al., CVPR 2020; CompressAI's ssf2020)
in the integer-friendly form of wai.video.int_motion, on camera pans and zooms made from the
Debian-shipped photographs of dataset.py.

Differences from CompressAI's ssf2020, each so that the integer graphs can compute exactly
what was trained:
- the flow is in pixel units (dx, dy) and scale steps (ds), not grid_sample's normalised
  coordinates, so one set codes every frame size;
- the scale-space volume is built from a fixed 5x5 binomial blur (zero padding) ([1 4 6 4 1] outer itself,
  / 256) applied 2^k - 1 times for level k (--scales levels), not Gaussian kernels with
  pooling: fixed-weight convs in the existing integer ops;
- the warp is trilinear with border padding on every axis and pixel centres at integer
  coordinates (docs/integer-ops.md section 4.10), i.e. grid_sample(align_corners=True);
- both latents use scale hyperpriors (h_s gives scales only, as in wai.neural.int_hyper),
  with CompressAI's ScaleHyperprior layer layout for h_a and h_s.

The reference frame is the previous frame as the intra codec reconstructs it (a trained
wai.neural.int_hyper float checkpoint, --intra), so the P-frame codec learns to correct the
intra codec's errors as it must at decode time.

Seeded and resumable like train.py: checkpoints every --save-every steps under --work.
"""
import argparse
import json
import math
import os
import random
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from compressai.entropy_models import EntropyBottleneck, GaussianConditional
from compressai.models import ScaleHyperprior
from compressai.models.utils import conv, deconv
from PIL import Image

from dataset import training_images
from train import cpu_has_amx

SCALES_MIN, SCALES_MAX, SCALES_LEVELS = 0.11, 256, 64  # CompressAI's default scale table


def analysis(cin, n, m):
    return nn.Sequential(conv(cin, n), nn.ReLU(), conv(n, n), nn.ReLU(), conv(n, n), nn.ReLU(), conv(n, m))


def synthesis(m, n, cout):
    return nn.Sequential(deconv(m, n), nn.ReLU(), deconv(n, n), nn.ReLU(), deconv(n, n), nn.ReLU(), deconv(n, cout))


class ScaleHyperpriorLatent(nn.Module):
    """One hyperprior-coded latent: CompressAI ScaleHyperprior's h_a, h_s and entropy models."""

    def __init__(self, n, m):
        super().__init__()
        self.h_a = nn.Sequential(conv(m, n, 3, 1), nn.ReLU(), conv(n, n), nn.ReLU(), conv(n, n))
        self.h_s = nn.Sequential(deconv(n, n), nn.ReLU(), deconv(n, n), nn.ReLU(), conv(n, m, 3, 1), nn.ReLU())
        self.entropy_bottleneck = EntropyBottleneck(n)
        self.gaussian_conditional = GaussianConditional(None)

    def forward(self, y):
        z = self.h_a(torch.abs(y))
        z_hat, z_lik = self.entropy_bottleneck(z)
        scales = self.h_s(z_hat)
        y_hat, y_lik = self.gaussian_conditional(y, scales)
        return y_hat, (y_lik, z_lik)


def binomial_kernel(channels):
    k1 = torch.tensor([1.0, 4.0, 6.0, 4.0, 1.0])
    k = torch.outer(k1, k1) / 256.0
    return k.expand(channels, 1, 5, 5).contiguous()


class ScaleSpaceFlow(nn.Module):
    def __init__(self, n, m, scales):
        super().__init__()
        self.scales = scales
        self.motion_g_a = analysis(6, n, m)
        self.motion = ScaleHyperpriorLatent(n, m)
        self.motion_g_s = synthesis(m, n, 3)
        self.residual_g_a = analysis(3, n, m)
        self.residual = ScaleHyperpriorLatent(n, m)
        self.residual_g_s = synthesis(2 * m, n, 3)
        self.register_buffer("blur", binomial_kernel(3), persistent=False)
        # Zero latents should predict "no motion": start the flow at zero.
        nn.init.zeros_(self.motion_g_s[-1].weight)
        nn.init.zeros_(self.motion_g_s[-1].bias)

    def volume(self, ref):
        """(N, 3, S, H, W): level k is the binomial blur applied 2^k - 1 times, with the zero
        padding of the integer graph's conv2d (video_int_motion.md section 4)."""
        levels, cur, applied = [ref], ref, 0
        for k in range(1, self.scales):
            while applied < 2 ** k - 1:
                cur = F.conv2d(cur, self.blur, padding=2, groups=3)
                applied += 1
            levels.append(cur)
        return torch.stack(levels, dim=2)

    def warp(self, vol, flow):
        n, _, s, h, w = vol.shape
        jj = torch.arange(w, dtype=flow.dtype).view(1, 1, w)
        ii = torch.arange(h, dtype=flow.dtype).view(1, h, 1)
        x = (jj + flow[:, 0]).clamp(0, w - 1) * (2 / max(w - 1, 1)) - 1
        y = (ii + flow[:, 1]).clamp(0, h - 1) * (2 / max(h - 1, 1)) - 1
        z = flow[:, 2].clamp(0, s - 1) * (2 / max(s - 1, 1)) - 1
        grid = torch.stack((x, y, z), dim=-1).unsqueeze(1)  # (N, 1, H, W, 3)
        out = F.grid_sample(vol, grid, mode="bilinear", padding_mode="border", align_corners=True)
        return out.squeeze(2)

    def forward(self, cur, ref):
        y_m = self.motion_g_a(torch.cat((cur, ref), dim=1))
        y_m_hat, lik_m = self.motion(y_m)
        flow = self.motion_g_s(y_m_hat)
        with torch.autocast("cpu", enabled=False):  # the volume and the warp stay fp32
            pred = self.warp(self.volume(ref.float()), flow.float())
        y_r = self.residual_g_a(cur - pred)
        y_r_hat, lik_r = self.residual(y_r)
        x_hat = pred + self.residual_g_s(torch.cat((y_r_hat, y_m_hat), dim=1))
        return {"x_hat": x_hat, "pred": pred, "likelihoods": lik_m + lik_r}

    def aux_loss(self):
        return self.motion.entropy_bottleneck.loss() + self.residual.entropy_bottleneck.loss()

    def update(self):
        table = torch.exp(torch.linspace(math.log(SCALES_MIN), math.log(SCALES_MAX), SCALES_LEVELS))
        for lat in (self.motion, self.residual):
            lat.gaussian_conditional.update_scale_table(table, force=True)
            lat.entropy_bottleneck.update(force=True)


class CameraPairs:
    """(reference, current) pairs of one photograph seen by a moving camera: the current
    frame is the reference's view shifted, zoomed and slightly rotated, sampled bilinearly
    from a larger crop so no border enters the frame."""

    def __init__(self, paths, patch, long_sides=(512, 768, 1024)):
        self.patch = patch
        self.images = []
        for p in paths:
            im = Image.open(p).convert("RGB")
            for side in long_sides:
                f = side / max(im.size)
                if f >= 1:
                    continue
                small = im.resize((round(im.width * f), round(im.height * f)), Image.LANCZOS)
                if min(small.size) >= 2 * patch:
                    self.images.append(torch.from_numpy(np.asarray(small).copy()).permute(2, 0, 1))

    def batch(self, n, rng, max_shift):
        refs, curs = [], []
        big = 2 * self.patch
        for _ in range(n):
            im = self.images[rng.randrange(len(self.images))]
            _, h, w = im.shape
            i, j = rng.randrange(h - big + 1), rng.randrange(w - big + 1)
            crop = im[:, i:i + big, j:j + big].float().unsqueeze(0) / 255.0
            if rng.random() < 0.5:
                crop = crop.flip(3)
            views = []
            for moved in (False, True):
                zoom = 1.0 if not moved else math.exp(rng.uniform(-0.06, 0.06))
                angle = 0.0 if not moved else math.radians(rng.uniform(-1.5, 1.5))
                tx = 0.0 if not moved else rng.uniform(-max_shift, max_shift)
                ty = 0.0 if not moved else rng.uniform(-max_shift, max_shift)
                c, s = math.cos(angle) / zoom, math.sin(angle) / zoom
                half = self.patch / big  # the view covers the central half of the crop
                theta = torch.tensor([[c * half, -s * half, 2 * tx / big], [s * half, c * half, 2 * ty / big]])
                grid = F.affine_grid(theta.unsqueeze(0), (1, 3, self.patch, self.patch), align_corners=False)
                views.append(F.grid_sample(crop, grid, mode="bilinear", padding_mode="border", align_corners=False)[0])
            refs.append(views[0])
            curs.append(views[1])
        return torch.stack(refs), torch.stack(curs)


def load_intra(path):
    state = torch.load(path, map_location="cpu", weights_only=False)
    state = state.get("state_dict", state.get("model", state))
    model = ScaleHyperprior.from_state_dict(state)
    model.eval()
    return model


def rd_loss(out, x, lam):
    n, _, h, w = x.shape
    bpp = sum(torch.log(l).sum() for l in out["likelihoods"]) / (-math.log(2) * n * h * w)
    mse = F.mse_loss(out["x_hat"].float(), x)
    return lam * 255 ** 2 * mse + bpp, bpp, mse


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", required=True, help="scratch folder for checkpoints and logs")
    ap.add_argument("--out", required=True, help="where the final float state dict goes")
    ap.add_argument("--intra", required=True, help="a trained ScaleHyperprior checkpoint (the intra codec)")
    ap.add_argument("--n", type=int, default=48)
    ap.add_argument("--m", type=int, default=64)
    ap.add_argument("--scales", type=int, default=4, help="levels of the scale-space volume")
    ap.add_argument("--patch", type=int, default=128)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--lambda", dest="lam", type=float, default=0.009)
    ap.add_argument("--steps", type=int, default=20000)
    ap.add_argument("--max-shift", type=float, default=6.0, help="largest pan between frames, pixels")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--save-every", type=int, default=100)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--fp32", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    work, out_dir = Path(args.work), Path(args.out)
    work.mkdir(parents=True, exist_ok=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(args.seed)
    data = CameraPairs(training_images(), args.patch)
    intra = load_intra(args.intra)
    model = ScaleSpaceFlow(args.n, args.m, args.scales)
    params = [p for name, p in model.named_parameters() if not name.endswith(".quantiles")]
    aux_params = [p for name, p in model.named_parameters() if name.endswith(".quantiles")]
    opt, aux_opt = torch.optim.Adam(params, lr=args.lr), torch.optim.Adam(aux_params, lr=1e-3)
    ck, step, rng = work / "ssf.pt", 0, random.Random(f"{args.seed}-ssf")
    if ck.exists():
        state = torch.load(ck, weights_only=False)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        aux_opt.load_state_dict(state["aux_opt"])
        step = state["step"]
        rng.setstate(state["rng"])
        torch.set_rng_state(state["torch_rng"])
    amx = cpu_has_amx() and not args.fp32
    print(f"{len(data.images)} training images (scaled copies); AMX bf16: {amx}; from step {step}", flush=True)
    log = open(work / "ssf.log", "a")
    t0 = time.time()
    while step < args.steps:
        ref, cur = data.batch(args.batch, rng, args.max_shift)
        with torch.no_grad():
            ref = intra(ref)["x_hat"].clamp(0, 1)
            ref = torch.round(ref * 255) / 255  # the decoder's reference is RGB8
        model.train()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=amx):
            out = model(cur, ref)
        loss, bpp, mse = rd_loss(out, cur, args.lam)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        aux = model.aux_loss()
        aux_opt.zero_grad()
        aux.backward()
        aux_opt.step()
        step += 1
        if step % 25 == 0:
            pred_mse = F.mse_loss(out["pred"].float(), cur).item()
            print(json.dumps({"step": step, "loss": round(loss.item(), 4), "bpp": round(bpp.item(), 4),
                              "psnr": round(10 * math.log10(1 / max(mse.item(), 1e-10)), 2),
                              "pred_psnr": round(10 * math.log10(1 / max(pred_mse, 1e-10)), 2),
                              "aux": round(aux.item(), 1), "s_per_step": round((time.time() - t0) / 25, 3)}),
                  file=log, flush=True)
            t0 = time.time()
        if step % args.save_every == 0 or step == args.steps:
            tmp = ck.with_suffix(".tmp")
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "aux_opt": aux_opt.state_dict(),
                        "step": step, "rng": rng.getstate(), "torch_rng": torch.get_rng_state(), "args": vars(args)}, tmp)
            os.replace(tmp, ck)
    model.update()
    torch.save(model.state_dict(), out_dir / "ssf.pth.tar")
    (out_dir / "ssf.json").write_text(json.dumps({k: v for k, v in vars(args).items() if k not in ("work", "out")},
                                                 indent=1) + "\n")


if __name__ == "__main__":
    main()
