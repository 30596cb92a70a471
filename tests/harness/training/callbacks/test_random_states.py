"""The generators' states survive a checkpoint file loaded with ``weights_only=True``."""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from harness.training.callbacks.random_states import (
    RandomStates,
    WorldSizeChangedWarning,
    collect_states,
)


def _trainer(rank: int, world: int) -> SimpleNamespace:
    return SimpleNamespace(global_rank=rank, world_size=world)


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
    callback.on_train_start(_trainer(rank=0, world=1), None)
    again = _draws()
    assert torch.equal(again[0], expected[0])
    assert np.array_equal(again[1], expected[1]) and again[2:] == expected[2:]


def _states_after_seed(seed: int) -> dict:
    torch.manual_seed(seed), np.random.seed(seed), random.seed(seed)
    return collect_states()


def _restored_draw(saved: dict, rank: int, world: int) -> torch.Tensor:
    callback = RandomStates()
    callback.load_state_dict(saved)
    torch.manual_seed(99)
    callback.on_train_start(_trainer(rank, world), None)
    return torch.rand(3)


def test_each_rank_restores_the_states_it_saved() -> None:
    """The ranks' generators differ (batches of other lengths): rank r gets rank r's states."""
    saved = {"ranks": [_states_after_seed(10), _states_after_seed(11)]}
    for rank, seed in enumerate((10, 11)):
        expected = torch.manual_seed(seed) and torch.rand(3)
        assert torch.equal(_restored_draw(saved, rank, world=2), expected)


def test_a_checkpoint_of_one_rank_from_before_the_ranks_were_saved_still_resumes() -> None:
    expected = torch.manual_seed(5) and torch.rand(3)
    assert torch.equal(_restored_draw(_states_after_seed(5), rank=0, world=1), expected)


def test_another_world_size_is_said_to_be_inexact() -> None:
    saved = {"ranks": [_states_after_seed(10), _states_after_seed(11)]}
    with pytest.warns(WorldSizeChangedWarning, match="written by 2 process.*this run has 3"):
        _restored_draw(saved, rank=0, world=3)
    expected = torch.manual_seed(10) and torch.rand(3)
    assert torch.equal(_restored_draw(saved, rank=2, world=3), expected)  # rank 2 modulo 2


@pytest.mark.parametrize("visible", [1, 2, 3])
def test_a_resume_that_sees_another_number_of_gpus_restores_those_both_see(
    monkeypatch: pytest.MonkeyPatch, visible: int
) -> None:
    """A checkpoint of two GPUs' generators resumed where 1, 2 or 3 are visible (another
    ``CUDA_VISIBLE_DEVICES``): GPU i gets GPU i's state for every i both runs see, never an
    "invalid device ordinal" (CUDA's generators stood in for by a record of the calls)."""
    from harness.training.callbacks import random_states

    restored: dict[int, torch.Tensor] = {}

    def set_rng_state(state: torch.Tensor, device: int) -> None:
        if device >= visible:
            raise RuntimeError("CUDA error: invalid device ordinal")
        restored[device] = state

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: visible)
    monkeypatch.setattr(torch.cuda, "set_rng_state", set_rng_state)
    monkeypatch.setattr(torch.cuda, "set_rng_state_all", lambda states: [
        set_rng_state(s, i) for i, s in enumerate(states)
    ])  # fmt: skip
    saved = {**_states_after_seed(5), "cuda": [torch.full((4,), 7), torch.full((4,), 8)]}
    if visible == 2:
        random_states.restore_states(saved)
    else:
        with pytest.warns(random_states.DeviceCountChangedWarning, match="2 GPU"):
            random_states.restore_states(saved)
    assert sorted(restored) == list(range(min(2, visible)))
    for index, state in restored.items():
        assert torch.equal(state, saved["cuda"][index])
