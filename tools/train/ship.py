"""Converts trained float checkpoints into the shipped model sets samples/models/q1…q3 with
calibration pictures drawn from the training photographs, and records how each was made in
its convert.json. Either one checkpoint for every rate point (--checkpoint, the rate points
being latent steps Q of tools/convert) or one checkpoint per rate point (--checkpoints, each
trained at its own lambda by train.py, latent step 1 unless --steps says otherwise).

--motion CHECKPOINT ships a train_ssf.py checkpoint instead: its model weights (no optimizer
state) as samples/models/float/motion.pth.tar and the wai.video.int_motion set converted
from them as samples/models/motion, calibrated on the same kind of pictures. --cond
CHECKPOINT does the same for a train_cond.py checkpoint: samples/models/float/cond.pth.tar and
the wai.video.int_cond set samples/models/cond."""
import argparse
import json
import sys
from pathlib import Path

from PIL import Image

from dataset import training_images

REPO = Path(__file__).resolve().parents[2]


def calibration_pictures(folder: Path, count: int, long_side: int):
    folder.mkdir(parents=True, exist_ok=True)
    paths = training_images()
    step = max(1, len(paths) // count)
    out = []
    for k, p in enumerate(paths[::step][:count]):
        im = Image.open(p).convert("RGB")
        f = long_side / max(im.size)
        dst = folder / f"cal{k}.png"
        im.resize((round(im.width * f), round(im.height * f)), Image.LANCZOS).save(dst)
        out.append((str(p), dst))
    return out


def model_size(checkpoint: Path):
    """N and M of a ScaleHyperprior state dict, from its first and last g_a convolution."""
    import torch
    state = torch.load(checkpoint, map_location="cpu", weights_only=False)
    state = state.get("state_dict", state.get("model", state))
    return state["g_a.0.weight"].shape[0], state["g_a.6.weight"].shape[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--checkpoint", help="one float checkpoint for q1,q2,q3, repository-relative")
    src.add_argument("--checkpoints", help="comma-separated float checkpoints of q1,q2,q3, repository-relative")
    src.add_argument("--motion", help="a train_ssf.py checkpoint (ssf.pt): ship the P-frame codec as samples/models/motion")
    src.add_argument("--cond", help="a train_cond.py checkpoint (cond.pt): ship the conditional codec as samples/models/cond")
    ap.add_argument("--steps", default=None, help="latent step of q1,q2,q3 (default 1.6,1.0,0.6 with --checkpoint, "
                    "1 with --checkpoints)")
    ap.add_argument("--scratch", default=str(REPO / ".train-work" / "calibration"))
    ap.add_argument("--calibration-count", type=int, default=8)
    ap.add_argument("--version", default="1")
    args = ap.parse_args()
    from waihost_convert import cli
    if args.motion:
        sys.exit(ship_p_frames("motion", Path(args.motion), Path(args.scratch), args.calibration_count, args.version))
    if args.cond:
        sys.exit(ship_p_frames("cond", Path(args.cond), Path(args.scratch), args.calibration_count, args.version))
    if args.checkpoints:
        checkpoints = args.checkpoints.split(",")
        steps = [float(v) for v in (args.steps or ",".join("1" for _ in checkpoints)).split(",")]
    else:
        steps = [float(v) for v in (args.steps or "1.6,1.0,0.6").split(",")]
        checkpoints = [args.checkpoint] * len(steps)
    if len(steps) != len(checkpoints):
        sys.exit(f"ship.py: {len(checkpoints)} checkpoints but {len(steps)} latent steps")
    cal = calibration_pictures(Path(args.scratch), args.calibration_count, 512)
    for q, (checkpoint, step) in enumerate(zip(checkpoints, steps)):
        name = f"q{q + 1}"
        out = REPO / "samples" / "models" / name
        n, m = model_size(REPO / checkpoint)
        set_name = f"int-hyper-trained-n{n}-m{m}-{name}"
        rc = cli.main([str(REPO / checkpoint), "-o", str(out), "--name", set_name, "--version", args.version,
                       "--latent-step", str(step), "--calibration", *[str(d) for _, d in cal]])
        if rc != 0:
            sys.exit(rc)
        (out / "convert.json").write_text(json.dumps({
            "name": set_name, "checkpoint": checkpoint, "latent_step": step,
            "calibration": [src for src, _ in cal], "calibration_long_side": 512}, indent=1) + "\n")


def ship_p_frames(kind: str, checkpoint: Path, scratch: Path, count: int, version: str) -> int:
    """kind "motion" (train_ssf.py) or "cond" (train_cond.py): the float weights under
    samples/models/float/KIND.pth.tar and the converted set under samples/models/KIND."""
    import torch
    from waihost_convert import cli
    state = torch.load(checkpoint, map_location="cpu", weights_only=False)
    float_path = REPO / "samples" / "models" / "float" / f"{kind}.pth.tar"
    # the weights and the training arguments the converter reads the model's shape from;
    # the optimizer's moments would triple the file and say nothing about the model
    torch.save({"model": state["model"], "step": state["step"], "args": state["args"]}, float_path)
    n, m = state["args"]["n"], state["args"]["m"]
    cal = calibration_pictures(scratch, count, 512)
    out = REPO / "samples" / "models" / kind
    set_name = f"int-{kind}-trained-n{n}-m{m}"
    rc = cli.main([str(float_path), "-o", str(out), "--name", set_name, "--version", version,
                   "--calibration", *[str(d) for _, d in cal]])
    if rc == 0:
        (out / "convert.json").write_text(json.dumps({
            "name": set_name, "checkpoint": str(float_path.relative_to(REPO)), "training_step": state["step"],
            "training_args": state["args"], "calibration": [src for src, _ in cal],
            "calibration_long_side": 512}, indent=1) + "\n")
    return rc


if __name__ == "__main__":
    main()
