"""The errors sanbench reports as a message and an exit status, never as a traceback.

Library code raises these; ``harness.cli.main`` alone prints them and maps them to exit
statuses (``sanbench --debug COMMAND`` re-raises for the traceback). Anything else that escapes
a command is an internal error: exit status 1.
"""

from __future__ import annotations

import signal
from collections.abc import Iterable

from harness.interrupts import signal_status


class SanbenchError(Exception):
    """A failure sanbench explains in its message; ``exit_status`` is the process's status."""

    exit_status = 1


class InputError(SanbenchError, ValueError):
    """Bad input (an argument, a file, a line, a name): nothing was done, exit status 2.

    The message holds one line per problem (``file:line: what was expected`` where it applies).
    """

    exit_status = 2


class UsageError(InputError):
    """Bad input in the command's own words or ``--config`` file (an unknown option, a value
    refused): ``harness.cli`` follows its problem lines with one line pointing to the help of
    the command the user ran (``(see sanbench suite --help)``), whichever layer found them; a
    refusal of the filesystem's problems alone (``--out`` a file) is an :class:`InputError`."""


class FilesError(InputError):
    """A refusal of the filesystem's problems alone (:class:`FilesProblem` lines): no pointer
    to the help."""


class FilesProblem(str):
    """One problem line of the filesystem (a path that is not there, or of the other kind): a
    refusal made of these alone points to no help (:func:`refusal`)."""


def refusal(lines: Iterable[str]) -> InputError:
    """The error refusing ``lines``, one problem each: a :class:`FilesError` when every one is
    a :class:`FilesProblem` (the help would not fix it), else a :class:`UsageError`."""
    lines = list(lines)
    files = all(isinstance(line, FilesProblem) for line in lines)
    error = (FilesError if files else UsageError)("\n".join(lines))
    error.problem_lines = lines  # each line's kind, for error_lines
    return error


def error_lines(error: BaseException) -> list[str]:
    """``error``'s lines, to be said beside others: each a :class:`FilesProblem` when it is a
    :class:`FilesError` or was one in the :func:`refusal` that made it (a ``--data-dir nope``
    beside a ``--task trecc``: left out by ``--print_config``, which leaves paths to the run)."""
    files = isinstance(error, FilesError)
    lines = getattr(error, "problem_lines", None) or [str(error)]
    return [
        FilesProblem(piece) if files or isinstance(line, FilesProblem) else piece
        for line in lines
        for piece in str(line).splitlines()
    ]


class RunInterruptedError(SanbenchError):
    """The run was stopped by a signal after saving what it could (``saved``: False when that
    was nothing, e.g. stopped before training): exit status 128 + signal."""

    def __init__(self, message: str, signum: int = signal.SIGINT, saved: bool = True) -> None:
        super().__init__(message)
        self.signum = int(signum)
        self.saved = saved
        self.exit_status = signal_status(self.signum)


class RunFailedError(SanbenchError):
    """The work ran but its result is not valid (for example a non-finite loss): exit status 1."""


def failure_line(error: BaseException) -> str:
    """``Type: message`` on one line, the message's lines joined by `` | ``: how a failure
    that is not the command's own (a suite's failed run, a job that died) is shown."""
    return f"{type(error).__name__}: {error}".replace("\r", " ").replace("\n", " | ")
