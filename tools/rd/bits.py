"""Where the int_hyper sets' bits go, against their float twins: per evaluation picture and
rate point, the bits of z and of y for (a) the float model's own likelihoods, (b) CompressAI's
compress() strings and its quantised tables, (c) the integer set (the converter's graphs run
exactly in Python, costed with entropy.json's tables, and the host's payload when --waihost is
given), and the y excess split into its causes, each step changing one thing:

  float ideal      round(y), the float σ (lower-bounded at 0.11), the Gaussian's likelihood
  σ → table        the same, σ replaced by the scale-table entry CompressAI's build_indexes picks
  integer index    the table entry the integer h_s picks from the integer z (float y symbols)
  table precision  the same symbols and indices costed with entropy.json's integer tables
                   (their 16-bit frequencies and minimum frequency 1; escapes split out)
  integer y        the integer g_a's symbols instead of round(y)
  payload          the host's y stream (rANS, lane tables, flushed states) against that cost

Usage: bits.py --calibration CAL.png… [--sets samples/models] [--only q1,q2] [--waihost
.build/release/waihost] [--analysis-shift K] [--json OUT]
(run from the repository root with the tools venv; tools/convert on PYTHONPATH)."""
import argparse
import json
import math
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools" / "rd"))
sys.path.insert(0, str(REPO / "tools" / "train"))
from rd_report import eval_images  # noqa: E402
from waihost_convert import checkpoint, convert, evaluate, simulate, tables  # noqa: E402


COLUMNS = ("Bits per picture. z: the float model's own likelihood; the float symbols with entropy.json's z tables; "
           "the integer h_a's z with them. y: the float likelihood of round(y) at the float σ; at the scale-table σ "
           "CompressAI's build_indexes picks; at the table σ the integer h_s picks from the integer z; the same with "
           "entropy.json's integer tables (escapes: what the values outside a table's direct range cost, in it); the "
           "integer g_a's y with them. Payload: the host's z and y streams and the whole bare payload (58-byte header "
           "and lane tables included). CompressAI: the lengths of compress()'s strings (the picture padded to 64, so "
           "a few more latents). Sums in % of the float likelihood (z columns of z's, y columns of y's).")


def table_costs(entropy_tables):
    """Per table: (offset, escape, −log2 p of each symbol)."""
    out = []
    for t in entropy_tables:
        f = np.diff(np.asarray(t["cdf"], dtype=np.float64))
        out.append((t["offset"], t["escape"], -np.log2(f / f.sum())))
    return out


