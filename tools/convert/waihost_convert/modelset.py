"""Writing the model-set folder: the four containers, entropy.json and manifest.json with
every file's SHA-256 (docs/capabilities/int_hyper.md §2.1)."""
import hashlib
import json
import re
from pathlib import Path

LABEL = re.compile(r"^[A-Za-z0-9._-]+$")


def write(converted, directory, name, version="1"):
    if not (LABEL.match(name) and len(name) <= 64 and LABEL.match(version) and len(version) <= 32):
        raise ValueError(f"name {name!r} / version {version!r}: 1…64 (32) characters of A–Z a–z 0–9 . _ -")
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    files = {
        "entropy.json": converted.entropy,
        "h_s.whm": converted.h_s.encode(),
        "g_s.whm": converted.g_s.encode(),
        "g_a.whm": converted.g_a.encode(),
        "h_a.whm": converted.h_a.encode(),
    }
    hashes = {}
    for f, b in files.items():
        (d / f).write_bytes(b)
        hashes[f] = hashlib.sha256(b).hexdigest()
    manifest = {"capability": "wai.neural.int_hyper", "format_version": 1, "name": name, "version": version}
    if converted.analysis_shift:
        manifest["analysis_shift"] = converted.analysis_shift
    manifest["files"] = hashes
    (d / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return hashes


MOTION_FILES = ("motion_entropy.json", "motion_h_s.whm", "residual_entropy.json", "residual_h_s.whm", "p_synth.whm",
                "motion_g_a.whm", "motion_h_a.whm", "predict.whm", "residual_g_a.whm", "residual_h_a.whm")


def write_motion(converted, directory, name, version="1"):
    """A wai.video.int_motion set (docs/capabilities/video_int_motion.md §2.1): the five decoder
    and five encoder files, and the manifest with both analysis shifts."""
    if not (LABEL.match(name) and len(name) <= 64 and LABEL.match(version) and len(version) <= 32):
        raise ValueError(f"name {name!r} / version {version!r}: 1…64 (32) characters of A–Z a–z 0–9 . _ -")
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    contents = dict(converted.entropy)
    contents.update({f: g.encode() for f, g in converted.graphs.items()})
    hashes = {}
    for f in MOTION_FILES:
        (d / f).write_bytes(contents[f])
        hashes[f] = hashlib.sha256(contents[f]).hexdigest()
    manifest = {"capability": "wai.video.int_motion", "format_version": 1, "name": name, "version": version,
                "motion_analysis_shift": converted.analysis_shift, "residual_analysis_shift": converted.analysis_shift,
                "files": hashes}
    (d / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return hashes
