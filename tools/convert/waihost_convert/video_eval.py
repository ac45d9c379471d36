"""Rate and PSNR of a P-frame set (int_motion or int_cond) on a Y4M clip, as a user meets
them: `waihost encode` with the set and an intra set, `waihost decode`, and ffmpeg's psnr filter between the decoded
and the source Y4M (Y'CbCr, the planes the clip holds)."""
import json
import re
import subprocess
import tempfile
from pathlib import Path

PSNR_LINE = re.compile(r"PSNR y:([0-9.inf]+) u:([0-9.inf]+) v:([0-9.inf]+) average:([0-9.inf]+)")


def y4m_header(path):
    """(width, height, fps as a float, frame count) of a Y4M file."""
    data = Path(path).read_bytes()
    head = data[:data.index(b"\n")].decode("ascii", "replace").split()
    if not head or head[0] != "YUV4MPEG2":
        raise ValueError(f"{path}: not a YUV4MPEG2 file")
    fields = {t[0]: t[1:] for t in head[1:]}
    num, den = (int(v) for v in fields.get("F", "25:1").split(":"))
    return int(fields["W"]), int(fields["H"]), num / den, data.count(b"FRAME")


def ffmpeg_psnr(decoded, source):
    r = subprocess.run(["ffmpeg", "-hide_banner", "-nostats", "-i", str(decoded), "-i", str(source), "-lavfi", "psnr",
                        "-f", "null", "-"], capture_output=True, text=True, check=True)
    m = PSNR_LINE.search(r.stderr)
    if m is None:
        raise RuntimeError(f"ffmpeg printed no PSNR line for {decoded}: {r.stderr[-400:]}")
    return {k: float(v) for k, v in zip(("y", "u", "v", "average"), m.groups())}


def integer_clip(waihost, set_dir, clip, gop, intra=None, quality=2, unit=None, env=None, option="--motion-model"):
    """`option` names the set's kind: --motion-model (int_motion) or --cond-model (int_cond)."""
    w, h, fps, frames = y4m_header(clip)
    with tempfile.TemporaryDirectory() as tmp:
        wai, out = Path(tmp) / "clip.wai", Path(tmp) / "clip.y4m"
        intra_sel = ["--model", str(intra)] if intra else ["--quality", str(quality)]
        sel = ["--unit", unit] if unit else []
        subprocess.run([waihost, "encode", str(clip), option, str(set_dir), "--gop", str(gop),
                        *intra_sel, "-o", str(wai), *sel], check=True, capture_output=True, env=env)
        dec_sel = ["--model", str(intra)] if intra else []
        r = subprocess.run([waihost, "decode", str(wai), option, str(set_dir), *dec_sel, "-o", str(out),
                            "--json", *sel], check=True, capture_output=True, text=True, env=env)
        report = json.loads(r.stdout)
        size = wai.stat().st_size
        return {"clip": str(clip), "width": w, "height": h, "frames": frames, "gop": gop, "bytes": size,
                "bpp": 8 * size / (w * h * frames), "kbit_per_s": 8 * size * fps / frames / 1000,
                "psnr": ffmpeg_psnr(out, clip), "frame_sha256": [f["sha256"] for f in report["frames"]]}