def integer_cost(values, table_index, costs):
    """Bits to code each value with its table (escape + nibbles for values outside), split
    into direct and escape bits."""
    values = values.reshape(-1).astype(np.int64)
    table_index = np.asarray(table_index).reshape(-1)
    direct = np.zeros(values.shape)
    escape = np.zeros(values.shape)
    for k in np.unique(table_index):
        sel = table_index == k
        off, esc, c = costs[k]
        v = values[sel]
        s = v - off
        s = np.where(s >= esc, s + 1, s)  # symbols above the escape are shifted by one
        lo, hi = off, off + len(c) - 2
        inside = (v >= lo) & (v <= hi)
        d = np.zeros(v.shape)
        d[inside] = c[s[inside]]
        r = np.where(v > hi, 2 * (v - hi - 1), 2 * (lo - v - 1) + 1)
        nib = np.array([0 if x == 0 else (int(x).bit_length() + 3) // 4 for x in r[~inside]])
        e = np.zeros(v.shape)
        e[~inside] = c[esc] + 4 + 4 * nib
        direct[sel], escape[sel] = d, e
    return float(direct.sum()), float(escape.sum())


def gauss_bits(sym, sigma):
    """CompressAI's Gaussian-conditional likelihood of integer symbols, −log2."""
    sym = torch.as_tensor(sym, dtype=torch.float64)
    sigma = torch.as_tensor(sigma, dtype=torch.float64).clamp_min(0.11)
    v = sym.abs()
    cdf = lambda x: 0.5 * torch.erfc(-x / math.sqrt(2))
    lik = (cdf((0.5 - v) / sigma) - cdf((-0.5 - v) / sigma)).clamp_min(1e-9)
    return float(-torch.log2(lik).sum())


def payload_lengths(waihost, model_dir, rgb):
    with tempfile.TemporaryDirectory() as tmp:
        src, wai = Path(tmp) / "in.png", Path(tmp) / "in.wai"
        Image.fromarray(rgb).save(src)
        subprocess.run([waihost, "encode", str(src), "--model", str(model_dir), "-o", str(wai), "--raw"],
                       check=True, capture_output=True)
        b = wai.read_bytes()
    _, z_len, _, y_len = struct.unpack_from("<IIII", b, 42)
    return {"bytes": len(b), "z_bits": 8 * z_len, "y_bits": 8 * y_len, "header_bits": 8 * 58}


def analyse(model, conv, entropy, rgb, waihost=None, model_dir=None):
    h, w, _ = rgb.shape
    yh, yw = -(-h // 16), -(-w // 16)
    zh, zw = -(-yh // 4), -(-yw // 4)
    px = h * w
    x = evaluate.to_tensor(rgb)
    xp = F.pad(x, (0, (64 - w % 64) % 64, 0, (64 - h % 64) % 64), mode="replicate")
    gc, eb = model.gaussian_conditional, model.entropy_bottleneck
    with torch.no_grad():
        y = model.g_a(xp)
        z = model.h_a(torch.abs(y))
        z_hat, z_lik = eb(z, training=False)
        sigma = model.h_s(z_hat)
        ys = torch.round(y)
        yc, sc = ys[0, :, :yh, :yw], sigma[0, :, :yh, :yw]
        r = {}
        r["z_float"] = float(-torch.log2(z_lik[:, :, :zh, :zw]).sum())
        r["y_float"] = gauss_bits(yc, sc)
        st = torch.from_numpy(tables.scale_table(model))
        idx_f = gc.build_indexes(sc[None])[0]
        r["y_sigma_table"] = gauss_bits(yc, st[idx_f.long()])
        # CompressAI's actual strings (the padded picture) and its own quantised tables on our crop
        c = model.compress(xp)
        r["compressai_y_string"] = 8 * len(c["strings"][0][0])
        r["compressai_z_string"] = 8 * len(c["strings"][1][0])
    # the integer graphs, exactly
    pic = np.asarray(rgb, dtype=np.int64).transpose(2, 0, 1)
    pic = np.pad(pic, ((0, 0), (0, 16 * yh - h), (0, 16 * yw - w)), mode="edge")
    analysed = simulate.run(conv.g_a, pic)[conv.g_a.outputs[0]]
    yi = conv.coded_y(analysed)
    zi = simulate.run(conv.h_a, analysed)[conv.h_a.outputs[0]]
    idx_i = simulate.run(conv.h_s, zi)[conv.h_s.outputs[0]][:, :yh, :yw]
    ycost, zcost = table_costs(entropy["y_tables"]), table_costs(entropy["z_tables"])
    yf = yc.numpy().astype(np.int64)
    r["y_int_index"] = gauss_bits(yf, st[torch.from_numpy(idx_i)])
    d, e = integer_cost(yf, idx_i, ycost)
    r["y_tables_direct"], r["y_tables_escape"] = d, e
    d, e = integer_cost(yi, idx_i, ycost)
    r["y_int_direct"], r["y_int_escape"] = d, e
    r["y_symbols_differ"] = float(np.mean(yi != yf))
    r["index_differs"] = float(np.mean(idx_i != idx_f.numpy()))
    r["index_mean_shift"] = float(np.mean(idx_i - idx_f.numpy()))
    # z: the float symbols with the integer tables, then the integer symbols
    med = eb._get_medians().detach().reshape(-1, 1, 1)
    zsf = torch.round(z[0, :, :zh, :zw] - med).numpy().astype(np.int64)
    ch = np.arange(zsf.shape[0])[:, None, None] * np.ones_like(zsf)
    r["z_float_symbols_int_tables"] = sum(integer_cost(zsf, ch, zcost))
    r["z_int"] = sum(integer_cost(zi, np.arange(zi.shape[0])[:, None, None] * np.ones_like(zi), zcost))
    r["z_symbols_differ"] = float(np.mean(zi != zsf))
    if waihost:
        r["payload"] = payload_lengths(waihost, model_dir, rgb)
    r["pixels"] = px
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", default=str(REPO / "samples" / "models"))
    ap.add_argument("--only", default=None, help="comma-separated set names (default: every set)")
    ap.add_argument("--calibration", nargs="+", help="the calibration pictures the sets were made with")
    ap.add_argument("--from-json", help="render a table measured before (--json) instead of measuring")
    ap.add_argument("--md", help="write the table as markdown here (else stdout)")
    ap.add_argument("--title", default="Where the bits go", help="the markdown section's title")
    ap.add_argument("--waihost")
    ap.add_argument("--json")
    ap.add_argument("--long-side", type=int, default=768)
    ap.add_argument("--analysis-shift", type=int, default=None,
                    help="convert with this analysis_shift instead of the converter's (0: h_a on the rounded y, as "
                         "before it existed); the payload column is then left out")
    args = ap.parse_args()
    if args.from_json:
        return emit(args, json.loads(Path(args.from_json).read_text()))
    if not args.calibration:
        ap.error("--calibration is needed to measure")
    if args.analysis_shift is not None and args.analysis_shift != convert.ANALYSIS_SHIFT:
        convert.ANALYSIS_SHIFT = args.analysis_shift
        args.waihost = None
    torch.set_num_threads(1)
    sets = sorted(p for p in Path(args.sets).iterdir() if (p / "convert.json").is_file())
    if args.only:
        sets = [s for s in sets if s.name in args.only.split(",")]
    cal = [evaluate.to_tensor(evaluate.load_rgb(p)) for p in args.calibration]
    images = eval_images(args.long_side)
    out = {}
    for s in sets:
        info = json.loads((s / "convert.json").read_text())
        model, _, _ = checkpoint.load(REPO / info["checkpoint"])
        model.update(force=True)
        conv = convert.convert(model, cal, info["latent_step"])
        entropy = json.loads(conv.entropy)
        if conv.entropy != (s / "entropy.json").read_bytes():
            print(f"{s.name}: note: the converter's entropy.json differs from the shipped one", file=sys.stderr)
        out[s.name] = {}
        for name, rgb in images:
            r = analyse(model, conv, entropy, rgb, args.waihost, s)
            out[s.name][name] = r
            print(s.name, name, json.dumps({k: (round(v) if isinstance(v, float) and v > 10 else v)
                                            for k, v in r.items()}), file=sys.stderr, flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    emit(args, out)


def emit(args, out):
    text = "\n".join([f"## {args.title}", "", COLUMNS, ""] + report(out)) + "\n"
    if args.md:
        Path(args.md).write_text(text)
    else:
        print(text)



def report(out):
    """One row per picture and a sum row per set: the columns of COLUMNS."""
    heads = ["z float", "z int tables", "z integer", "y float", "σ→table", "int index", "int tables",
             "of which escapes", "int y"]
    lines = ["| set | image | " + " | ".join(heads) + " | payload z / y / total | CompressAI z / y |",
             "|---|---|" + "---|" * (len(heads) + 2)]
    for s, rows in out.items():
        tot = np.zeros(len(heads))
        pay = np.zeros(3)
        cai = np.zeros(2)
        for name, r in rows.items():
            vals = np.array([r["z_float"], r["z_float_symbols_int_tables"], r["z_int"], r["y_float"], r["y_sigma_table"],
                             r["y_int_index"], r["y_tables_direct"] + r["y_tables_escape"], r["y_tables_escape"],
                             r["y_int_direct"] + r["y_int_escape"]])
            tot += vals
            cai += [r["compressai_z_string"], r["compressai_y_string"]]
            p = r.get("payload")
            if p:
                pay += [p["z_bits"], p["y_bits"], 8 * p["bytes"]]
            ptxt = f"{p['z_bits']} / {p['y_bits']} / {8 * p['bytes']}" if p else "–"
            lines.append(f"| {s} | {name} | " + " | ".join(f"{v:.0f}" for v in vals) + f" | {ptxt} | "
                         f"{r['compressai_z_string']} / {r['compressai_y_string']} |")
        fz, fy = tot[0], tot[3]
        pct = lambda a, b: f"{100 * (a / b - 1):+.1f} %"
        cells = [pct(tot[i], fz if i < 3 else fy) for i in range(len(heads))]
        cells[7] = f"{100 * tot[7] / fy:.1f} % of y"
        ptxt = f"{pct(pay[0], fz)} / {pct(pay[1], fy)} / {pct(pay[2], fz + fy)}" if pay[2] else "–"
        lines.append(f"| {s} | **sum vs float** | " + " | ".join(cells) + f" | {ptxt} | "
                     f"{pct(cai[0], fz)} / {pct(cai[1], fy)} |")
    return lines


if __name__ == "__main__":
    main()
