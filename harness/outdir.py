"""An ``--out`` folder that a failed command does not leave behind empty."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path


def holds_no_file(folder: Path) -> bool:
    """True when ``folder`` and its subfolders contain no file (only empty folders, if any)."""
    return not any(path.is_file() or path.is_symlink() for path in folder.rglob("*"))


@contextlib.contextmanager
def removed_if_left_empty(out: Path | str | None) -> Iterator[None]:
    """Run the body; if it created ``out`` and wrote no file there (it failed early), remove it.

    Whether the body returns or raises: a folder that existed before, or that holds any file
    (results, or partial results a rerun resumes from), is kept.
    """
    folder = None if out is None else Path(out)
    created = folder is not None and not folder.exists()
    try:
        yield
    finally:
        if created and folder.is_dir() and holds_no_file(folder):
            shutil.rmtree(folder)
