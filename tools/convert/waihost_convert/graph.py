"""Integer graphs as the host reads them: docs/integer-ops.md (ops, §5 certificate) and
docs/model-container.md (the .whm bytes). Every tensor's interval is computed here by the
certificate rules, exactly (Python integers), so the host's verifier recomputes the same
intervals and accepts the file; a rule that fails raises before anything is written."""
import hashlib
import math
import struct
from dataclasses import dataclass, field

import numpy as np

INT32 = (-(1 << 31), (1 << 31) - 1)
NARROW = (-32768, 32767)
CONV2D, CONV_T, REQUANTIZE, ADD, CLAMP, D2S, CONCAT, LOOKUP, IGDN, WARP = range(1, 11)
MAGIC = bytes([0x89, 0x57, 0x48, 0x4D, 0x0D, 0x0A, 0x1A, 0x0A])


class CertificateError(ValueError):
    pass


def rnd(x: int, s: int) -> int:
    return x if s == 0 else (x + (1 << (s - 1))) >> s


def _in32(v: int, what: str):
    if not INT32[0] <= v <= INT32[1]:
        raise CertificateError(f"{what}: {v} leaves int32")


@dataclass
class Tensor:
    name: str
    shape: tuple  # (C, H, W)
    lo: int
    hi: int
    storage: int = 0  # 16 or 32, chosen from the interval when 0


@dataclass
class Node:
    op: int
    inputs: list
    output: int
    params: dict = field(default_factory=dict)


