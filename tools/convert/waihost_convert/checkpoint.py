"""Reading a checkpoint as CompressAI saves it (a state dict, or a training checkpoint holding
one under "state_dict" or "model"): a ScaleHyperprior (bmshj2018-hyperprior) picture codec, a
scale-space-flow P-frame codec (ssf_model.ScaleSpaceFlow, what tools/train/train_ssf.py
saves) or a conditional P-frame codec (cond_model.ConditionalCodec, tools/train/train_cond.py),
told apart by their keys."""
import torch
from compressai.models import ScaleHyperprior

from .cond_model import ConditionalCodec
from .ssf_model import ScaleSpaceFlow

DEFAULT_SCALES = 4
CODER_BUFFERS = {"_quantized_cdf", "_offset", "_cdf_length", "scale_table"}


class CheckpointError(ValueError):
    pass


def _state_dict(obj, path):
    if isinstance(obj, dict) and all(isinstance(v, torch.Tensor) for v in obj.values()):
        return obj
    for key in ("state_dict", "model"):
        if isinstance(obj, dict) and isinstance(obj.get(key), dict):
            return obj[key]
    raise CheckpointError(f"{path}: neither a state dict nor a checkpoint with 'state_dict' or 'model' in it")


def _load(path):
    try:
        obj = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises many types for a file that is not a checkpoint
        raise CheckpointError(f"{path}: not a PyTorch checkpoint ({e})") from None
    return obj


def _read(path, obj=None):
    obj = _load(path) if obj is None else obj
    sd = _state_dict(obj, path)
    if any(k.startswith("module.") for k in sd):
        sd = {k.removeprefix("module."): v for k, v in sd.items()}
    return sd


def is_motion(path):
    """Whether the checkpoint holds a P-frame codec (its motion analysis is there)."""
    return "motion_g_a.0.weight" in _read(path)


def is_cond(path):
    """Whether the checkpoint holds a conditional P-frame codec (its context is there)."""
    return "context.0.weight" in _read(path)


def _check_keys(path, expected_sd, sd, what):
    expected = set(expected_sd)
    missing = sorted(expected - set(sd))
    unexpected = sorted(set(sd) - expected)
    if missing or unexpected:
        raise CheckpointError(f"{path}: not a {what} state dict: missing keys {missing}, unexpected keys {unexpected}")
    for k, v in expected_sd.items():
        if v.numel() > 0 and sd[k].shape != v.shape:
            raise CheckpointError(f"{path}: key {k} has shape {tuple(sd[k].shape)}, {what} needs {tuple(v.shape)}")


def load_motion(path):
    """The P-frame codec in eval mode, its N, M and scale levels read from the weights' shapes
    (the scales are not in the weights: the checkpoint's "args" when a training checkpoint has
    them, else the model's default)."""
    obj = _load(path)
    # the entropy coders' tables are rebuilt from the parameters by update(): a state dict saved
    # after update() has them at sizes a fresh model cannot load
    sd = {k: v for k, v in _read(path, obj).items() if k.rsplit(".", 1)[-1] not in CODER_BUFFERS}
    try:
        n = sd["motion_g_a.0.weight"].shape[0]
        m = sd["motion_g_a.6.weight"].shape[0]
    except KeyError as e:
        raise CheckpointError(f"{path}: not a ScaleSpaceFlow state dict: no key {e}") from None
    args = obj.get("args") if isinstance(obj.get("args"), dict) else {}
    scales = args.get("scales", DEFAULT_SCALES)
    if not isinstance(scales, int) or not 1 <= scales <= 64:
        raise CheckpointError(f"{path}: args.scales {scales!r} is not 1…64")
    return _p_frame_codec(path, sd, ScaleSpaceFlow(n, m, scales), f"ScaleSpaceFlow(N={n}, M={m})"), n, m


def _p_frame_codec(path, sd, model, what):
    """`model` with the state dict's weights (the coder tables left out of both sides: update()
    rebuilds them), entropy models updated, in eval mode; refuses keys that differ."""
    fresh = {k: v for k, v in model.state_dict().items() if k.rsplit(".", 1)[-1] not in CODER_BUFFERS}
    _check_keys(path, fresh, sd, what)
    model.load_state_dict(sd, strict=False)
    model.update()
    model.eval()
    return model


def load_cond(path):
    """The conditional codec in eval mode, its N, M and learned context channels read from the
    weights' shapes."""
    sd = {k: v for k, v in _read(path).items() if k.rsplit(".", 1)[-1] not in CODER_BUFFERS}
    try:
        n = sd["g_a_embed.0.weight"].shape[0]
        m = sd["g_a.2.weight"].shape[0]
        features = sd["context.0.weight"].shape[0]
    except KeyError as e:
        raise CheckpointError(f"{path}: not a ConditionalCodec state dict: no key {e}") from None
    model = _p_frame_codec(path, sd, ConditionalCodec(n, m, features), f"ConditionalCodec(N={n}, M={m}, features={features})")
    return model, n, m, features


def load(path):
    """The model in eval mode, with N and M read from the weights' shapes. Refuses a state dict
    whose keys differ from ScaleHyperprior's, naming every missing and unexpected key."""
    sd = _read(path)
    try:
        n = sd["g_a.0.weight"].shape[0]
        m = sd["g_a.6.weight"].shape[0]
    except KeyError as e:
        raise CheckpointError(f"{path}: not a ScaleHyperprior state dict: no key {e}") from None
    model = ScaleHyperprior(N=n, M=m)
    _check_keys(path, model.state_dict(), sd, f"ScaleHyperprior(N={n}, M={m})")
    model.load_state_dict(sd)
    model.eval()
    return model, n, m
