"""The rich console of sanbench's commands: fitted to a terminal's width, never wrapped in a
pipe or a file (so that ``| tee log`` and ``grep`` see whole table rows and whole paths)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

UNWRAPPED_WIDTH = 1_000_000  # wider than any line sanbench prints: a pipe gets every line whole


def console(stderr: bool = False) -> Console:
    """A console on stdout (``stderr``: on stderr): a terminal's own width there, else lines as
    long as they are."""
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    if stream.isatty():
        return Console(stderr=stderr)
    return Console(stderr=stderr, width=UNWRAPPED_WIDTH, soft_wrap=True)
