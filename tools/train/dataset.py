"""Which photographs train and which evaluate. Training uses only pictures that Debian's
gnome-backgrounds and plasma-workspace-wallpapers packages ship; the held-out wallpapers
below and scikit-image's sample photographs are the evaluation set and never trained on."""
from pathlib import Path

PLASMA = Path("/usr/share/wallpapers")
GNOME = Path("/usr/share/backgrounds/gnome")
# Held out for evaluation: never trained on.
HELD_OUT = {"Kite", "MilkyWay", "Autumn"}
# Synthetic or near-empty pictures that teach nothing about photographs.
SKIP_GNOME = {"vnc-d", "vnc-l"}


def _largest(folder: Path):
    imgs = [p for p in (folder / "contents" / "images").glob("*") if p.is_file() and not p.is_symlink()
            and p.stat().st_size > 10_000]
    return max(imgs, key=lambda p: p.stat().st_size) if imgs else None


def plasma_wallpapers():
    """(name, path of its largest picture) for every Plasma wallpaper installed."""
    out = []
    for d in sorted(PLASMA.iterdir()) if PLASMA.is_dir() else []:
        p = _largest(d)
        if p is not None:
            out.append((d.name, p))
    return out


def training_images():
    paths = [p for name, p in plasma_wallpapers() if name not in HELD_OUT]
    if GNOME.is_dir():
        paths += [p for p in sorted(GNOME.glob("*.webp")) if p.stem not in SKIP_GNOME and p.stat().st_size > 10_000]
    if not paths:
        raise SystemExit("no training photographs: apt-get install gnome-backgrounds plasma-workspace-wallpapers")
    return paths


def held_out_images():
    return [p for name, p in plasma_wallpapers() if name in HELD_OUT]
