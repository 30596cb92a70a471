"""A checkpoint file that cannot be read is bad input, named before torch tries to load it."""

from __future__ import annotations

import zipfile
from pathlib import Path

from harness.errors import InputError


def check_readable(path: Path, fix: str) -> None:
    """Raise :class:`InputError` unless ``path`` is a complete ``torch.save`` file (a zip
    archive with its central directory: a file cut short by a kill or a partial copy lacks it)."""
    if not zipfile.is_zipfile(path):
        raise InputError(
            f"{path}: not a complete checkpoint (truncated by a kill or a partial copy, or not "
            f"written by torch.save); {fix}"
        )
