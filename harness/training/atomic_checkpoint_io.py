"""``AtomicCheckpointIO``: a checkpoint on disk is whole or not there."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Any

import torch
from lightning.pytorch.plugins.io import TorchCheckpointIO

PART_SUFFIX = ".part"  # a checkpoint being written, beside its file


class AtomicCheckpointIO(TorchCheckpointIO):
    """Lightning's ``torch.save`` of a checkpoint into a temporary file in the checkpoint's own
    folder, synced, then renamed over it (``os.replace``: atomic on one filesystem).

    Lightning writes a local checkpoint through fsspec's transaction, whose temporary file is
    in the system's temporary folder: on another filesystem (a tmpfs ``/tmp``) the move is a
    copy into the file, and a kill during it left a ``last.ckpt`` cut short, which the resume
    refuses (#54: a hard kill at any moment)."""

    def save_checkpoint(
        self, checkpoint: dict[str, Any], path: str | Path, storage_options: Any | None = None
    ) -> None:
        if storage_options is not None:  # as Lightning's own refuses them
            super().save_checkpoint(checkpoint, path, storage_options)
            return
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor, part = tempfile.mkstemp(
            dir=path.parent, prefix=f".{path.name}.", suffix=PART_SUFFIX
        )
        try:
            with os.fdopen(descriptor, "wb") as handle:
                torch.save(checkpoint, handle)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(part, 0o666 & ~_umask())  # as a file opened for writing would be
            os.replace(part, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(part)
            raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def use_atomic_checkpoints(strategy: Any) -> None:
    """``strategy`` writes its checkpoints with :class:`AtomicCheckpointIO` unless it was given
    one of the user's (``--trainer.plugins``)."""
    if type(strategy.checkpoint_io) is TorchCheckpointIO:
        strategy.checkpoint_io = AtomicCheckpointIO()
