"""A working folder for the drawn refusal tests: each kind of ``--out`` that cannot be one, the
data folders, the test's own files; and a refusal run in it, checked to create nothing."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from harness.cli import main

CFG = {"cfg/": ""}  # an empty folder for the test's own config files


@contextmanager
def scratch(trec: Path, files: Mapping[str, str]) -> Iterator[Path]:
    """A new working folder holding ``afile`` (a file), ``userdir`` (a user's folder), ``loop``
    (a symlink to itself), ``glove`` (vectors, no task's files), ``trec`` (TREC's files) and
    ``files`` (a path -> its text; a path ending in ``/``: an empty folder); the working
    folder while the block runs."""
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as name:
        root = Path(name)
        (root / "afile").write_text("")
        (root / "userdir").mkdir()
        (root / "userdir" / "notes.txt").write_text("mine\n")
        (root / "loop").symlink_to("loop")
        (root / "glove").mkdir()
        (root / "glove" / "vectors.txt").write_text("a 0.1\n")
        (root / "trec").symlink_to(trec)
        for path, text in files.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            if path.endswith("/"):
                (root / path).mkdir(exist_ok=True)
            else:
                (root / path).write_text(text)
        os.chdir(root)
        try:
            yield root
        finally:
            os.chdir(cwd)


def entries(root: Path) -> set[str]:
    """The paths under ``root``, symlinks' targets left out."""
    return {str(path.relative_to(root)) for path in root.rglob("*") if not path.is_symlink()}


def refused(root: Path, words: Sequence[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The stderr of ``sanbench WORDS`` run in ``root``, checked to exit 2 having created or
    removed nothing there."""
    before = entries(root)
    capsys.readouterr()
    assert main(list(words)) == 2, words
    err = capsys.readouterr().err
    assert entries(root) == before, words
    return err


def drawn(examples: int) -> settings:
    """Hypothesis's settings of a drawn refusal test: ``examples`` draws, the same in every
    run (a refusal test is no search), no deadline (a command takes seconds)."""
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )


def said_once(lines: Sequence[str], expected: Sequence[str]) -> None:
    """Each of ``expected`` is in exactly one of ``lines``, and no other line is said."""
    for fragment in expected:
        assert sum(fragment in line for line in lines) == 1, (fragment, lines)
    assert len(lines) == len(expected), lines
