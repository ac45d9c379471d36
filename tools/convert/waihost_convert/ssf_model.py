"""The scale-space-flow P-frame codec's float model (wai.video.int_motion,
docs/capabilities/video_int_motion.md §4): what tools/train/train_ssf.py trains and what
ssf.py converts. The structure is the integer graphs' own, so the conversion changes
nothing but number formats:
- the flow is in pixel units (dx, dy) and scale steps (ds), not grid_sample's normalised
  coordinates, so one set codes every frame size;
- the scale-space volume is a fixed 5x5 binomial blur ([1 4 6 4 1] outer itself, / 256,
  zero padding) applied 2^k - 1 times for level k;
- the warp is trilinear with border padding on every axis and pixel centres at integer
  coordinates (docs/integer-ops.md §4.10), i.e. grid_sample(align_corners=True);
- both latents are scale hyperpriors with CompressAI ScaleHyperprior's h_a / h_s layout."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from compressai.entropy_models import EntropyBottleneck, GaussianConditional
from compressai.models.utils import conv, deconv

SCALES_MIN, SCALES_MAX, SCALES_LEVELS = 0.11, 256, 64  # CompressAI's default scale table


def analysis(cin, n, m):
    return nn.Sequential(conv(cin, n), nn.ReLU(), conv(n, n), nn.ReLU(), conv(n, n), nn.ReLU(), conv(n, m))


def synthesis(m, n, cout):
    return nn.Sequential(deconv(m, n), nn.ReLU(), deconv(n, n), nn.ReLU(), deconv(n, n), nn.ReLU(), deconv(n, cout))


class ScaleHyperpriorLatent(nn.Module):
    """One hyperprior-coded latent: CompressAI ScaleHyperprior's h_a, h_s and entropy models."""

    def __init__(self, n, m):
        super().__init__()
        self.h_a = nn.Sequential(conv(m, n, 3, 1), nn.ReLU(), conv(n, n), nn.ReLU(), conv(n, n))
        self.h_s = nn.Sequential(deconv(n, n), nn.ReLU(), deconv(n, n), nn.ReLU(), conv(n, m, 3, 1), nn.ReLU())
        self.entropy_bottleneck = EntropyBottleneck(n)
        self.gaussian_conditional = GaussianConditional(None)

    def forward(self, y):
        z = self.h_a(torch.abs(y))
        z_hat, z_lik = self.entropy_bottleneck(z)
        scales = self.h_s(z_hat)
        y_hat, y_lik = self.gaussian_conditional(y, scales)
        return y_hat, (y_lik, z_lik)


def binomial_kernel(channels):
    k1 = torch.tensor([1.0, 4.0, 6.0, 4.0, 1.0])
    k = torch.outer(k1, k1) / 256.0
    return k.expand(channels, 1, 5, 5).contiguous()


class ScaleSpaceFlow(nn.Module):
    def __init__(self, n, m, scales):
        super().__init__()
        self.scales = scales
        self.motion_g_a = analysis(6, n, m)
        self.motion = ScaleHyperpriorLatent(n, m)
        self.motion_g_s = synthesis(m, n, 3)
        self.residual_g_a = analysis(3, n, m)
        self.residual = ScaleHyperpriorLatent(n, m)
        self.residual_g_s = synthesis(2 * m, n, 3)
        self.register_buffer("blur", binomial_kernel(3), persistent=False)
        # Zero latents should predict "no motion": start the flow at zero.
        nn.init.zeros_(self.motion_g_s[-1].weight)
        nn.init.zeros_(self.motion_g_s[-1].bias)

    def volume(self, ref):
        """(N, 3, S, H, W): level k is the binomial blur applied 2^k - 1 times, with the zero
        padding of the integer graph's conv2d (video_int_motion.md section 4)."""
        levels, cur, applied = [ref], ref, 0
        for k in range(1, self.scales):
            while applied < 2 ** k - 1:
                cur = F.conv2d(cur, self.blur, padding=2, groups=3)
                applied += 1
            levels.append(cur)
        return torch.stack(levels, dim=2)

    def warp(self, vol, flow):
        n, _, s, h, w = vol.shape
        jj = torch.arange(w, dtype=flow.dtype).view(1, 1, w)
        ii = torch.arange(h, dtype=flow.dtype).view(1, h, 1)
        x = (jj + flow[:, 0]).clamp(0, w - 1) * (2 / max(w - 1, 1)) - 1
        y = (ii + flow[:, 1]).clamp(0, h - 1) * (2 / max(h - 1, 1)) - 1
        z = flow[:, 2].clamp(0, s - 1) * (2 / max(s - 1, 1)) - 1
        grid = torch.stack((x, y, z), dim=-1).unsqueeze(1)  # (N, 1, H, W, 3)
        out = F.grid_sample(vol, grid, mode="bilinear", padding_mode="border", align_corners=True)
        return out.squeeze(2)

    def forward(self, cur, ref):
        y_m = self.motion_g_a(torch.cat((cur, ref), dim=1))
        y_m_hat, lik_m = self.motion(y_m)
        flow = self.motion_g_s(y_m_hat)
        with torch.autocast("cpu", enabled=False):  # the volume and the warp stay fp32
            pred = self.warp(self.volume(ref.float()), flow.float())
        y_r = self.residual_g_a(cur - pred)
        y_r_hat, lik_r = self.residual(y_r)
        x_hat = pred + self.residual_g_s(torch.cat((y_r_hat, y_m_hat), dim=1))
        return {"x_hat": x_hat, "pred": pred, "flow": flow, "likelihoods": lik_m + lik_r}

    def aux_loss(self):
        return self.motion.entropy_bottleneck.loss() + self.residual.entropy_bottleneck.loss()

    def update(self):
        table = torch.exp(torch.linspace(math.log(SCALES_MIN), math.log(SCALES_MAX), SCALES_LEVELS))
        for lat in (self.motion, self.residual):
            lat.gaussian_conditional.update_scale_table(table, force=True)
            lat.entropy_bottleneck.update(force=True)
