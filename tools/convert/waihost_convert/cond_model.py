"""The conditional P-frame codec's float model (wai.video.int_cond,
docs/capabilities/video_int_cond.md §4.1): what tools/train/train_cond.py trains and what
cond.py converts. Its layers are the integer graphs' own, so the conversion changes nothing
but number formats:
- the context C is the reference's 4×4 blocks as 48 channels (space-to-depth, kept exact)
  beside K_f learned features (a 4×4/4 patch embedding, ReLU, a 3×3 conv, inverse GDN);
- the entropy model of y is a scale hyperprior whose last layer also sees a temporal prior
  computed from C (DCVC's contextual entropy model, without means);
- the synthesis reads y and C and ends in 48 channels that depth-to-space turns into the
  frame; its last layer starts as the copy of C's reference blocks, so an untrained model
  predicts "no change" (as ScaleSpaceFlow starts at zero flow);
- the analysis reads the current frame's blocks and C."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from compressai.entropy_models import EntropyBottleneck, GaussianConditional
from compressai.layers import GDN
from compressai.models.utils import conv, deconv

SCALES_MIN, SCALES_MAX, SCALES_LEVELS = 0.11, 256, 64  # CompressAI's default scale table
BLOCK = 4                                               # the context's and the synthesis' block
REF_CHANNELS = 3 * BLOCK * BLOCK                        # C's exact copy of the reference's blocks


class ConditionalCodec(nn.Module):
    def __init__(self, n, m, features):
        super().__init__()
        k = REF_CHANNELS + features
        self.n, self.m, self.features = n, m, features
        # C = concat(space_to_depth(ref), features(ref))
        self.context = nn.Sequential(nn.Conv2d(3, features, BLOCK, stride=BLOCK), nn.ReLU(),
                                     nn.Conv2d(features, features, 3, padding=1), GDN(features, inverse=True))
        # cond_g_a: (current, C) → y
        self.g_a_embed = nn.Sequential(nn.Conv2d(3, n, BLOCK, stride=BLOCK), nn.ReLU())
        self.g_a = nn.Sequential(conv(n + k, n), nn.ReLU(), conv(n, m))
        # cond_h_a (int_hyper's h_a) and the two halves of cond_prior
        self.h_a = nn.Sequential(conv(m, n, 3, 1), nn.ReLU(), conv(n, n), nn.ReLU(), conv(n, n))
        self.h_s = nn.Sequential(deconv(n, n), nn.ReLU(), deconv(n, n), nn.ReLU())
        self.temporal = nn.Sequential(conv(k, n), nn.ReLU(), conv(n, n), nn.ReLU())
        self.prior = nn.Sequential(conv(2 * n, m, 3, 1), nn.ReLU())
        # cond_synth: (C, y) → frame
        self.g_s = nn.Sequential(deconv(m, n), GDN(n, inverse=True), deconv(n, n), GDN(n, inverse=True))
        self.fuse = nn.Sequential(nn.Conv2d(n + k, n, 3, padding=1), GDN(n, inverse=True))
        self.out = nn.Conv2d(n + k, 3 * BLOCK * BLOCK, 1)
        self.entropy_bottleneck = EntropyBottleneck(n)
        self.gaussian_conditional = GaussianConditional(None)
        with torch.no_grad():
            self.out.weight.zero_()
            self.out.bias.zero_()
            for c in range(REF_CHANNELS):
                self.out.weight[c, n + c] = 1.0

    def context_of(self, ref):
        return torch.cat((F.pixel_unshuffle(ref, BLOCK), self.context(ref)), dim=1)

    def scales(self, c, z_hat):
        return self.prior(torch.cat((self.h_s(z_hat), self.temporal(c)), dim=1))

    def synthesis(self, c, y_hat):
        x = self.fuse(torch.cat((self.g_s(y_hat), c), dim=1))
        return F.pixel_shuffle(self.out(torch.cat((x, c), dim=1)), BLOCK)

    def analysis(self, cur, c):
        return self.g_a(torch.cat((self.g_a_embed(cur), c), dim=1))

    def forward(self, cur, ref):
        c = self.context_of(ref)
        y = self.analysis(cur, c)
        z = self.h_a(torch.abs(y))
        z_hat, z_lik = self.entropy_bottleneck(z)
        y_hat, y_lik = self.gaussian_conditional(y, self.scales(c, z_hat))
        return {"x_hat": self.synthesis(c, y_hat), "likelihoods": (y_lik, z_lik)}

    def aux_loss(self):
        return self.entropy_bottleneck.loss()

    def update(self):
        table = torch.exp(torch.linspace(math.log(SCALES_MIN), math.log(SCALES_MAX), SCALES_LEVELS))
        self.gaussian_conditional.update_scale_table(table, force=True)
        self.entropy_bottleneck.update(force=True)
