"""Secrets never written: URL passwords hidden in every recorded or printed command line.

A results folder, a report or a job file is something people share; a database password in a
``--storage postgresql://user:PASSWORD@host/db`` argument must not reach any of them. Every
writer of a command line uses :func:`recorded_command`, and everything a command prints on
stdout and stderr (its own lines, its errors, the warnings and logs of the libraries it calls)
passes through :func:`redacted_console`.
"""

from __future__ import annotations

import contextlib
import re
import shlex
import sys
from collections.abc import Iterator, Sequence
from typing import Any, TextIO

HIDDEN = "***"
# a study's storage URL when --storage is not given: keeps its password off command lines
STORAGE_ENV = "SANBENCH_STORAGE"
# scheme://user:password@ (the password ends at the last "@" before the host)
URL_PASSWORD = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]*:)(?P<password>[^\s]*)@")


def redact_passwords(text: str) -> str:
    """``text`` with the password of every ``scheme://user:password@host`` URL as ``***``."""
    return URL_PASSWORD.sub(lambda match: f"{match['head']}{HIDDEN}@", text)


def recorded_command(argv: Sequence[str] | None = None) -> str:
    """``sanbench ARGS`` (``argv`` default: this process's) as a shell line, passwords hidden."""
    words = sys.argv[1:] if argv is None else argv
    return redact_passwords(shlex.join(["sanbench", *words]))


def resume_command(argv: list[str] | None = None) -> str:
    """The command line that continues this run: the same words, without ``--overwrite``, a
    URL's password shown as ``***`` (and a line saying how to give it again)."""
    words = sys.argv[1:] if argv is None else argv
    command = shlex.join(["sanbench", *(w for w in words if w != "--overwrite")])
    shown = redact_passwords(command)
    if shown != command:
        shown += f"\n(*** is the password you gave: type it again, or set {STORAGE_ENV})"
    return shown


class RedactedStream:
    """A text stream that writes ``redact_passwords`` of what it is given to ``stream``."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(redact_passwords(text))
        return len(text)

    def writelines(self, lines: Sequence[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # flush, isatty, fileno, encoding...
        return getattr(self.stream, name)


@contextlib.contextmanager
def redacted_console() -> Iterator[None]:
    """Within the block, ``sys.stdout`` and ``sys.stderr`` hide URL passwords."""
    out, err = RedactedStream(sys.stdout), RedactedStream(sys.stderr)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):  # type: ignore[arg-type]
        yield
