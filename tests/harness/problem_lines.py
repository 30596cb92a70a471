"""A refusal's stderr, read as the user sees it: its problem lines, then one line pointing to
the help of the command (``harness.cli``: a ``UsageError``, a problem of the command line)."""

from __future__ import annotations

import subprocess


def pointer(command: str) -> str:
    """The last line of a refusal of ``command``'s words (``data stats`` for an action)."""
    return f"(see sanbench {command} --help)"


def problem_lines(err: str, command: str) -> list[str]:
    """``err``'s lines before the pointer to ``command``'s help, checked to be its last line
    and said once (no problem line ends with it)."""
    lines = err.splitlines()
    assert lines and lines[-1] == pointer(command), lines
    assert not any("--help)" in line for line in lines[:-1]), lines
    return lines[:-1]


def usage_refusal(done: subprocess.CompletedProcess) -> str:
    """The one problem line of a command (``done.args[0]``, as ``test_outdir.sanbench`` ran
    it) refused for its words: exit status 2, then the pointer to its help."""
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    lines = problem_lines(done.stderr, done.args[0])
    assert len(lines) == 1, lines
    return lines[0]


def files_refusal(done: subprocess.CompletedProcess) -> list[str]:
    """The problem lines of a command refused for the filesystem alone (an ``--out`` that is a
    file): exit status 2 and no pointer to its help (``harness.cli._status``)."""
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    return files_lines(done.stderr)


def files_lines(err: str) -> list[str]:
    """``err``'s lines, checked to hold no pointer to a command's help: a refusal of problems
    of the filesystem alone."""
    lines = err.splitlines()
    assert lines and not any("--help)" in line for line in lines), lines
    return lines
