"""waihost-convert CHECKPOINT -o DIR --calibration IMG... [--eval IMG...]: a CompressAI
ScaleHyperprior checkpoint → an int_hyper model set, with float and integer RD figures."""
import argparse
import json
import shutil
import sys

import torch

from . import checkpoint, convert, evaluate, modelset
from .progress import Progress


def main(argv=None):
    ap = argparse.ArgumentParser(prog="waihost-convert", description=__doc__)
    ap.add_argument("checkpoint")
    ap.add_argument("-o", "--output", required=True, help="model-set folder to write")
    ap.add_argument("--name", help="model-set name (default: convert-nN-mM)")
    ap.add_argument("--version", default="1")
    ap.add_argument("--latent-step", type=float, default=1.0, metavar="Q",
                    help="code y as round(y/Q): 1 is CompressAI's quantisation, larger gives a lower rate")
    ap.add_argument("--calibration", nargs="+", required=True, metavar="IMG",
                    help="pictures whose activations set the integer steps")
    ap.add_argument("--eval", nargs="*", default=[], metavar="IMG", help="pictures to report PSNR and bpp on")
    ap.add_argument("--waihost", default="waihost", help="the waihost binary for the integer figures")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress lines on standard error")
    args = ap.parse_args(argv)
    torch.set_num_threads(max(1, torch.get_num_threads()))
    progress = Progress(enabled=not args.quiet)
    progress.begin(f"loading checkpoint {args.checkpoint}")
    try:
        model, n, m = checkpoint.load(args.checkpoint)
    except checkpoint.CheckpointError as e:
        progress.end()
        print(f"waihost-convert: {e}", file=sys.stderr)
        return 1
    model.update(force=True)
    progress.begin(f"converting N={n} M={m} to integers, calibrated on {len(args.calibration)} picture(s)")
    images = [evaluate.to_tensor(evaluate.load_rgb(p)) for p in args.calibration]
    converted = convert.convert(model, images, args.latent_step)
    name = args.name or f"convert-n{n}-m{m}"
    progress.begin(f"writing model set {args.output}")
    modelset.write(converted, args.output, name, args.version)
    rows = []
    if args.eval:
        if shutil.which(args.waihost) is None:
            progress.end()
            print(f"waihost-convert: {args.waihost} not found: it runs the integer model for --eval", file=sys.stderr)
            return 1
        progress.begin(f"evaluating {len(args.eval)} picture(s): float twin and {args.waihost}")
        for k, p in enumerate(args.eval):
            progress.update(k, len(args.eval), str(p))
            rgb = evaluate.load_rgb(p)
            rows.append({"image": str(p), "float": evaluate.float_twin(model, rgb, args.latent_step),
                         "integer": evaluate.integer_set(args.waihost, args.output, rgb)})
        progress.update(len(args.eval), len(args.eval))
    progress.end()
    summary = {"model_set": args.output, "name": name, "N": n, "M": m, "y_contract": converted.y_contract,
               "z_contract": converted.z_contract, "eval": rows}
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        print(f"{name}: N={n} M={m} → {args.output} (y in {converted.y_contract}, z in {converted.z_contract})")
        for r in rows:
            f, i = r["float"], r["integer"]
            print(f"  {r['image']}: float {f['psnr']:.2f} dB {f['bpp']:.4f} bpp | integer {i['psnr']:.2f} dB "
                  f"{i['bpp']:.4f} bpp")
    return 0


if __name__ == "__main__":
    sys.exit(main())
