"""Rate-distortion report of the shipped int_hyper model sets (samples/models/q*) on the
evaluation photographs (scikit-image's sample photographs and the held-out wallpapers, none
trained on), against JPEG (libjpeg through Pillow, 4:2:0 and 4:4:4), WebP (libwebp through
Pillow) and each set's float twin. Writes rd.md (tables, BD-rates), rd.json and rd.png.

BD-rate (Bjøntegaard): the average bit-rate difference at equal PSNR over the overlapping
PSNR range, log-rate interpolated piecewise-cubically (PCHIP) in PSNR, per image, then
averaged over the images; negative means fewer bits than the anchor."""
import argparse
import io
import json
import sys
from pathlib import Path

import numpy as np
from PIL import Image
from scipy.interpolate import PchipInterpolator

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools" / "train"))
from dataset import held_out_images  # noqa: E402
from waihost_convert import checkpoint, evaluate  # noqa: E402


def eval_images(long_side):
    import skimage.data as data
    out = [(n, getattr(data, n)()) for n in ("astronaut", "chelsea", "coffee", "rocket")]
    for p in held_out_images():
        im = Image.open(p).convert("RGB")
        f = long_side / max(im.size)
        im = im.resize((round(im.width * f), round(im.height * f)), Image.LANCZOS)
        out.append((p.parts[-4], np.asarray(im)))
    return out


def pillow_curve(rgb, fmt, qualities, **kw):
    pts = []
    for q in qualities:
        buf = io.BytesIO()
        Image.fromarray(rgb).save(buf, fmt, quality=q, **kw)
        dec = np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert("RGB"))
        pts.append((8 * buf.tell() / (rgb.shape[0] * rgb.shape[1]), evaluate.psnr(rgb, dec)))
    return sorted(pts)


def bd_rate(anchor, test):
    """Average % rate difference of test against anchor at equal PSNR (PCHIP on log-rate)."""
    def prep(pts):
        pts = sorted(pts, key=lambda p: p[1])
        r = np.log(np.array([p[0] for p in pts]))
        d = np.array([p[1] for p in pts])
        keep = np.concatenate([[True], np.diff(d) > 1e-6])
        return d[keep], r[keep]
    da, ra = prep(anchor)
    dt, rt = prep(test)
    lo, hi = max(da.min(), dt.min()), min(da.max(), dt.max())
    if len(da) < 2 or len(dt) < 2 or hi <= lo:
        return None
    ia, it = PchipInterpolator(da, ra), PchipInterpolator(dt, rt)
    xs = np.linspace(lo, hi, 200)
    diff = np.trapz(it(xs) - ia(xs), xs) / (hi - lo)
    return float((np.exp(diff) - 1) * 100)


def psnr_at(curve, bpp):
    """PSNR of a codec's curve at this bpp (linear in log-bpp), None outside it."""
    b = np.log([p[0] for p in curve])
    d = [p[1] for p in curve]
    x = np.log(bpp)
    return float(np.interp(x, b, d)) if b[0] <= x <= b[-1] else None


