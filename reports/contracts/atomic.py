"""Whole-file writes: a temporary file of the writer's own beside the target, renamed over it,
so a reader sees the old file or the new one, never half of one."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any


def write_atomic(path: Path, write: Callable[[Path], object]) -> Path:
    """``write`` a temporary file beside ``path``, then rename it over ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
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
