"""A checkpoint file that cannot be read is bad input, named before torch tries to load it."""

from __future__ import annotations

import zipfile
from pathlib import Path

from harness.errors import InputError

ZIP_MAGIC = b"PK\x03\x04"  # torch.save writes a zip archive (since torch 1.6)
NPY_MAGIC = b"\x93NUMPY"
SNIFFED = 4096  # bytes read to say what a file that is no checkpoint is
SHOWN = 40  # characters of a text file's first line shown


def _what_it_is(head: bytes, size: int) -> str:
    """What a file starting with ``head`` (of ``size`` bytes) is, in a few words."""
    if size == 0:
        return "an empty file"
    if head.startswith(NPY_MAGIC):
        return "a NumPy array (.npy, as sanbench encode writes)"
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as error:  # a character cut at the end of what was read is text
        text = head[: error.start].decode("utf-8") if error.start > len(head) - 4 else ""
    if text and "\x00" not in text:
        first = text.splitlines()[0] if text.strip() else ""
        shown = first[:SHOWN] + ("..." if len(first) > SHOWN else "")
        return f"a text file (its first line: {shown!r})"
    return f"a binary file of {size:,} bytes"


def checkpoint_problem(path: Path) -> str | None:
    """Why ``path`` is not a complete ``torch.save`` file (None: it is one), read from its
    first bytes and its end: a zip archive with its central directory (a file cut short by a
    kill or a partial copy lacks it), or what else the file is."""
    with path.open("rb") as handle:
        head = handle.read(SNIFFED)
    if head.startswith(ZIP_MAGIC):
        if zipfile.is_zipfile(path):
            return None
        return "not a complete checkpoint (truncated by a kill or a partial copy)"
    return f"{_what_it_is(head, path.stat().st_size)}, not a checkpoint"


def check_readable(path: Path, fix: str) -> None:
    """Raise :class:`InputError` unless ``path`` is a complete checkpoint
    (:func:`checkpoint_problem`)."""
    problem = checkpoint_problem(path)
    if problem is not None:
        raise InputError(f"{path}: {problem}; {fix}")
