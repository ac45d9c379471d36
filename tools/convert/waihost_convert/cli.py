"""waihost-convert CHECKPOINT -o DIR --calibration IMG... [--eval IMG|CLIP.y4m ...]: a CompressAI
ScaleHyperprior checkpoint → an int_hyper model set, a scale-space-flow P-frame codec
(tools/train/train_ssf.py) → a wai.video.int_motion model set, or a conditional P-frame codec
(tools/train/train_cond.py) → a wai.video.int_cond model set, with RD figures."""
import argparse
import json
import shutil
import sys

import torch

from . import checkpoint, cond, convert, evaluate, modelset, ssf, video_eval
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
    ap.add_argument("--eval", nargs="*", default=[], metavar="IMG",
                    help="pictures (a picture codec) or Y4M clips (a P-frame codec) to report PSNR and rate on")
    ap.add_argument("--gop", type=int, default=8, help="P-frame codec --eval: the intra period")
    ap.add_argument("--intra", metavar="DIR", help="P-frame codec --eval: the int_hyper set of the intra frames "
                    "(default: the shipped --quality 2)")
    ap.add_argument("--waihost", default="waihost", help="the waihost binary for the integer figures")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress lines on standard error")
    args = ap.parse_args(argv)
    torch.set_num_threads(max(1, torch.get_num_threads()))
    progress = Progress(enabled=not args.quiet)
    progress.begin(f"loading checkpoint {args.checkpoint}")
    try:
        if checkpoint.is_motion(args.checkpoint):
            return _motion(args, progress)
        if checkpoint.is_cond(args.checkpoint):
            return _cond(args, progress, *checkpoint.load_cond(args.checkpoint))
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


def _motion(args, progress):
    """The scale-space-flow P-frame codec: calibrated on camera pairs of the pictures
    (ssf.camera_pair)."""
    model, n, m = checkpoint.load_motion(args.checkpoint)
    progress.begin(f"converting the P-frame codec N={n} M={m}, {model.scales} scale levels, calibrated on "
                   f"{len(args.calibration)} picture(s)")
    pairs = [ssf.camera_pair(evaluate.load_rgb(p)) for p in args.calibration]
    try:
        converted = ssf.convert(model, pairs)
    except ValueError as e:  # a latent or accumulator the integer graphs cannot hold, named
        progress.end()
        print(f"waihost-convert: {args.checkpoint}: {e}", file=sys.stderr)
        return 1
    name = args.name or f"convert-ssf-n{n}-m{m}"
    progress.begin(f"writing model set {args.output}")
    modelset.write_motion(converted, args.output, name, args.version)
    summary = {"model_set": args.output, "name": name, "capability": "wai.video.int_motion", "N": n, "M": m,
               "scales": converted.scales, "frac_bits": converted.frac_bits, "contracts": converted.contracts}
    heading = (f"{name}: P-frame codec N={n} M={m}, {converted.scales} scales, flow at 1/{1 << converted.frac_bits} "
               f"pixel → {args.output}")
    return _p_frame_report(args, progress, summary, heading, "--motion-model")


def _cond(args, progress, model, n, m, features):
    """The conditional P-frame codec: calibrated on camera pairs of the pictures on the P-frame
    grid (cond.calibration_pair)."""
    progress.begin(f"converting the conditional codec N={n} M={m}, {features} learned context channels, "
                   f"calibrated on {len(args.calibration)} picture(s)")
    pairs = [cond.calibration_pair(evaluate.load_rgb(p)) for p in args.calibration]
    try:
        converted = cond.convert(model, pairs)
    except ValueError as e:  # a latent or accumulator the integer graphs cannot hold, named
        progress.end()
        print(f"waihost-convert: {args.checkpoint}: {e}", file=sys.stderr)
        return 1
    name = args.name or f"convert-cond-n{n}-m{m}"
    progress.begin(f"writing model set {args.output}")
    modelset.write_cond(converted, args.output, name, args.version)
    summary = {"model_set": args.output, "name": name, "capability": "wai.video.int_cond", "N": n, "M": m,
               "K": converted.context_channels, "contracts": converted.contracts}
    heading = f"{name}: conditional P-frame codec N={n} M={m} K={converted.context_channels} → {args.output}"
    return _p_frame_report(args, progress, summary, heading, "--cond-model")


def _p_frame_report(args, progress, summary, heading, option):
    """--eval of a P-frame set on Y4M clips, then the summary (JSON or lines)."""
    rows = []
    if args.eval:
        if shutil.which(args.waihost) is None:
            progress.end()
            print(f"waihost-convert: {args.waihost} not found: it runs the integer model for --eval", file=sys.stderr)
            return 1
        progress.begin(f"evaluating {len(args.eval)} clip(s) with {args.waihost}")
        for k, clip in enumerate(args.eval):
            progress.update(k, len(args.eval), str(clip))
            rows.append(video_eval.integer_clip(args.waihost, args.output, clip, args.gop, args.intra, option=option))
        progress.update(len(args.eval), len(args.eval))
    progress.end()
    summary["eval"] = rows
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        print(heading)
        for r in rows:
            print(f"  {r['clip']}: {r['frames']} frames {r['width']}×{r['height']}, GOP {r['gop']}: "
                  f"{r['kbit_per_s']:.1f} kbit/s, {r['bpp']:.4f} bpp, PSNR Y {r['psnr']['y']:.2f} dB, "
                  f"average {r['psnr']['average']:.2f} dB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