class Graph:
    """A graph being built: each add_* appends a node and returns its output tensor index,
    with the output's interval computed by the rule of docs/integer-ops.md §5."""

    def __init__(self):
        self.tensors: list[Tensor] = []
        self.nodes: list[Node] = []
        self.inputs: list[int] = []
        self.outputs: list[int] = []

    def _tensor(self, name, shape, lo, hi):
        storage = 16 if NARROW[0] <= lo and hi <= NARROW[1] else 32
        if not (INT32[0] <= lo <= hi <= INT32[1]):
            raise CertificateError(f"tensor {name}: interval [{lo}, {hi}] leaves int32")
        self.tensors.append(Tensor(name, tuple(int(v) for v in shape), int(lo), int(hi), storage))
        return len(self.tensors) - 1

    def input(self, name, shape, lo, hi):
        t = self._tensor(name, shape, lo, hi)
        self.inputs.append(t)
        return t

    def shape(self, t):
        return self.tensors[t].shape

    def interval(self, t):
        return self.tensors[t].lo, self.tensors[t].hi

    def conv(self, x, weights, bias, stride, pad, transposed=False, output_pad=0, name="conv"):
        w = np.asarray(weights, dtype=np.int64)
        b = [int(v) for v in np.asarray(bias, dtype=np.int64)]
        if w.min() < -32768 or w.max() > 32767:
            raise CertificateError(f"{name}: weight outside int16")
        c, h, wd = self.shape(x)
        if transposed:
            cin, cout, kh, kw = w.shape
            ho = (h - 1) * stride - 2 * pad + kh + output_pad
            wo = (wd - 1) * stride - 2 * pad + kw + output_pad
            per_out = w.transpose(1, 0, 2, 3).reshape(cout, -1)
        else:
            cout, cin, kh, kw = w.shape
            ho = (h + 2 * pad - kh) // stride + 1
            wo = (wd + 2 * pad - kw) // stride + 1
            per_out = w.reshape(cout, -1)
        assert cin == c, f"{name}: {cin} input channels, tensor has {c}"
        a, bb = self.interval(x)
        lo_in, hi_in = min(a, 0), max(bb, 0)
        pos = [int(v) for v in np.where(per_out > 0, per_out, 0).sum(1)]
        neg = [int(v) for v in np.where(per_out < 0, per_out, 0).sum(1)]
        los, his = [], []
        for o in range(cout):
            s_lo = lo_in * pos[o] + hi_in * neg[o]
            s_hi = hi_in * pos[o] + lo_in * neg[o]
            for v in (s_lo, s_hi, b[o] + s_lo, b[o] + s_hi):
                _in32(v, f"{name} channel {o} accumulator")
            los.append(b[o] + s_lo)
            his.append(b[o] + s_hi)
        out = self._tensor(name, (cout, ho, wo), min(los), max(his))
        self.nodes.append(Node(CONV_T if transposed else CONV2D, [x], out, dict(
            kh=kh, kw=kw, stride=stride, pad=pad, output_pad=output_pad, weights=w.astype(np.int16), bias=b)))
        return out

    def requantize(self, x, multiplier, shift, lo, hi, name="requantize"):
        m = [int(v) for v in multiplier]
        s = [int(v) for v in shift]
        a, b = self.interval(x)
        los, his = [], []
        for c in range(len(m)):
            assert 1 <= m[c] <= INT32[1] and 0 <= s[c] <= 31, (name, c, m[c], s[c])
            half = (1 << (s[c] - 1)) if s[c] else 0
            for v in (a * m[c], b * m[c], a * m[c] + half, b * m[c] + half):
                _in32(v, f"{name} channel {c}")
            los.append(min(max(rnd(a * m[c], s[c]), lo), hi))
            his.append(min(max(rnd(b * m[c], s[c]), lo), hi))
        out = self._tensor(name, self.shape(x), min(los), max(his))
        self.nodes.append(Node(REQUANTIZE, [x], out, dict(m=m, s=s, lo=int(lo), hi=int(hi))))
        return out

    def add(self, a, b, name="add"):
        """docs/integer-ops.md §4.4; §5: [a1 + a2, b1 + b2] in int32."""
        if self.shape(a) != self.shape(b):
            raise CertificateError(f"{name}: shapes {self.shape(a)} and {self.shape(b)} differ")
        (a1, b1), (a2, b2) = self.interval(a), self.interval(b)
        out = self._tensor(name, self.shape(a), a1 + a2, b1 + b2)
        self.nodes.append(Node(ADD, [a, b], out))
        return out

    def clamp(self, x, lo, hi, name="clamp"):
        a, b = self.interval(x)
        out = self._tensor(name, self.shape(x), min(max(a, lo), hi), min(max(b, lo), hi))
        self.nodes.append(Node(CLAMP, [x], out, dict(lo=int(lo), hi=int(hi))))
        return out

    def depth_to_space(self, x, block, name="depth_to_space"):
        """docs/integer-ops.md §4.6 (PyTorch's pixel_shuffle); §5: the input's interval."""
        c, h, w = self.shape(x)
        if block < 2 or c % (block * block):
            raise CertificateError(f"{name}: block {block} does not divide {c} channels into squares")
        out = self._tensor(name, (c // (block * block), h * block, w * block), *self.interval(x))
        self.nodes.append(Node(D2S, [x], out, dict(block=int(block))))
        return out

    def lookup(self, x, table, offset, name="lookup"):
        t = [int(v) for v in table]
        assert 1 <= len(t) <= 65536
        a, b = self.interval(x)
        _in32(a - offset, name)
        _in32(b - offset, name)
        i_lo = min(max(a - offset, 0), len(t) - 1)
        i_hi = min(max(b - offset, 0), len(t) - 1)
        part = t[i_lo:i_hi + 1]
        out = self._tensor(name, self.shape(x), min(part), max(part))
        self.nodes.append(Node(LOOKUP, [x], out, dict(offset=int(offset), table=t)))
        return out

    def concat(self, xs, name="concat"):
        shapes = [self.shape(x) for x in xs]
        out = self._tensor(name, (sum(s[0] for s in shapes), shapes[0][1], shapes[0][2]),
                           min(self.tensors[x].lo for x in xs), max(self.tensors[x].hi for x in xs))
        self.nodes.append(Node(CONCAT, list(xs), out))
        return out

    def inverse_gdn(self, x, beta, gamma, square_shift, out_shift, name="inverse_gdn"):
        beta = [int(v) for v in beta]
        gamma = np.asarray(gamma, dtype=np.int64)
        c = len(beta)
        a, b = self.interval(x)
        if max(abs(a), abs(b)) > 46340:
            raise CertificateError(f"{name}: input interval [{a}, {b}] too wide for x·x")
        sq_hi = max(a * a, b * b) >> square_shift
        sq_lo = 0 if a <= 0 <= b else min(a * a, b * b) >> square_shift
        row = [int(v) for v in gamma.sum(1)]
        half = (1 << (out_shift - 1)) if out_shift else 0
        los, his = [], []
        for k in range(c):
            n_lo, n_hi = beta[k] + row[k] * sq_lo, beta[k] + row[k] * sq_hi
            _in32(n_lo, f"{name} channel {k} n")
            _in32(n_hi, f"{name} channel {k} n")
            r_lo, r_hi = math.isqrt(n_lo), math.isqrt(n_hi)
            corners = [a * r_lo, a * r_hi, b * r_lo, b * r_hi]
            for v in corners:
                _in32(v, name)
                _in32(v + half, name)
            los.append(rnd(min(corners), out_shift))
            his.append(rnd(max(corners), out_shift))
        out = self._tensor(name, self.shape(x), min(los), max(his))
        self.nodes.append(Node(IGDN, [x], out, dict(q=square_shift, s=out_shift, beta=beta, gamma=gamma.reshape(-1))))
        return out

    def warp(self, volume, flow, scales, frac_bits, name="warp"):
        """docs/integer-ops.md §4.10: volume (S·C)×H×W scale-major, flow 3×H×W (dx, dy, ds
        with frac_bits fractional bits); the §5 rule: coordinates and acc in int32, the
        output interval the volume's."""
        (cv, h, w), fshape = self.shape(volume), self.shape(flow)
        if not (1 <= scales <= 64 and 0 <= frac_bits <= 10 and cv % scales == 0 and fshape == (3, h, w)):
            raise CertificateError(f"{name}: {scales} scales, {frac_bits} fractional bits, volume {cv}×{h}×{w}, flow {fshape}")
        e = 1 << frac_bits
        e3 = e * e * e
        a, b = self.interval(volume)
        p, q = self.interval(flow)
        _in32((max(h, w) - 1) * e + max(q, 0), f"{name} sample coordinates")
        _in32(e3 * min(a, 0), f"{name} partial sums of acc")
        _in32(e3 * max(b, 0) + (e3 >> 1), f"{name} acc + 2^(3F-1)")
        out = self._tensor(name, (cv // scales, h, w), a, b)
        self.nodes.append(Node(WARP, [volume, flow], out, dict(scales=int(scales), frac_bits=int(frac_bits))))
        return out

    # docs/model-container.md
    def encode(self) -> bytes:
        def s(text):
            b = text.encode()
            return struct.pack("<I", len(b)) + b

        def i32s(vals):
            a = np.asarray(vals, dtype="<i4")
            return struct.pack("<I", a.size) + a.tobytes()

        out = bytearray(MAGIC)
        out += struct.pack("<HHIIII", 1, 0, len(self.tensors), len(self.nodes), len(self.inputs), len(self.outputs))
        for t in self.tensors:
            out += s(t.name) + struct.pack("<IIIBqq", *t.shape, t.storage, t.lo, t.hi)
        for n in self.nodes:
            out += struct.pack("<BI", n.op, len(n.inputs)) + struct.pack(f"<{len(n.inputs)}I", *n.inputs)
            out += struct.pack("<I", n.output)
            p = n.params
            if n.op in (CONV2D, CONV_T):
                w = np.asarray(p["weights"], dtype="<i2")
                out += struct.pack("<IIIIII", p["kh"], p["kw"], p["stride"], p["pad"], p["output_pad"], w.size)
                out += w.tobytes() + i32s(p["bias"])
            elif n.op == REQUANTIZE:
                out += i32s(p["m"]) + np.asarray(p["s"], dtype="<i4").tobytes() + struct.pack("<ii", p["lo"], p["hi"])
            elif n.op == CLAMP:
                out += struct.pack("<ii", p["lo"], p["hi"])
            elif n.op == LOOKUP:
                out += struct.pack("<i", p["offset"]) + i32s(p["table"])
            elif n.op == IGDN:
                out += struct.pack("<ii", p["q"], p["s"]) + i32s(p["beta"]) + i32s(p["gamma"])
            elif n.op == D2S:
                out += struct.pack("<I", p["block"])
            elif n.op in (CONCAT, ADD):
                pass
            elif n.op == WARP:
                out += struct.pack("<II", p["scales"], p["frac_bits"])
            else:
                raise ValueError(f"op {n.op} not written by this converter")
        out += struct.pack(f"<{len(self.inputs)}I", *self.inputs)
        out += struct.pack(f"<{len(self.outputs)}I", *self.outputs)
        out += hashlib.sha256(out).digest()
        return bytes(out)
