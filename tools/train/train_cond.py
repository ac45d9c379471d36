"""Train a conditional P-frame codec (the DCVC family: the previous frame's features condition
the entropy model and the decoder of the current one, no motion coded) in the
integer-friendly form of wai.video.int_cond (docs/capabilities/video_int_cond.md §4.1), on
the camera pans and zooms of train_ssf.py's CameraPairs, made from the Debian-shipped
photographs of dataset.py.

The reference frame is the previous frame as the intra codec reconstructs it (a trained
wai.neural.int_hyper float checkpoint, --intra), as train_ssf.py does. Seeded and resumable:
a checkpoint every --save-every steps under --work (checkpointing.py); the final float state
dict goes to --out/cond.pth.tar, which tools/train/ship.py --cond converts and ships.
"""
import argparse
import json
import math
import random
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

import checkpointing
from train import cpu_has_amx, optimisers, train_step
from train_ssf import decoded_reference, rd_loss, start

# one definition of the model for training and conversion
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "convert"))
from waihost_convert.cond_model import ConditionalCodec  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", required=True, help="scratch folder for checkpoints and logs")
    ap.add_argument("--out", required=True, help="where the final float state dict goes")
    ap.add_argument("--intra", required=True, help="a trained ScaleHyperprior checkpoint (the intra codec)")
    ap.add_argument("--n", type=int, default=32)
    ap.add_argument("--m", type=int, default=48)
    ap.add_argument("--features", type=int, default=32, help="learned context channels (C has 48 more: the reference's blocks)")
    ap.add_argument("--patch", type=int, default=128, help="training patch side, a multiple of 64")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--lambda", dest="lam", type=float, default=0.009)
    ap.add_argument("--steps", type=int, default=20000)
    ap.add_argument("--lr-drop-at", type=int, default=16000, help="divide the learning rate by 10 from this step (0: never)")
    ap.add_argument("--max-shift", type=float, default=6.0, help="largest pan between frames, pixels")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--save-every", type=int, default=100)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--fp32", action="store_true")
    args = ap.parse_args()
    if args.patch % 64:
        ap.error(f"--patch {args.patch}: a multiple of 64 (the P-frame grid, video_int_cond.md §3)")
    work, out_dir, data, intra = start(args)
    model = ConditionalCodec(args.n, args.m, args.features)
    opt, aux_opt = optimisers(model, args.lr)
    ck, rng = work / "cond.pt", random.Random(f"{args.seed}-cond")
    step = checkpointing.resume(ck, model, opt, aux_opt, rng)
    amx = cpu_has_amx() and not args.fp32
    print(f"{len(data.images)} training images (scaled copies); AMX bf16: {amx}; from step {step}", flush=True)
    log = open(work / "cond.log", "a")
    t0 = time.time()
    while step < args.steps:
        lr = args.lr / 10 if args.lr_drop_at and step >= args.lr_drop_at else args.lr
        for group in opt.param_groups:
            group["lr"] = lr
        ref, cur = data.batch(args.batch, rng, args.max_shift)
        ref = decoded_reference(intra, ref)
        model.train()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=amx):
            out = model(cur, ref)
        loss, bpp, mse = rd_loss(out, cur, args.lam)
        aux = train_step(model, opt, aux_opt, loss)
        step += 1
        if step % 25 == 0:
            ref_mse = F.mse_loss(ref, cur).item()
            print(json.dumps({"step": step, "loss": round(loss.item(), 4), "bpp": round(bpp.item(), 4),
                              "psnr": round(10 * math.log10(1 / max(mse.item(), 1e-10)), 2),
                              "ref_psnr": round(10 * math.log10(1 / max(ref_mse, 1e-10)), 2),
                              "aux": round(aux.item(), 1), "lr": lr,
                              "s_per_step": round((time.time() - t0) / 25, 3)}), file=log, flush=True)
            t0 = time.time()
        if step % args.save_every == 0 or step == args.steps:
            checkpointing.save(ck, model, opt, aux_opt, step, rng, args)
    model.update()
    torch.save({"state_dict": model.state_dict(), "args": {"n": args.n, "m": args.m, "features": args.features}},
               out_dir / "cond.pth.tar")
    (out_dir / "cond.json").write_text(json.dumps({k: v for k, v in vars(args).items() if k not in ("work", "out")},
                                                  indent=1) + "\n")


if __name__ == "__main__":
    main()
