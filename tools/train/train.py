"""Train CompressAI ScaleHyperprior (bmshj2018-hyperprior) model sets on Debian wallpapers.

Seeded and resumable: every phase writes a checkpoint (model, optimisers, step, RNG state)
to --work every --save-every steps and resumes from it when restarted. Phase "base" trains
one model at a middle lambda; each rate point then fine-tunes a copy of it at its own
lambda. The float checkpoints (CompressAI state dicts) are what tools/convert reads.
"""
import argparse
import json
import os
import random
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from compressai.models import ScaleHyperprior
from PIL import Image

from dataset import training_images

def cpu_has_amx() -> bool:
    try:
        return "amx_bf16" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


class Patches:
    """Random crops (and flips) of the training photographs, each downscaled at load to a
    random long side so that patches see several scales of each photograph."""

    def __init__(self, paths, patch, seed, long_sides=(512, 768, 1024)):
        rng = random.Random(seed)
        self.images = []
        for p in paths:
            im = Image.open(p).convert("RGB")
            for side in long_sides:
                f = side / max(im.size)
                if f >= 1:
                    continue
                small = im.resize((max(patch, round(im.width * f)), max(patch, round(im.height * f))), Image.LANCZOS)
                self.images.append(torch.from_numpy(np.asarray(small).copy()).permute(2, 0, 1))
        self.patch = patch
        self.rng = rng

    def batch(self, n, rng):
        out = []
        for _ in range(n):
            im = self.images[rng.randrange(len(self.images))]
            _, h, w = im.shape
            i, j = rng.randrange(h - self.patch + 1), rng.randrange(w - self.patch + 1)
            x = im[:, i:i + self.patch, j:j + self.patch]
            if rng.random() < 0.5:
                x = x.flip(2)
            out.append(x)
        return torch.stack(out).float() / 255.0


def rd_loss(out, x, lam):
    n, _, h, w = x.shape
    bpp = sum(torch.log(l).sum() for l in out["likelihoods"].values()) / (-np.log(2) * n * h * w)
    mse = F.mse_loss(out["x_hat"].float(), x)
    return lam * 255 ** 2 * mse + bpp, bpp, mse


def make_model(n, m):
    return ScaleHyperprior(N=n, M=m)


def optimisers(model, lr):
    params = [p for name, p in model.named_parameters() if not name.endswith(".quantiles")]
    aux = [p for name, p in model.named_parameters() if name.endswith(".quantiles")]
    return torch.optim.Adam(params, lr=lr), torch.optim.Adam(aux, lr=1e-3)


def train_step(model, opt, aux_opt, loss):
    """One optimiser step on the loss (gradients clipped to norm 1), then one on the entropy
    bottleneck's auxiliary loss, which it returns."""
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    aux = model.aux_loss()
    aux_opt.zero_grad()
    aux.backward()
    aux_opt.step()
    return aux


def run_phase(name, args, data, lam, steps, init, lr_drop_at):
    work = Path(args.work)
    ck = work / f"{name}.pt"
    torch.manual_seed(args.seed)
    model = make_model(args.n, args.m)
    opt, aux_opt = optimisers(model, args.lr)
    step = 0
    rng = random.Random(f"{args.seed}-{name}")
    if ck.exists():
        state = torch.load(ck, weights_only=False)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        aux_opt.load_state_dict(state["aux_opt"])
        step = state["step"]
        rng.setstate(state["rng"])
        torch.set_rng_state(state["torch_rng"])
        for g in opt.param_groups:  # a restart may change the learning rate for the last steps
            g["lr"] = args.lr if lr_drop_at is None or step < lr_drop_at else args.lr / 10
        if step >= steps:
            return model
    elif init is not None:
        model.load_state_dict(init.state_dict())
    amx = cpu_has_amx() and not args.fp32
    log = open(work / f"{name}.log", "a")
    t0 = time.time()
    while step < steps:
        if step == lr_drop_at:
            for g in opt.param_groups:
                g["lr"] = args.lr / 10
        x = data.batch(args.batch, rng)
        model.train()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=amx):
            out = model(x)
        loss, bpp, mse = rd_loss(out, x, lam)
        aux = train_step(model, opt, aux_opt, loss)
        step += 1
        if step % 25 == 0:
            psnr = 10 * np.log10(1 / max(mse.item(), 1e-10))
            print(json.dumps({"phase": name, "step": step, "loss": round(loss.item(), 4), "bpp": round(bpp.item(), 4),
                              "psnr": round(psnr, 2), "aux": round(aux.item(), 1),
                              "s_per_step": round((time.time() - t0) / 25, 3)}), file=log, flush=True)
            t0 = time.time()
        if step % args.save_every == 0 or step == steps:
            tmp = ck.with_suffix(".tmp")
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "aux_opt": aux_opt.state_dict(),
                        "step": step, "rng": rng.getstate(), "torch_rng": torch.get_rng_state(),
                        "lambda": lam, "N": args.n, "M": args.m}, tmp)
            os.replace(tmp, ck)
    return model


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--work", required=True, help="scratch folder for checkpoints and logs")
    ap.add_argument("--out", required=True, help="where the final CompressAI state dicts go")
    ap.add_argument("--n", type=int, default=64)
    ap.add_argument("--m", type=int, default=96)
    ap.add_argument("--patch", type=int, default=128)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--base-lambda", type=float, default=0.009)
    ap.add_argument("--base-steps", type=int, default=3000)
    ap.add_argument("--base-lr-drop", type=int, default=None,
                    help="step of the base phase after which its learning rate is a tenth (default: never)")
    ap.add_argument("--lambdas", default="0.0035,0.009,0.025")
    ap.add_argument("--tune-steps", type=int, default=1000)
    ap.add_argument("--save-every", type=int, default=100)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--fp32", action="store_true", help="no bfloat16 autocast even where the CPU has AMX")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    random.seed(args.seed)
    Path(args.work).mkdir(parents=True, exist_ok=True)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    data = Patches(training_images(), args.patch, args.seed)
    print(f"{len(data.images)} training images (scaled copies); AMX bf16: {cpu_has_amx() and not args.fp32}", flush=True)
    base = run_phase("base", args, data, args.base_lambda, args.base_steps, None, args.base_lr_drop)
    for q, lam in enumerate(float(v) for v in args.lambdas.split(",")):
        name = f"q{q + 1}"
        model = run_phase(name, args, data, lam, args.tune_steps, base, args.tune_steps * 3 // 4)
        model.update(force=True)
        torch.save(model.state_dict(), Path(args.out) / f"{name}.pth.tar")
        (Path(args.out) / f"{name}.json").write_text(json.dumps(
            {"lambda": lam, "N": args.n, "M": args.m, "patch": args.patch, "batch": args.batch, "seed": args.seed,
             "base_steps": args.base_steps, "base_lambda": args.base_lambda, "tune_steps": args.tune_steps}, indent=1) + "\n")


if __name__ == "__main__":
    main()
