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
from typing import NoReturn


def entry() -> NoReturn:
    """``sanbench``: :func:`harness.cli.entry`, imported with a Ctrl-C held and a SIGTERM
    answered (both blocked from the first line, so that one arriving before the handler is in
    place waits for it). Both stay blocked until :func:`harness.cli.main` holds them, and a
    Ctrl-C held here is sent again to be held there: its line names the command (``sanbench
    encoders: interrupted``; it said ``sanbench: interrupted`` until 2026-12-01). This module
    imports nothing but ``signal`` before: a Ctrl-C 0.045-0.075 s into the program came as it
    imported ``harness.interrupts`` and gave a traceback until 2026-12-01 (outside check 10y
    item 2). Blocking at the module's import instead blocked SIGTERM in every process that
    multiprocessing spawns (each imports the console script again), and a pool's terminate
    then waited for ever."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    from harness.interrupts import STARTING_SIGNALS, interrupt_held

    with interrupt_held() as interrupted:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STARTING_SIGNALS)
        from harness import cli

        signal.pthread_sigmask(signal.SIG_BLOCK, STARTING_SIGNALS)  # until cli.main holds them
    if interrupted():  # said by cli.main, which names the command (outside check 8y item 4)
        signal.raise_signal(signal.SIGINT)  # pending while blocked
    cli.entry()


if __name__ == "__main__":
    entry()
