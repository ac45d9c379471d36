"""Calibration: the per-channel largest |value| a float model's activations reach on the
calibration inputs, and the integer step each gets from it. One base for the picture codec
(convert.py) and both P-frame codecs (ssf.py, cond.py), which differ only in what they run."""
import numpy as np
import torch

from .layers import ACT

HEADROOM = 2.0  # calibrated ranges are widened by this much: other inputs reach further


class ActivationStats:
    """Runs `self._run(model, *args)` for each tuple of arguments in `inputs`, without
    gradients; `_run` notes what it sees."""

    def __init__(self, model, inputs):
        self.stats = {}
        with torch.no_grad():
            for args in inputs:
                self._run(model, *args)

    def _note(self, key, t):
        v = t.detach().abs().amax(dim=(0, 2, 3)).double().numpy()
        self.stats[key] = np.maximum(self.stats.get(key, v), v)

    def _hyper_analysis(self, lat, y, prefix=""):
        """h_a on |y| (noting `{prefix}h_a.1`, `.3`), z rounded with the medians subtracted
        (`{prefix}z`) as the integer h_a writes it; returns ẑ = z + medians, h_s's input."""
        h = torch.abs(y)
        for i, layer in enumerate(lat.h_a):
            h = layer(h)
            if i in (1, 3):
                self._note(f"{prefix}h_a.{i}", h)
        med = lat.entropy_bottleneck._get_medians().detach().reshape(1, -1, 1, 1)
        z = torch.round(h - med)
        self._note(f"{prefix}z", z)
        return z + med

    def step(self, key, levels=ACT):
        m = self.stats[key] * HEADROOM
        return np.where(m > 0, m / levels, 1.0 / levels)
