"""Converts the trained float checkpoint into the shipped model sets samples/models/q1…q3
(one rate point each: the latent step Q of tools/convert) with calibration pictures drawn
from the training photographs, and records how each was made in its convert.json."""
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


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--checkpoint", required=True, help="float checkpoint, repository-relative")
    ap.add_argument("--steps", default="1.6,1.0,0.6", help="latent step of q1,q2,q3")
    ap.add_argument("--scratch", default=str(REPO / ".train-work" / "calibration"))
    ap.add_argument("--calibration-count", type=int, default=8)
    ap.add_argument("--version", default="1")
    args = ap.parse_args()
    from waihost_convert import cli
    cal = calibration_pictures(Path(args.scratch), args.calibration_count, 512)
    for q, step in enumerate(float(s) for s in args.steps.split(",")):
        name = f"q{q + 1}"
        out = REPO / "samples" / "models" / name
        set_name = f"int-hyper-trained-n48-m64-{name}"
        rc = cli.main([str(REPO / args.checkpoint), "-o", str(out), "--name", set_name, "--version", args.version,
                       "--latent-step", str(step), "--calibration", *[str(d) for _, d in cal]])
        if rc != 0:
            sys.exit(rc)
        (out / "convert.json").write_text(json.dumps({
            "name": set_name, "checkpoint": args.checkpoint, "latent_step": step,
            "calibration": [src for src, _ in cal], "calibration_long_side": 512}, indent=1) + "\n")


if __name__ == "__main__":
    main()
