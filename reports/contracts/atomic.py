"""Whole-file writes: a temporary file of the writer's own beside the target, renamed over it,
so a reader sees the old file or the new one, never half of one.

The temporary file is made new (``O_CREAT | O_EXCL``, a random name): no file of anyone else's,
whatever its name, and no symlink is ever opened or renamed (issue 54.6)."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any


def open_new_beside(path: Path, mode: str = "w", **options: Any) -> tuple[IO, Path]:
    """A new file ``.NAME.<random>.tmp`` beside ``path``, opened for writing, and its path;
    ``mode`` and ``options`` as :func:`open`'s. Raises :class:`FileExistsError` rather than open
    an entry that exists (``O_EXCL`` fails on a symlink too, without following it)."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    descriptor = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # umask applies
    return os.fdopen(descriptor, mode, **options), tmp


def write_atomic(path: Path, write: Callable[[Path], object]) -> Path:
    """``write`` a temporary file of our own beside ``path``, then rename it over ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = open_new_beside(path)
    handle.close()
    try:
        write(tmp)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def write_text_atomic(path: Path, text: str) -> Path:
    """``text`` into ``path``, atomically."""
    return write_atomic(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def write_json_atomic(path: Path, payload: dict[str, Any]) -> Path:
    """``payload`` as indented JSON (values JSON lacks written as text), atomically."""
    return write_text_atomic(path, json.dumps(payload, indent=2, default=str) + "\n")
