"""A run folder moved since its checkpoint resumes its best-on-dev state (short outside check
56f, item 2: resuming with ``--out`` naming the new place printed Lightning's "The dirpath has
changed ..." from its site-packages path, and dropped the best score, so the next validation
became "best" whatever its score)."""

from __future__ import annotations

import warnings
from pathlib import Path

import torch
from lightning.pytorch.callbacks import ModelCheckpoint

from harness.training.callbacks.folder_checkpoint import FolderCheckpoint, state_in


def test_a_moved_folder_keeps_its_best_score_and_paths(tmp_path: Path) -> None:
    old, new = tmp_path / "runs" / "f1" / "checkpoints", tmp_path / "moved" / "f1" / "checkpoints"
    saved = ModelCheckpoint(dirpath=old, monitor="val_acc", mode="max", save_top_k=1)
    best = str(old / "best-epoch=0-step=40.ckpt")
    saved.best_model_score, saved.best_model_path = torch.tensor(0.78), best
    saved.best_k_models, saved.kth_best_model_path = {best: torch.tensor(0.78)}, best
    saved.last_model_path = str(old / "last.ckpt")
    state = saved.state_dict()
    resumed = FolderCheckpoint(dirpath=new, monitor="val_acc", mode="max", save_top_k=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Lightning's "The dirpath has changed" is not raised
        resumed.load_state_dict(state)
    moved = str(new.resolve() / "best-epoch=0-step=40.ckpt")
    assert resumed.best_model_score == torch.tensor(0.78)
    assert (resumed.best_model_path, resumed.kth_best_model_path) == (moved, moved)
    assert list(resumed.best_k_models) == [moved]
    assert resumed.last_model_path == str(new.resolve() / "last.ckpt")
    assert resumed.state_key == saved.state_key  # run folders saved before this class resume


def test_a_state_of_this_folder_or_without_one_is_kept_as_is(tmp_path: Path) -> None:
    state = {"dirpath": str(tmp_path), "best_model_path": str(tmp_path / "b.ckpt")}
    assert state_in(state, str(tmp_path)) is state
    assert state_in({"best_model_path": ""}, str(tmp_path)) == {"best_model_path": ""}
