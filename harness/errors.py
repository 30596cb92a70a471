"""The errors sanbench reports as a message and an exit status, never as a traceback.

Library code raises these; ``harness.cli.main`` alone prints them and maps them to exit
statuses (``sanbench --debug COMMAND`` re-raises for the traceback). Anything else that escapes
a command is an internal error: exit status 1.
"""

from __future__ import annotations

import signal


class SanbenchError(Exception):
    """A failure sanbench explains in its message; ``exit_status`` is the process's status."""

    exit_status = 1


class InputError(SanbenchError, ValueError):
    """Bad input (an argument, a file, a line, a name): nothing was done, exit status 2.

    The message holds one line per problem (``file:line: what was expected`` where it applies).
    """

    exit_status = 2


class RunInterruptedError(SanbenchError):
    """The run was stopped by a signal after saving what it could: exit status 128 + signal."""

    def __init__(self, message: str, signum: int = signal.SIGINT) -> None:
        super().__init__(message)
        self.signum = int(signum)
        self.exit_status = 128 + self.signum


class RunFailedError(SanbenchError):
    """The work ran but its result is not valid (for example a non-finite loss): exit status 1."""
