"""sanbench's cache folders (parsed word vectors, compiled kernels): standard library only, so
that a command's entry point names them before anything heavy loads."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "SANBENCH_CACHE"


def cache_folder(kind: str) -> Path:
    """sanbench's cache of ``kind`` (``vectors``, ``inductor``): ``$SANBENCH_CACHE/KIND``, else
    ``~/.cache/sanbench/KIND``."""
    root = os.environ.get(CACHE_ENV)
    return (Path(root) if root else Path.home() / ".cache" / "sanbench") / kind
