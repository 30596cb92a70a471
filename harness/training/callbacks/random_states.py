"""Random-number generators in every checkpoint, so that a resumed run with dropout draws the
numbers an uninterrupted one draws.

Lightning saves weights, optimizer, loops and loader positions, not generators. This callback
adds the ones training draws from to each checkpoint it writes (periodic, end of epoch, on a
signal): torch's CPU generator (dropout), every CUDA device's, numpy's global one and Python's
``random``. The data loaders draw from none of them (``BenchmarkDataModule._loader``: each
loader has a generator of its own, seeded per epoch), and the batch sampler's order is a
function of (seed, epoch). The states are put back when training starts, after Lightning has
rebuilt the loaders, so the first step after a resume draws what the uninterrupted run's did.

Distributed runs save every rank's states (gathered when the checkpoint is written) and each
rank restores its own: the ranks are seeded alike, but they train on batches of other lengths, so
one dropout call already leaves their generators in different places. A run resumed on another
number of processes cannot continue as the uninterrupted one would (its batches are split
otherwise too): it is told so (:class:`WorldSizeChangedWarning`) and each rank takes the states
of rank ``global_rank`` modulo the saved count.
"""

from __future__ import annotations

import random
import warnings
from typing import Any

import lightning.pytorch as pl
import numpy as np
import torch


def _numpy_state() -> dict[str, Any]:
    """numpy's global MT19937 state as tensors and numbers (a ``weights_only`` load takes it)."""
    name, keys, position, has_gauss, gauss = np.random.get_state(legacy=True)
    return {
        "name": name,
        "keys": torch.from_numpy(keys.astype(np.int64)),
        "position": int(position),
        "has_gauss": int(has_gauss),
        "gauss": float(gauss),
    }


def _set_numpy_state(state: dict[str, Any]) -> None:
    keys = state["keys"].numpy().astype(np.uint32)
    np.random.set_state(
        (state["name"], keys, state["position"], state["has_gauss"], state["gauss"])
    )


def collect_states() -> dict[str, Any]:
    """Every generator's state (CUDA's when CUDA is in use)."""
    states: dict[str, Any] = {
        "torch": torch.get_rng_state(),
        "numpy": _numpy_state(),
        "python": random.getstate(),
    }
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        states["cuda"] = torch.cuda.get_rng_state_all()
    return states


def restore_states(states: dict[str, Any]) -> None:
    """Put back what :func:`collect_states` returned."""
    torch.set_rng_state(states["torch"])
    _set_numpy_state(states["numpy"])
    version, internal, gauss_next = states["python"]
    random.setstate((version, tuple(internal), gauss_next))
    if "cuda" in states and torch.cuda.is_available():
        _restore_cuda_states(states["cuda"])


class DeviceCountChangedWarning(UserWarning):
    """A run resumed with another number of visible GPUs than the checkpoint was written with."""


def _restore_cuda_states(saved: list[torch.Tensor]) -> None:
    """GPU i's generator from the state saved for GPU i, for every GPU both runs see (a resume
    that sees fewer or more GPUs, e.g. another ``CUDA_VISIBLE_DEVICES``, warns: the GPUs it
    no longer or newly sees draw other numbers than the uninterrupted run's)."""
    visible = torch.cuda.device_count()
    if len(saved) != visible:
        warnings.warn(
            DeviceCountChangedWarning(
                f"the checkpoint saved the generators of {len(saved)} GPU(s), this run sees "
                f"{visible}: the first {min(len(saved), visible)} are restored"
            ),
            stacklevel=2,
        )
    for index, state in enumerate(saved[:visible]):
        torch.cuda.set_rng_state(state, index)


def _every_rank(states: dict[str, Any]) -> list[dict[str, Any]]:
    """Each process's ``states``, by global rank (every rank calls this at the same point)."""
    if not (torch.distributed.is_available() and torch.distributed.is_initialized()):
        return [states]
    gathered: list[Any] = [None] * torch.distributed.get_world_size()
    torch.distributed.all_gather_object(gathered, states)
    return gathered


class WorldSizeChangedWarning(UserWarning):
    """A run resumed on another number of processes than the checkpoint was written by."""


class RandomStates(pl.Callback):
    """Saves every rank's generator states in each checkpoint; each rank restores its own when
    training resumes."""

    def __init__(self) -> None:
        self.to_restore: list[dict[str, Any]] | None = None

    def state_dict(self) -> dict[str, Any]:
        return {"ranks": _every_rank(collect_states())}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        # checkpoints written before the ranks were saved hold one rank's states at the top
        self.to_restore = state_dict.get("ranks", [state_dict])

    def on_train_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if self.to_restore is None:
            return
        saved, rank, world = len(self.to_restore), trainer.global_rank, trainer.world_size
        if saved != world and rank == 0:
            warnings.warn(
                WorldSizeChangedWarning(
                    f"the checkpoint was written by {saved} process(es), this run has {world}: "
                    "training continues, but not exactly as the uninterrupted run would have "
                    "(other batches and random numbers per process)"
                ),
                stacklevel=1,
            )
        restore_states(self.to_restore[rank % saved])
        self.to_restore = None
