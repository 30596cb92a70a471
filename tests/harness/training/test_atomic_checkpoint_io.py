"""A checkpoint on disk is whole or not there: a save that dies midway leaves the previous one
(``harness/training/atomic_checkpoint_io.py``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import lightning.pytorch as pl
import pytest
import torch
from lightning.pytorch.plugins.io import TorchCheckpointIO

from harness.training import atomic_checkpoint_io
from harness.training.atomic_checkpoint_io import (
    PART_SUFFIX,
    AtomicCheckpointIO,
    use_atomic_checkpoints,
)

ROOT = Path(__file__).parents[3]
OTHER_TMPDIR = {"TMPDIR": "/dev/shm"} if Path("/dev/shm").is_dir() else {}


def test_a_save_that_dies_midway_leaves_the_previous_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "last.ckpt"
    io = AtomicCheckpointIO()
    io.save_checkpoint({"step": 1}, path)

    def dies_midway(obj: object, handle) -> None:
        handle.write(b"PK\x03\x04 half a checkpoint")
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic_checkpoint_io.torch, "save", dies_midway)
    with pytest.raises(KeyboardInterrupt):
        io.save_checkpoint({"step": 2}, path)
    monkeypatch.undo()
    assert torch.load(path, weights_only=True) == {"step": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["last.ckpt"]
    assert oct(path.stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_the_users_checkpoint_io_is_kept() -> None:
    class Users(TorchCheckpointIO):
        pass

    trainer = pl.Trainer(logger=False, enable_checkpointing=False, plugins=[Users()])
    use_atomic_checkpoints(trainer.strategy)
    assert type(trainer.strategy.checkpoint_io) is Users
    trainer = pl.Trainer(logger=False, enable_checkpointing=False)
    use_atomic_checkpoints(trainer.strategy)
    assert type(trainer.strategy.checkpoint_io) is AtomicCheckpointIO


def test_what_a_kill_left_of_a_save_is_removed_as_a_fit_starts(tmp_path: Path) -> None:
    from harness.training.callbacks.end_of_epoch_checkpoint import EndOfEpochCheckpoint

    left = tmp_path / f".last.ckpt.x1y2{PART_SUFFIX}"
    left.write_bytes(b"PK\x03\x04 half")
    users = tmp_path / "notes.part"
    users.write_text("mine")
    trainer = pl.Trainer(logger=False, enable_checkpointing=False)
    EndOfEpochCheckpoint(tmp_path / "last.ckpt").setup(trainer, pl.LightningModule(), "fit")
    assert not left.exists() and users.exists()
    assert type(trainer.strategy.checkpoint_io) is AtomicCheckpointIO


# Lightning's own save went through a temporary file in $TMPDIR, moved (copied when on another
# filesystem: a tmpfs) into last.ckpt; the test puts $TMPDIR on /dev/shm where there is one
SAVING = """
import sys, torch
from harness.training.atomic_checkpoint_io import AtomicCheckpointIO
io, state = AtomicCheckpointIO(), {"w": torch.randn(4_000_000)}
print("saving", flush=True)
while True:
    io.save_checkpoint(state, sys.argv[1])
"""


@pytest.mark.slow  # a process that imports torch and saves 16 MB over and over, killed 3 times
@pytest.mark.parametrize("after_s", [0.05, 0.3, 0.7])
def test_a_sigkill_at_any_moment_of_saving_leaves_a_whole_checkpoint(
    tmp_path: Path, after_s: float
) -> None:
    path = tmp_path / "last.ckpt"
    saving = subprocess.Popen(
        [sys.executable, "-c", SAVING, str(path)], cwd=ROOT, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), **OTHER_TMPDIR},
    )  # fmt: skip
    assert saving.stdout.readline() == "saving\n"
    while not path.exists():
        time.sleep(0.01)
    time.sleep(after_s)
    saving.send_signal(signal.SIGKILL)
    saving.wait(timeout=60)
    assert zipfile.is_zipfile(path)
    assert torch.load(path, weights_only=True)["w"].shape == (4_000_000,)
