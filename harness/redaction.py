"""Secrets never written: URL passwords hidden in every recorded or printed command line.

A results folder, a report or a job file is something people share; a database password in a
``--storage postgresql://user:PASSWORD@host/db`` argument must not reach any of them. Every
writer of a command line uses :func:`recorded_command`, and everything a command prints on
stdout and stderr (its own lines, its errors, the warnings and logs of the libraries it calls)
passes through :func:`redacted_console`.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import re
import shlex
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

import yaml

HIDDEN = "***"
IMPORT = "--import"  # sanbench's own option, before or after the command (harness.cli)
# a study's storage URL when --storage is not given: keeps its password off command lines
STORAGE_ENV = "SANBENCH_STORAGE"
# scheme://user:password@ (the password ends at the last "@" before the host)
URL_PASSWORD = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]*:)(?P<password>[^\s]*)@")
# a URL's password=VALUE in its query string (libpq's): it ends at & # ' " or a space, a ":"
# before the space left out ("URL: why", as a refusal names it, masked twice)
QUERY_PASSWORD = re.compile(
    r"(?P<head>[A-Za-z][A-Za-z0-9+.-]*://[^\s?]*\?(?:[^\s#]*?&)?password=)"
    r"(?P<password>[^&#'\"\s]*?)(?=[&#'\"]|:?(?:\s|$))"
)


def redact_passwords(text: str) -> str:
    """``text`` with the password of every URL as ``***``: its userinfo's
    (``scheme://user:password@host``) and its query string's (``?password=...``)."""
    text = URL_PASSWORD.sub(lambda match: f"{match['head']}{HIDDEN}@", text)
    return QUERY_PASSWORD.sub(lambda match: f"{match['head']}{HIDDEN}", text)


# the resolved config of this command when it read a --config file (:func:`config_read`)
RESOLVED_CONFIG: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "resolved_config", default=None
)


@contextlib.contextmanager
def config_read(resolved: str | None) -> Iterator[None]:
    """Within the block, ``resolved`` is the config the command runs with (every option's value,
    as ``--print_config`` writes it), or None when it read no ``--config`` file."""
    token = RESOLVED_CONFIG.set(resolved)
    try:
        yield
    finally:
        RESOLVED_CONFIG.reset(token)


def recorded_command(argv: Sequence[str] | None = None, config_file: Path | None = None) -> str:
    """``sanbench ARGS`` (``argv`` default: this process's) as a line that runs from any folder
    (:func:`runnable_line`). When the command read a ``--config`` file and ``config_file``
    (beside its results) is given, the resolved config is written there, its folders and files
    by absolute paths (:data:`COPY_PATHS`), and the line is ``sanbench COMMAND --config
    config_file``: the file given may be gone or changed by the time the line is read (a piped
    one is gone at once), so the line would not run as printed. fit gives none: its line is as
    typed, and its folder's ``fit_config.yaml`` reruns it (the report's fit page says how)."""
    words = list(sys.argv[1:] if argv is None else argv)
    resolved = RESOLVED_CONFIG.get()
    if config_file is not None and resolved is not None:
        config_file.parent.mkdir(parents=True, exist_ok=True)
        config_file.write_text(redact_passwords(_paths_absolute(resolved)), encoding="utf-8")
        words = [*_entry_words(words), "--config", str(config_file)]
    return runnable_line(words)


def runnable_line(words: Sequence[str]) -> str:
    """``cd FOLDER && sanbench WORDS``, FOLDER the one this command runs in (absolute), a URL's
    password as ``***``: every line a folder records or a page prints as runnable is made
    here, and it runs from any folder as it ran here, never on a copy elsewhere (a relative
    ``--out``, data path, config or task file, an ``--import`` module of that folder are read
    from there)."""
    line = f"cd {shlex.quote(os.getcwd())} && {shlex.join(['sanbench', *words])}"
    return redact_passwords(line)


# the folders and files a recorded config copy names by absolute paths (fit's fit_config.yaml:
# harness.training.settings.fit_cli.RECORDED_PATHS), a section's key dotted
COPY_PATHS = ("out", "data_dir", "embeddings", "data.data_dir", "data.embeddings")


SQLITE = "sqlite:///"  # a study's storage in a file: sqlite:///relative or sqlite:////absolute


def _paths_absolute(resolved: str) -> str:
    """The resolved config with each of :data:`COPY_PATHS` (relative to this command's folder)
    an absolute path, an SQLite storage's file too, and ``resume`` on where the command has
    one (a profile sweep): the copy run by itself from another folder resumes this ``out`` on
    the same files and the same study."""
    config = yaml.safe_load(resolved)
    if not isinstance(config, dict):
        return resolved
    for key in COPY_PATHS:
        section, _, name = key.rpartition(".")
        holder = config.get(section) if section else config
        if isinstance(holder, dict) and isinstance(holder.get(name), str) and holder[name]:
            holder[name] = str(Path(holder[name]).absolute())
    storage = config.get("storage")
    if isinstance(storage, str) and storage.startswith(SQLITE):
        config["storage"] = SQLITE + str(Path(storage.removeprefix(SQLITE)).absolute())
    if config.get("resume") is False:
        config["resume"] = True
    return yaml.safe_dump(config, sort_keys=False, allow_unicode=True)


def _entry_words(words: list[str]) -> list[str]:
    """The words a config file does not hold: the command's name and sanbench's own before it
    (``--import MODULE``, ``--debug``), and each ``--import MODULE`` after it."""
    for index, word in enumerate(words):
        if not word.startswith("-") and (index == 0 or words[index - 1] != IMPORT):
            kept = words[: index + 1]
            for at in range(index + 1, len(words)):
                if words[at] == IMPORT:
                    kept += words[at : at + 2]
                elif words[at].startswith(f"{IMPORT}="):
                    kept.append(words[at])
            return kept
    return words


def resume_command(argv: list[str] | None = None) -> str:
    """The command line that continues this run, runnable from any folder
    (:func:`runnable_line`): the same words, without ``--overwrite``, a URL's password shown as
    ``***`` (and a line saying how to give it again)."""
    words = sys.argv[1:] if argv is None else argv
    kept = [w for w in words if w != "--overwrite"]
    shown = runnable_line(kept)
    if any(redact_passwords(word) != word for word in kept):
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
