"""Rate-distortion of a wai.video.int_motion or wai.video.int_cond set against x264
(docs/capabilities/video_int_motion.md §13.1, video_int_cond.md §13.1),
on clips made from the evaluation photographs (the held-out wallpapers and scikit-image's
sample photographs, none trained on) by a camera that pans and zooms across each one. Both
codecs get the same Y4M source and the same GOP; x264 is ffmpeg's libx264 at `-preset
medium`, its rate set by CRF; PSNR is ffmpeg's psnr filter on the decoded Y4M (Y', and the
average of the three planes). Writes video_rd.md and video_rd.json (int_motion) or
video_rd_cond.md and video_rd_cond.json (int_cond).

    tools/venv.sh --rd >/dev/null
    .venv-tools/bin/python tools/rd/video_rd.py --motion-model DIR | --cond-model DIR --waihost .build/release/waihost \\
        [--size 640x360] [--frames 30] [--gop 8] [--qualities 1,2,3] [--crf 23,28,33,38]
"""
import argparse
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools" / "rd"))
sys.path.insert(0, str(REPO / "tools" / "convert"))
from rd_report import bd_rate, eval_images  # noqa: E402
from waihost_convert import video_eval  # noqa: E402


def camera_clip(rgb, size, frames, fps, path):
    """A Y4M (4:2:0) of a camera moving across the picture: a pan of about a fifth of the view
    over the clip and a slow zoom in, sampled bicubically at sub-pixel positions."""
    w, h = size
    im = Image.fromarray(rgb)
    # the view must fit inside the picture at every frame
    f = max(1.3 * w / im.width, 1.3 * h / im.height, 1.0)
    if f > 1:
        im = im.resize((math.ceil(im.width * f), math.ceil(im.height * f)), Image.LANCZOS)
    raw = bytearray()
    for t in range(frames):
        a = t / max(frames - 1, 1)
        zoom = 1.0 + 0.08 * a
        vw, vh = w / zoom, h / zoom
        x0 = (im.width - 1.2 * w) / 2 + 0.2 * w * a
        y0 = (im.height - 1.2 * h) / 2 + 0.1 * h * a
        view = im.transform((w, h), Image.AFFINE, (vw / w, 0, x0, 0, vh / h, y0), resample=Image.BICUBIC)
        raw += view.tobytes()
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{w}x{h}",
                    "-r", str(fps), "-i", "-", "-pix_fmt", "yuv420p", str(path)], input=bytes(raw), check=True)


def x264_point(clip, crf, gop, tmp):
    w, h, fps, frames = video_eval.y4m_header(clip)
    mp4, dec = Path(tmp) / f"x264-{crf}.mp4", Path(tmp) / f"x264-{crf}.y4m"
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-i", str(clip), "-c:v", "libx264", "-preset", "medium",
                    "-crf", str(crf), "-g", str(gop), "-keyint_min", str(gop), "-sc_threshold", "0", "-bf", "0",
                    "-threads", "2", str(mp4)], check=True)
    # the coded stream's own bytes, not the container's
    h264 = Path(tmp) / f"x264-{crf}.h264"
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-i", str(mp4), "-c:v", "copy", "-bsf:v",
                    "h264_mp4toannexb", "-f", "h264", str(h264)], check=True)
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-i", str(mp4), "-pix_fmt", "yuv420p", str(dec)], check=True)
    size = h264.stat().st_size
    return {"crf": crf, "bytes": size, "kbit_per_s": 8 * size * fps / frames / 1000,
            "psnr": video_eval.ffmpeg_psnr(dec, clip)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sets = ap.add_mutually_exclusive_group(required=True)
    sets.add_argument("--motion-model", help="the wai.video.int_motion set")
    sets.add_argument("--cond-model", help="the wai.video.int_cond set")
    ap.add_argument("--waihost", default=str(REPO / ".build" / "release" / "waihost"))
    ap.add_argument("--size", default="640x360")
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--fps", type=int, default=25)
    ap.add_argument("--gop", type=int, default=8)
    ap.add_argument("--qualities", default="1,2,3", help="the shipped intra sets (--quality) of the P-frame codec's points")
    ap.add_argument("--crf", default="23,28,33,38")
    ap.add_argument("--images", type=int, default=3, help="how many evaluation photographs to make clips of")
    ap.add_argument("--unit", help="the unit the P-frame clips decode on (default: the host's choice)")
    ap.add_argument("--out", default=str(REPO / "tools" / "rd"))
    args = ap.parse_args()
    w, h = (int(v) for v in args.size.lower().split("x"))
    kind, model, option = (("int_cond", args.cond_model, "--cond-model") if args.cond_model
                           else ("int_motion", args.motion_model, "--motion-model"))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, rgb in eval_images(1280)[-args.images:]:
            clip = Path(tmp) / f"{name}.y4m"
            camera_clip(rgb, (w, h), args.frames, args.fps, clip)
            print(f"{name}: clip of {args.frames} frames {w}×{h}", file=sys.stderr, flush=True)
            ours = []
            for q in (int(v) for v in args.qualities.split(",")):
                r = video_eval.integer_clip(args.waihost, model, clip, args.gop, quality=q, unit=args.unit, option=option)
                ours.append({"quality": q, "bytes": r["bytes"], "kbit_per_s": r["kbit_per_s"], "psnr": r["psnr"]})
            x264 = [x264_point(clip, int(c), args.gop, tmp) for c in args.crf.split(",")]
            bd = bd_rate([(p["kbit_per_s"], p["psnr"]["y"]) for p in x264],
                         [(p["kbit_per_s"], p["psnr"]["y"]) for p in ours])
            rows.append({"clip": name, kind: ours, "x264": x264, "bd_rate_y_vs_x264": bd})
    out = Path(args.out)
    doc = {"size": [w, h], "frames": args.frames, "fps": args.fps, "gop": args.gop,
           option[2:].replace("-", "_"): model, "clips": rows}
    stem = "video_rd" if kind == "int_motion" else "video_rd_cond"
    (out / f"{stem}.json").write_text(json.dumps(doc, indent=1) + "\n")
    lines = [f"# {kind} vs x264, {w}×{h}, {args.frames} frames at {args.fps} fps, GOP {args.gop}", "",
             "Written by tools/rd/video_rd.py. PSNR in dB (ffmpeg's psnr filter, Y' and the average of Y', Cb, Cr);",
             f"rates in kbit/s of the coded bytes (the x264 Annex B stream, the {kind} payload).", "",
             "| clip | codec | point | kbit/s | PSNR Y | PSNR avg |", "|---|---|---|---|---|---|"]
    for r in rows:
        for p in r[kind]:
            lines.append(f"| {r['clip']} | {kind} | q{p['quality']} | {p['kbit_per_s']:.1f} | "
                         f"{p['psnr']['y']:.2f} | {p['psnr']['average']:.2f} |")
        for p in r["x264"]:
            lines.append(f"| {r['clip']} | x264 medium | crf {p['crf']} | {p['kbit_per_s']:.1f} | "
                         f"{p['psnr']['y']:.2f} | {p['psnr']['average']:.2f} |")
    lines += ["", f"| clip | BD-rate (Y) of {kind} vs x264 |", "|---|---|"]
    for r in rows:
        bd = r["bd_rate_y_vs_x264"]
        lines.append(f"| {r['clip']} | {'no overlap' if bd is None else f'{bd:+.1f} %'} |")
    (out / f"{stem}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
