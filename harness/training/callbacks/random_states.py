"""Random-number generators in every checkpoint, so that a resumed run with dropout draws the
numbers an uninterrupted one draws.

Lightning saves weights, optimizer, loops and loader positions, not generators. This callback
adds the ones training draws from to each checkpoint it writes (periodic, end of epoch, on a
signal): torch's CPU generator (dropout), every CUDA device's, numpy's global one and Python's
``random``. The data loaders draw from none of them (``BenchmarkDataModule._loader``: each
loader has a generator of its own, seeded per epoch), and the batch sampler's order is a
function of (seed, epoch). The states are put back when training starts, after Lightning has
rebuilt the loaders, so the first step after a resume draws what the uninterrupted run's did.

Distributed runs save rank zero's states and every rank restores them: sanbench seeds every rank
alike (``seed_everything``), so their generators run in step.
"""

from __future__ import annotations

import random
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
        torch.cuda.set_rng_state_all(states["cuda"])


class RandomStates(pl.Callback):
    """Saves the generators' states in every checkpoint; restores them when training resumes."""

    def __init__(self) -> None:
        self.to_restore: dict[str, Any] | None = None

    def state_dict(self) -> dict[str, Any]:
        return collect_states()

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.to_restore = state_dict

    def on_train_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if self.to_restore is not None:
            restore_states(self.to_restore)
            self.to_restore = None
