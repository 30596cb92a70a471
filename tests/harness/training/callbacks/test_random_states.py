"""The generators' states survive a checkpoint file loaded with ``weights_only=True``."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import torch

from harness.training.callbacks.random_states import RandomStates


def _draws() -> tuple:
    return torch.rand(3), np.random.rand(3), np.random.randn(), random.random()


def test_every_generator_draws_again_what_it_drew_after_the_save(tmp_path: Path) -> None:
    torch.manual_seed(1), np.random.seed(1), random.seed(1)
    np.random.randn()  # a cached Gaussian is part of numpy's state
    saved = RandomStates().state_dict()
    torch.save({"callbacks": {"RandomStates": saved}}, tmp_path / "c.ckpt")
    expected = _draws()
    torch.manual_seed(2), np.random.seed(2), random.seed(2)
    callback = RandomStates()
    loaded = torch.load(tmp_path / "c.ckpt", weights_only=True)["callbacks"]["RandomStates"]
    callback.load_state_dict(loaded)
    assert not torch.equal(torch.rand(3), expected[0])  # nothing is restored before training
    callback.on_train_start(None, None)
    again = _draws()
    assert torch.equal(again[0], expected[0])
    assert np.array_equal(again[1], expected[1]) and again[2:] == expected[2:]
