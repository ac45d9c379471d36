"""One training checkpoint layout for the P-frame trainers (train_ssf.py, train_cond.py): the
model, both optimisers, the step and both random states in one file, replaced atomically, so a
killed job resumes where its last save left it."""
import os

import torch


def resume(path, model, opt, aux_opt, rng):
    """The step to go on from: the checkpoint's when `path` exists (model, optimisers and
    random states restored), else 0."""
    if not path.exists():
        return 0
    state = torch.load(path, weights_only=False)
    model.load_state_dict(state["model"])
    opt.load_state_dict(state["opt"])
    aux_opt.load_state_dict(state["aux_opt"])
    rng.setstate(state["rng"])
    torch.set_rng_state(state["torch_rng"])
    return state["step"]


def save(path, model, opt, aux_opt, step, rng, args):
    tmp = path.with_suffix(".tmp")
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "aux_opt": aux_opt.state_dict(),
                "step": step, "rng": rng.getstate(), "torch_rng": torch.get_rng_state(), "args": vars(args)}, tmp)
    os.replace(tmp, path)