def actual(model, rgb):
    import torch
    import torch.nn.functional as F
    h, w, _ = rgb.shape
    x = evaluate.to_tensor(rgb)
    xp = F.pad(x, (0, (64 - w % 64) % 64, 0, (64 - h % 64) % 64), mode="replicate")
    with torch.no_grad():
        c = model.compress(xp)
        rec = model.decompress(c["strings"], c["shape"])["x_hat"]
    dec = (rec[0, :, :h, :w].clamp(0, 1).permute(1, 2, 0).numpy() * 255).round().astype(np.uint8)
    return (8 * sum(len(t[0]) for t in c["strings"]) / (h * w), evaluate.psnr(rgb, dec))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--waihost", required=True)
    ap.add_argument("--models", default=str(REPO / "samples" / "models"))
    ap.add_argument("--out", default=str(REPO / "tools" / "rd"))
    ap.add_argument("--long-side", type=int, default=768, help="held-out wallpapers are scaled to this")
    args = ap.parse_args()
    sets = sorted(p for p in Path(args.models).iterdir() if (p / "manifest.json").is_file())
    info = {s.name: json.loads((s / "convert.json").read_text()) for s in sets}
    floats = {}
    for s in sets:
        ck = REPO / info[s.name]["checkpoint"]
        if ck not in floats:
            m, _, _ = checkpoint.load(ck)
            m.update(force=True)
            floats[ck] = m
    rows = []
    for name, rgb in eval_images(args.long_side):
        row = {"image": name, "size": f"{rgb.shape[1]}x{rgb.shape[0]}", "ours": [], "float": [], "float16": []}
        for s in sets:
            i = evaluate.integer_set(args.waihost, s, rgb)
            fm, q = floats[REPO / info[s.name]["checkpoint"]], info[s.name]["latent_step"]
            f = evaluate.float_twin(fm, rgb, q)
            f16 = evaluate.float_twin(fm, rgb, q, multiple=16)
            row["ours"].append((i["bpp"], i["psnr"]))
            row["float"].append((f["bpp"], f["psnr"]))
            row["float16"].append((f16["bpp"], f16["psnr"]))
        # CompressAI's own bitstream (compress/decompress) where the latent step is its own (1)
        row["compressai"] = [actual(floats[REPO / info[s.name]["checkpoint"]], rgb) if info[s.name]["latent_step"] == 1.0
                             else None for s in sets]
        row["jpeg420"] = pillow_curve(rgb, "JPEG", range(5, 100, 5), subsampling=2)
        row["jpeg444"] = pillow_curve(rgb, "JPEG", range(5, 100, 5), subsampling=0)
        row["webp"] = pillow_curve(rgb, "WEBP", range(0, 101, 5), method=6)
        rows.append(row)
        print(name, row["ours"], file=sys.stderr)
    anchors = ("jpeg420", "jpeg444", "webp", "float", "float16")
    bd = {a: [bd_rate(r[a], r["ours"]) for r in rows] for a in anchors}
    avg = {a: (float(np.mean([v for v in bd[a] if v is not None])) if any(v is not None for v in bd[a]) else None)
           for a in anchors}
    out = Path(args.out)
    (out / "rd.json").write_text(json.dumps({"sets": info, "rows": rows, "bd_rate_percent": bd,
                                             "bd_rate_average_percent": avg}, indent=1) + "\n")
    lines = ["# Rate-distortion report (generated by tools/rd/rd_report.py)", "",
             "PSNR is over R, G and B together (dB); bpp counts the whole coded file (the int_hyper bare payload, "
             "header included; the JPEG and WebP files as Pillow writes them; the float twin's rate is its own "
             "likelihoods, i.e. ideal entropy coding).", "",
             "## Shipped sets per image", "",
             "| image | size | " + " | ".join(f"{s.name} bpp / dB" for s in sets) + " | "
             + " | ".join(f"JPEG 4:2:0 dB at {s.name}'s bpp" for s in sets) + " |",
             "|---|---|" + "---|" * (2 * len(sets))]
    for r in rows:
        ours = " | ".join(f"{b:.3f} / {d:.2f}" for b, d in r["ours"])
        jp = " | ".join((lambda v: f"{v:.2f}" if v is not None else "outside")(psnr_at(r["jpeg420"], b)) for b, _ in r["ours"])
        lines.append(f"| {r['image']} | {r['size']} | {ours} | {jp} |")
    mean_ours = [(np.mean([r["ours"][k][0] for r in rows]), np.mean([r["ours"][k][1] for r in rows])) for k in range(len(sets))]
    mean_float = [(np.mean([r["float"][k][0] for r in rows]), np.mean([r["float"][k][1] for r in rows])) for k in range(len(sets))]
    lines.append("| **average** | | " + " | ".join(f"{b:.3f} / {d:.2f}" for b, d in mean_ours) + " |" + " |" * len(sets))
    lines += ["", "## Float twin (same float model, same latent step) per image", "",
              "The picture extended to a multiple of 64 by repeating its edges, as CompressAI's examples do; the "
              "rate counts only the latents of the picture's own 16-pixel blocks, but g_s also reads the latents "
              "of the extension, which no bit pays for.", "",
              "| image | " + " | ".join(f"{s.name} float bpp / dB" for s in sets) + " |", "|---|" + "---|" * len(sets)]
    for r in rows:
        lines.append(f"| {r['image']} | " + " | ".join(f"{b:.3f} / {d:.2f}" for b, d in r["float"]) + " |")
    lines.append("| **average** | " + " | ".join(f"{b:.3f} / {d:.2f}" for b, d in mean_float) + " |")
    lines += ["", "## Float twin on the host's picture extension (to a multiple of 16, not 64) per image", "",
              "The same float model with the picture extended as the host extends it (docs/capabilities/int_hyper.md "
              "§3), so it sees the same pixels and the same latent grid as the integer set: what the conversion "
              "alone costs.", "",
              "| image | " + " | ".join(f"{s.name} float bpp / dB" for s in sets) + " |", "|---|" + "---|" * len(sets)]
    for r in rows:
        lines.append(f"| {r['image']} | " + " | ".join(f"{b:.3f} / {d:.2f}" for b, d in r["float16"]) + " |")
    mean_f16 = [(np.mean([r["float16"][k][0] for r in rows]), np.mean([r["float16"][k][1] for r in rows]))
                for k in range(len(sets))]
    lines.append("| **average** | " + " | ".join(f"{b:.3f} / {d:.2f}" for b, d in mean_f16) + " |")
    k1 = [k for k, st in enumerate(sets) if info[st.name]["latent_step"] == 1.0]
    if k1:
        k = k1[0]
        lines += ["", f"## {sets[k].name} against CompressAI's actual bitstream of the same float model", "",
                  "| image | CompressAI compress() bpp / dB | integer set bpp / dB | integer bits vs CompressAI |",
                  "|---|---|---|---|"]
        for r in rows:
            (cb, cp), (ib, ip) = r["compressai"][k], r["ours"][k]
            lines.append(f"| {r['image']} | {cb:.3f} / {cp:.2f} | {ib:.3f} / {ip:.2f} | {100 * (ib / cb - 1):+.1f} % |")
        cb = np.mean([r["compressai"][k][0] for r in rows]); cp = np.mean([r["compressai"][k][1] for r in rows])
        lines.append(f"| **average** | {cb:.3f} / {cp:.2f} | {mean_ours[k][0]:.3f} / {mean_ours[k][1]:.2f} | "
                     f"{100 * np.mean([r['ours'][k][0] / r['compressai'][k][0] - 1 for r in rows]):+.1f} % |")
    lines += ["", "## BD-rate of the shipped sets (negative: fewer bits at equal PSNR)", "",
              "| image | vs JPEG 4:2:0 | vs JPEG 4:4:4 | vs WebP | vs float twin | vs float twin, host's extension |",
              "|---|---|---|---|---|---|"]
    fmt = lambda v: "n/a (no overlap)" if v is None else f"{v:+.1f} %"
    for k, r in enumerate(rows):
        lines.append(f"| {r['image']} | " + " | ".join(fmt(bd[a][k]) for a in anchors) + " |")
    lines.append("| **average** | " + " | ".join(fmt(avg[a]) for a in anchors) + " |")
    lines += ["", "Sets: " + "; ".join(f"{k}: {v['name']}, latent step {v['latent_step']}, from {v['checkpoint']}"
                                      for k, v in info.items()), ""]
    (out / "rd.md").write_text("\n".join(lines))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 5))
    def mean_curve(key):
        grid = np.linspace(0.05, 2.0, 60)
        vals = []
        for g in grid:
            ps = [psnr_at(r[key], g) for r in rows]
            vals.append(np.mean(ps) if all(p is not None for p in ps) else np.nan)
        return grid, vals
    for key, label in (("jpeg420", "JPEG 4:2:0 (libjpeg)"), ("jpeg444", "JPEG 4:4:4"), ("webp", "WebP")):
        ax.plot(*mean_curve(key), label=label)
    ax.plot([p[0] for p in mean_ours], [p[1] for p in mean_ours], "o-", color="k", label="int_hyper shipped sets (integer)")
    ax.plot([p[0] for p in mean_float], [p[1] for p in mean_float], "x--", color="gray", label="float twins")
    ax.set_xlabel("bits per pixel")
    ax.set_ylabel("PSNR RGB (dB), mean over the evaluation images")
    ax.set_xlim(0, max(1.2, max(p[0] for p in mean_ours) * 1.3))
    ax.grid(True, alpha=0.3)
    ax.legend()
    ax.set_title(f"{len(rows)} evaluation photographs (never trained on)")
    fig.tight_layout()
    fig.savefig(out / "rd.png", dpi=110)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
