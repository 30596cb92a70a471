"""Where compiled kernels are kept (docs/training.md, "Compiled kernels"): torch.compile's
inductor cache and C++ extensions (the CPU attention tiles) under sanbench's cache folder
(``datamodules.cache``), reused by every later process of this machine.

A cache folder is kept only when something is stored in it: torch makes inductor's folder when
it loads, so the folders a command made and left empty (a refused command's) are removed when
it ends. A cache that cannot be written (a read-only ``$SANBENCH_CACHE``) does not stop a
command (issue 54.1): one line says so, inductor's kernels go to a temporary folder removed at
the end, and the CPU tiles, unless already built there, run their eager version
(``EagerTilesWarning``)."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from datamodules.cache import cache_folder

KERNEL_CACHES = {"TORCHINDUCTOR_CACHE_DIR": "inductor", "TORCH_EXTENSIONS_DIR": "extensions"}
MADE_WHEN_TORCH_LOADS = "TORCHINDUCTOR_CACHE_DIR"  # torch fails to load if it cannot make it


def why_unwritable(folder: Path) -> str | None:
    """None when a file can be stored in ``folder`` (made if missing), else why not."""
    existing = folder
    while not os.path.lexists(existing):
        existing = existing.parent
    if not existing.is_dir():
        return f"{existing} is not a folder"
    if existing == folder:
        try:
            with tempfile.TemporaryFile(dir=folder):  # unnamed: nothing is left
                return None
        except OSError as error:
            return error.strerror or type(error).__name__
    return None if os.access(existing, os.W_OK | os.X_OK) else f"{existing} is read-only"


def _missing(folder: Path) -> list[Path]:
    """``folder`` and its ancestors that do not exist yet."""
    missing = []
    while not os.path.lexists(folder):
        missing.append(folder)
        folder = folder.parent
    return missing


def _remove_empty(folders: set[Path]) -> None:
    """Remove those of ``folders`` (and folders inside them) that hold no file, deepest first;
    ``os.rmdir`` removes only an empty folder, so a file another process stores is kept."""
    inside = {path for folder in folders if folder.is_dir() for path in folder.rglob("*")}
    for path in sorted(folders | inside, key=lambda p: len(p.parts), reverse=True):
        with contextlib.suppress(OSError):  # a file, or a folder that is not empty
            if path.is_dir() and not path.is_symlink():
                path.rmdir()


@contextlib.contextmanager
def kernel_caches() -> Iterator[None]:
    """Set each of :data:`KERNEL_CACHES` the user did not set to sanbench's cache folder of its
    kind while the body runs (the caller restores ``os.environ``); see the module docstring."""
    made: set[Path] = set()
    unwritable: list[tuple[str, str]] = []  # (folder, why)
    with contextlib.ExitStack() as stack:
        for variable, kind in KERNEL_CACHES.items():
            if variable in os.environ:
                continue
            folder = cache_folder(kind)
            problem = why_unwritable(folder)
            if problem is not None:
                unwritable.append((str(folder), problem))
            if problem is not None and variable == MADE_WHEN_TORCH_LOADS:
                temporary = tempfile.TemporaryDirectory(prefix=f"sanbench-{kind}-")
                folder = Path(stack.enter_context(temporary))
            else:
                made.update(_missing(folder))
            os.environ[variable] = str(folder)
        if unwritable:
            folders, problems = zip(*unwritable, strict=True)
            print(
                f"sanbench: the kernel cache {', '.join(folders)} cannot be written "
                f"({'; '.join(dict.fromkeys(problems))}): compiled kernels are not kept for "
                "later runs (torch.compile's go to a temporary folder; the CPU attention tiles, "
                "unless built there before, run their eager version)",
                file=sys.stderr,
            )
        try:
            yield
        finally:
            _remove_empty(made)
