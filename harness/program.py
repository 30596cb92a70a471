"""The ``sanbench`` program's entry point: a Ctrl-C while sanbench starts is held until its
imports end, then stops the program with status 130 in one line; a SIGTERM then stops it at
once, status 143, in one line saying that nothing was saved.

A ``KeyboardInterrupt`` raised inside a library's import leaves that library half imported:
what followed was a traceback, an "internal error" of numpy (``module 'numpy._core' has no
attribute '_multiarray_umath'``) or a ``RecursionError`` (issue 54.5, found from outside).
Nothing has started then that could be saved. This module imports nothing of sanbench's or of
the libraries' before the signal is held."""

from __future__ import annotations

import signal
import sys
from typing import NoReturn

from harness.interrupts import INTERRUPTED, INTERRUPTED_STATUS, interrupt_held


def entry() -> NoReturn:
    """``sanbench``: :func:`harness.cli.entry`, imported with a Ctrl-C held and a SIGTERM
    answered (both blocked from the first line, so that one arriving before the handler is in
    place waits for it)."""
    starting = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, starting)
    with interrupt_held() as interrupted:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, starting)
        from harness import cli
    if interrupted():
        print(INTERRUPTED, file=sys.stderr, flush=True)
        sys.exit(INTERRUPTED_STATUS)
    cli.entry()


if __name__ == "__main__":
    entry()
