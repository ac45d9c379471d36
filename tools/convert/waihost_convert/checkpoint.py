"""Reading a CompressAI ScaleHyperprior (bmshj2018-hyperprior) checkpoint as CompressAI saves
it: a state dict, or a training checkpoint holding one under "state_dict" or "model"."""
import torch
from compressai.models import ScaleHyperprior


class CheckpointError(ValueError):
    pass


def _state_dict(obj, path):
    if isinstance(obj, dict) and all(isinstance(v, torch.Tensor) for v in obj.values()):
        return obj
    for key in ("state_dict", "model"):
        if isinstance(obj, dict) and isinstance(obj.get(key), dict):
            return obj[key]
    raise CheckpointError(f"{path}: neither a state dict nor a checkpoint with 'state_dict' or 'model' in it")


def load(path):
    """The model in eval mode, with N and M read from the weights' shapes. Refuses a state dict
    whose keys differ from ScaleHyperprior's, naming every missing and unexpected key."""
    try:
        obj = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises many types for a file that is not a checkpoint
        raise CheckpointError(f"{path}: not a PyTorch checkpoint ({e})") from None
    sd = _state_dict(obj, path)
    if any(k.startswith("module.") for k in sd):
        sd = {k.removeprefix("module."): v for k, v in sd.items()}
    try:
        n = sd["g_a.0.weight"].shape[0]
        m = sd["g_a.6.weight"].shape[0]
    except KeyError as e:
        raise CheckpointError(f"{path}: not a ScaleHyperprior state dict: no key {e}") from None
    model = ScaleHyperprior(N=n, M=m)
    expected = set(model.state_dict())
    missing = sorted(expected - set(sd))
    unexpected = sorted(set(sd) - expected)
    if missing or unexpected:
        raise CheckpointError(f"{path}: not a ScaleHyperprior(N={n}, M={m}) state dict: "
                              f"missing keys {missing}, unexpected keys {unexpected}")
    for k, v in model.state_dict().items():
        if v.numel() > 0 and sd[k].shape != v.shape:
            raise CheckpointError(f"{path}: key {k} has shape {tuple(sd[k].shape)}, ScaleHyperprior(N={n}, M={m}) "
                                  f"needs {tuple(v.shape)}")
    model.load_state_dict(sd)
    model.eval()
    return model, n, m
