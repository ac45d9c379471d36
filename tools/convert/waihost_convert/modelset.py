"""Writing a model-set folder: its containers and entropy files, and manifest.json with every
file's SHA-256 (docs/capabilities/int_hyper.md §2.1, video_int_motion.md §2.1,
video_int_cond.md §2.1)."""
import hashlib
import json
import re
from pathlib import Path

LABEL = re.compile(r"^[A-Za-z0-9._-]+$")


def write(converted, directory, name, version="1"):
    _check_label(name, version)
    files = {
        "entropy.json": converted.entropy,
        "h_s.whm": converted.h_s.encode(),
        "g_s.whm": converted.g_s.encode(),
        "g_a.whm": converted.g_a.encode(),
        "h_a.whm": converted.h_a.encode(),
    }
    manifest = {"capability": "wai.neural.int_hyper", "format_version": 1, "name": name, "version": version}
    if converted.analysis_shift:
        manifest["analysis_shift"] = converted.analysis_shift
    return _write_set(files, tuple(files), directory, manifest)


MOTION_FILES = ("motion_entropy.json", "motion_h_s.whm", "residual_entropy.json", "residual_h_s.whm", "p_synth.whm",
                "motion_g_a.whm", "motion_h_a.whm", "predict.whm", "residual_g_a.whm", "residual_h_a.whm")
COND_FILES = ("cond_entropy.json", "cond_context.whm", "cond_prior.whm", "cond_synth.whm", "cond_g_a.whm",
              "cond_h_a.whm")


def _write_set(contents, order, directory, manifest):
    """The files in `order`, then manifest.json: `manifest`'s keys with "files" (each file's
    SHA-256) last."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    hashes = {}
    for f in order:
        (d / f).write_bytes(contents[f])
        hashes[f] = hashlib.sha256(contents[f]).hexdigest()
    (d / "manifest.json").write_text(json.dumps({**manifest, "files": hashes}, indent=2) + "\n")
    return hashes


def _check_label(name, version):
    if not (LABEL.match(name) and len(name) <= 64 and LABEL.match(version) and len(version) <= 32):
        raise ValueError(f"name {name!r} / version {version!r}: 1…64 (32) characters of A–Z a–z 0–9 . _ -")


def write_motion(converted, directory, name, version="1"):
    """A wai.video.int_motion set (docs/capabilities/video_int_motion.md §2.1): the five decoder
    and five encoder files, and the manifest with both analysis shifts."""
    _check_label(name, version)
    contents = dict(converted.entropy)
    contents.update({f: g.encode() for f, g in converted.graphs.items()})
    return _write_set(contents, MOTION_FILES, directory, {
        "capability": "wai.video.int_motion", "format_version": 1, "name": name, "version": version,
        "motion_analysis_shift": converted.analysis_shift, "residual_analysis_shift": converted.analysis_shift})


def write_cond(converted, directory, name, version="1"):
    """A wai.video.int_cond set (docs/capabilities/video_int_cond.md §2.1): the four decoder and
    two encoder files, and the manifest (no analysis shift: cond_g_a writes the coded y)."""
    _check_label(name, version)
    contents = {"cond_entropy.json": converted.entropy}
    contents.update({f: g.encode() for f, g in converted.graphs.items()})
    return _write_set(contents, COND_FILES, directory, {
        "capability": "wai.video.int_cond", "format_version": 1, "name": name, "version": version})
