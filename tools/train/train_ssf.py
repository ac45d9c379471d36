"""Train a scale-space-flow P-frame codec (Agustsson et al., CVPR 2020; CompressAI's ssf2020)
in the integer-friendly form of wai.video.int_motion, on camera pans and zooms made from the
Debian-shipped photographs of dataset.py.

The model (waihost_convert/ssf_model.py) differs from CompressAI's ssf2020 where the integer
graphs need it: pixel-unit flow, a binomial scale space, the align_corners warp with border
padding, scale hyperpriors (docs/capabilities/video_int_motion.md §4).

The reference frame is the previous frame as the intra codec reconstructs it (a trained
wai.neural.int_hyper float checkpoint, --intra), so the P-frame codec learns to correct the
intra codec's errors as it must at decode time.

Seeded and resumable like train.py: checkpoints every --save-every steps under --work
(checkpointing.py).
"""
import argparse
import json
import math
import random
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from compressai.models import ScaleHyperprior
from PIL import Image

import checkpointing
from dataset import training_images
from train import cpu_has_amx, optimisers, train_step

# the model is the converter's (one definition for training and conversion), also when the
# converter is not installed in this Python
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "convert"))
from waihost_convert.ssf_model import ScaleSpaceFlow  # noqa: E402

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

    def batch(self, n, rng, max_shift, flows=None):
        """n (reference, current) pairs; when `flows` is a list, each pair's true flow is
        appended to it: (2, patch, patch) in pixels, the offset at which the reference shows
        what the current frame shows at each pixel (the model's warp convention)."""
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
                if moved and flows is not None:
                    # the reference view is the crop's centre unmoved (theta = half · identity)
                    flows.append(camera_flow(theta, half, self.patch))
            refs.append(views[0])
            curs.append(views[1])
        return torch.stack(refs), torch.stack(curs)


def camera_flow(theta, half, patch):
    """The flow from the current view (affine `theta` of the crop, grid_sample's normalised
    coordinates, align_corners=False) to the reference view (the crop's central `half`)."""
    c = (2 * torch.arange(patch, dtype=torch.float32) + 1) / patch - 1
    v, u = torch.meshgrid(c, c, indexing="ij")
    cx = theta[0, 0] * u + theta[0, 1] * v + theta[0, 2]
    cy = theta[1, 0] * u + theta[1, 1] * v + theta[1, 2]
    # the reference pixel showing crop point (cx, cy), minus the current pixel
    jj = ((cx / half + 1) * patch - 1) / 2
    ii = ((cy / half + 1) * patch - 1) / 2
    j0 = ((u + 1) * patch - 1) / 2
    i0 = ((v + 1) * patch - 1) / 2
    return torch.stack((jj - j0, ii - i0))


def load_intra(path):
    state = torch.load(path, map_location="cpu", weights_only=False)
    state = state.get("state_dict", state.get("model", state))
    model = ScaleHyperprior.from_state_dict(state)
    model.eval()
    return model


def start(args):
    """What both P-frame trainers begin with: threads, seed, the --work and --out folders, the
    training pairs and the intra codec."""
    torch.set_num_threads(args.threads)
    work, out_dir = Path(args.work), Path(args.out)
    work.mkdir(parents=True, exist_ok=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(args.seed)
    return work, out_dir, CameraPairs(training_images(), args.patch), load_intra(args.intra)


def decoded_reference(intra, ref):
    """The reference frames as the decoder has them: the intra codec's reconstruction, RGB8."""
    with torch.no_grad():
        return torch.round(intra(ref)["x_hat"].clamp(0, 1) * 255) / 255


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
    ap.add_argument("--flow-weight", type=float, default=0.0,
                    help="weight of a loss on the decoded flow against the camera's true flow (pixels, smooth L1), "
                         "falling linearly to 0 at --flow-until: the motion branch learns from the prediction alone "
                         "only very slowly")
    ap.add_argument("--flow-until", type=int, default=0, help="the step at which the flow loss has fallen to 0")
    ap.add_argument("--init", help="start from these float weights (ship.py's samples/models/float/motion.pth.tar: "
                    "model, step, args) with fresh optimisers, when --work has no checkpoint yet")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--save-every", type=int, default=100)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--fp32", action="store_true")
    args = ap.parse_args()
    work, out_dir, data, intra = start(args)
    model = ScaleSpaceFlow(args.n, args.m, args.scales)
    opt, aux_opt = optimisers(model, args.lr)
    ck, rng = work / "ssf.pt", random.Random(f"{args.seed}-ssf")
    step = checkpointing.resume(ck, model, opt, aux_opt, rng)
    if step == 0 and args.init:
        init = torch.load(args.init, map_location="cpu", weights_only=False)
        model.load_state_dict(init["model"])
        step = init["step"]
    amx = cpu_has_amx() and not args.fp32
    print(f"{len(data.images)} training images (scaled copies); AMX bf16: {amx}; from step {step}", flush=True)
    log = open(work / "ssf.log", "a")
    t0 = time.time()
    while step < args.steps:
        flow_w = args.flow_weight * max(0.0, 1.0 - step / args.flow_until) if args.flow_until > 0 else 0.0
        true_flows = [] if flow_w > 0 else None
        ref, cur = data.batch(args.batch, rng, args.max_shift, true_flows)
        ref = decoded_reference(intra, ref)
        model.train()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=amx):
            out = model(cur, ref)
        loss, bpp, mse = rd_loss(out, cur, args.lam)
        flow_err = None
        if true_flows is not None:
            flow_err = F.smooth_l1_loss(out["flow"][:, :2].float(), torch.stack(true_flows))
            loss = loss + flow_w * flow_err
        aux = train_step(model, opt, aux_opt, loss)
        step += 1
        if step % 25 == 0:
            pred_mse = F.mse_loss(out["pred"].float(), cur).item()
            print(json.dumps({"step": step, "loss": round(loss.item(), 4), "bpp": round(bpp.item(), 4),
                              "psnr": round(10 * math.log10(1 / max(mse.item(), 1e-10)), 2),
                              "pred_psnr": round(10 * math.log10(1 / max(pred_mse, 1e-10)), 2),
                              "aux": round(aux.item(), 1), "s_per_step": round((time.time() - t0) / 25, 3),
                              **({"flow_err": round(flow_err.item(), 3), "flow_w": round(flow_w, 4)} if flow_err is not None else {})}),
                  file=log, flush=True)
            t0 = time.time()
        if step % args.save_every == 0 or step == args.steps:
            checkpointing.save(ck, model, opt, aux_opt, step, rng, args)
    model.update()
    torch.save({"state_dict": model.state_dict(), "args": {"scales": args.scales}}, out_dir / "ssf.pth.tar")
    (out_dir / "ssf.json").write_text(json.dumps({k: v for k, v in vars(args).items() if k not in ("work", "out")},
                                                 indent=1) + "\n")


if __name__ == "__main__":
    main()
