"""The shipped trained sets as a user meets them: samples/photo.wai decodes without --model
(the set is found by the payload's id) to the pinned SHA-256 on the reference interpreter and
on the CPU backend, and --compare reports PSNR and bpp against samples/photo.png."""
import json
import subprocess

from conftest import REPO


def test_photo_decodes_with_the_shipped_set_on_every_unit(waihost, host_env, tmp_path):
    pinned = json.loads((REPO / "samples" / "photo.json").read_text())
    shas = []
    for unit in ("reference", "cpu"):
        r = subprocess.run([waihost, "decode", str(REPO / "samples" / "photo.wai"), "-o", str(tmp_path / "p.png"),
                            "--unit", unit, "--json", "--compare", str(REPO / "samples" / "photo.png")],
                           env=host_env, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        rep = json.loads(r.stdout)
        shas.append(rep["sha256"])
        assert (rep["width"], rep["height"]) == (pinned["width"], pinned["height"])
        c = rep["comparison"]
        assert c["bits_per_pixel"] == 8 * (REPO / "samples" / "photo.wai").stat().st_size / (rep["width"] * rep["height"])
        assert c["psnr_db"] is not None and c["mse"] > 0
    assert shas == [pinned["sha256"]] * 2


def test_encode_with_a_quality_outside_the_shipped_ones_is_a_usage_error(waihost, host_env, tmp_path):
    r = subprocess.run([waihost, "encode", str(REPO / "samples" / "photo.png"), "--quality", "9", "-o",
                        str(tmp_path / "x.wai")], env=host_env, capture_output=True, text=True)
    assert r.returncode == 2 and "--quality" in r.stderr


def test_png_header_past_the_memory_bound_is_refused_before_decoding(waihost, host_env, tmp_path):
    import struct
    import zlib

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
    png = tmp_path / "huge.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 30000, 30000, 8, 2, 0, 0, 0))
                    + chunk(b"IDAT", zlib.compress(b"\0" * 1000)) + chunk(b"IEND", b""))
    r = subprocess.run([waihost, "encode", str(png), "--quality", "2", "-o", str(tmp_path / "x.wai")],
                       env=host_env, capture_output=True, text=True)
    assert r.returncode == 1
    assert "30000×30000" in r.stderr and "18918×18918" in r.stderr
