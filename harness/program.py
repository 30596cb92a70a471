"""The ``sanbench`` program's entry point: a Ctrl-C while sanbench starts is held until its
imports end, then stops the program with status 130 in one line.

A ``KeyboardInterrupt`` raised inside a library's import leaves that library half imported:
what followed was a traceback, an "internal error" of numpy (``module 'numpy._core' has no
attribute '_multiarray_umath'``) or a ``RecursionError`` (issue 54.5, found from outside).
Nothing has started then that could be saved. This module imports nothing of sanbench's or of
the libraries' before the signal is held."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import NoReturn

INTERRUPTED_STATUS = 130  # 128 + SIGINT
INTERRUPTED = "sanbench: interrupted"


@contextlib.contextmanager
def interrupt_held() -> Iterator[Callable[[], bool]]:
    """While the block runs, a first SIGINT is noted (the callable says whether one came) and a
    second ends the process at once with :data:`INTERRUPTED` (nothing has started to save)."""
    if threading.current_thread() is not threading.main_thread():
        yield lambda: False
        return
    came: list[int] = []

    def note(signum: int, frame: object) -> None:
        if came:
            print(INTERRUPTED, file=sys.stderr, flush=True)
            os._exit(INTERRUPTED_STATUS)
        came.append(signum)

    previous = signal.signal(signal.SIGINT, note)
    try:
        yield lambda: bool(came)
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def interrupt_noted() -> Iterator[Callable[[], bool]]:
    """While the block runs, SIGINT raises ``KeyboardInterrupt`` as Python's own handler does,
    and the callable says whether one came: an error the interrupt caused further on (a library
    it stopped half imported, imported again: "cannot load module more than once per process")
    is still the user's Ctrl-C. A command's own handler (training's, the sweep's) replaces this
    one while it runs."""
    if threading.current_thread() is not threading.main_thread():
        yield lambda: False
        return
    came: list[int] = []

    def interrupt(signum: int, frame: object) -> None:
        came.append(signum)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, interrupt)
    try:
        yield lambda: bool(came)
    finally:
        signal.signal(signal.SIGINT, previous)


def entry() -> NoReturn:
    """``sanbench``: :func:`harness.cli.entry`, imported with a Ctrl-C held (blocked from the
    first line, so that one arriving before the handler is in place waits for it)."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    with interrupt_held() as interrupted:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        from harness import cli
    if interrupted():
        print(INTERRUPTED, file=sys.stderr, flush=True)
        sys.exit(INTERRUPTED_STATUS)
    cli.entry()


if __name__ == "__main__":
    entry()
