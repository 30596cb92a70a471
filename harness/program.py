"""The ``sanbench`` program's entry point: a Ctrl-C while sanbench starts is held until its
imports end, then stops the program with status 130 in one line; a SIGTERM then stops it
(once ``harness.cli`` is imported, 0.07 s), status 143, in one line saying that nothing was
saved. Both lines name the command.

A ``KeyboardInterrupt`` raised inside a library's import leaves that library half imported:
what followed was a traceback, an "internal error" of numpy (``module 'numpy._core' has no
attribute '_multiarray_umath'``) or a ``RecursionError`` (issue 54.5, found from outside).
Nothing has started then that could be saved. This module imports nothing of sanbench's or of
the libraries' before the signal is held."""

from __future__ import annotations

import signal
from typing import NoReturn


def entry() -> NoReturn:
    """``sanbench``: :func:`harness.cli.entry`, imported with SIGINT and SIGTERM blocked from the
    first line: one that comes meanwhile waits, pending, until :func:`harness.cli.main` holds
    them, whose line names the command (``sanbench encoders: interrupted``, ``sanbench fit:
    terminated while starting; nothing was saved``). Until 2026-12-01 a Ctrl-C held here was
    sent again to be held there, but a SIGTERM here said ``sanbench: terminated ...``, naming
    no command (outside check 14 item 4). This module imports nothing but ``signal`` before: a
    Ctrl-C 0.045-0.075 s into the program came as it imported ``harness.interrupts`` and gave a
    traceback until 2026-12-01 (outside check 10y item 2). Blocking at the module's import
    instead blocked SIGTERM in every process that multiprocessing spawns (each imports the
    console script again), and a pool's terminate then waited for ever."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    from harness import cli

    cli.entry()


if __name__ == "__main__":
    entry()
