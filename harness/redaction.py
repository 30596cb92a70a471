"""Secrets never written: URL passwords hidden in every recorded or printed command line.

A results folder, a report or a job file is something people share; a database password in a
``--storage postgresql://user:PASSWORD@host/db`` argument must not reach any of them. Every
writer of a command line uses :func:`recorded_command`.
"""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Sequence

HIDDEN = "***"
# scheme://user:password@ (the password ends at the last "@" before the host)
URL_PASSWORD = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]*:)(?P<password>[^\s]*)@")


def redact_passwords(text: str) -> str:
    """``text`` with the password of every ``scheme://user:password@host`` URL as ``***``."""
    return URL_PASSWORD.sub(lambda match: f"{match['head']}{HIDDEN}@", text)


def recorded_command(argv: Sequence[str] | None = None) -> str:
    """``sanbench ARGS`` (``argv`` default: this process's) as a shell line, passwords hidden."""
    words = sys.argv[1:] if argv is None else argv
    return redact_passwords(shlex.join(["sanbench", *words]))
