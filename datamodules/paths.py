"""A path as a shell reads it unquoted: ``~`` and ``~/x`` the home folder, ``~user/x`` that
user's; one place for every command's paths."""

from __future__ import annotations

import os
from pathlib import Path


def expanded(value: str | os.PathLike[str]) -> Path:
    """``value`` with a leading ``~`` or ``~user`` expanded; as typed when no such user is
    known here (its folder then does not exist, and the checks say so as typed: until
    2026-12-01 ``--out ~nosuchuser/x`` was an internal error, exit 1, in 8 commands)."""
    path = Path(value)
    try:
        return path.expanduser()
    except RuntimeError:  # pathlib: "Could not determine home directory."
        return path
