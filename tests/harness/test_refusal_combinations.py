"""One refusal of every problem of a command line, drawn in combinations (outside check 5z items
4, 5, 11): a refused value, each kind of --out that cannot be one, a data folder without the
task's files or not there, a refused section file, a leftover word; each problem's line is
said, no other line, exit 2, nothing created, and the pointer to the help only when a problem
of the words is among them (harness/cli.py's rule)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.cli import main
from tests.harness.problem_lines import pointer

# each --out kind: its words' fragment, the line's fragment (None: a good --out)
OUTS = {
    "new": None,
    "afile": "--out afile is a file",
    "userdir": "--out userdir holds notes.txt",
    "/proc/x": "--out /proc/x: cannot be made",
    "loop": "a loop of symlinks",
}
# each --data-dir kind: the line's fragment (None: TREC's files)
DATA = {
    "trec": None,
    "glove": "expected the files of task 'trec'",
    "/nonexist": "--data-dir /nonexist: no such folder",
    "missing": "--data-dir is required",
}
# the problems of the words: its words, its line's fragment
VALUE = (("--max-length", "0"), "--max-length: expected a positive number of tokens, got 0")
SECTION = (("--config", "cfg/c.yaml"), "unknown key trainer.bogus_key")
EXTRA = (("extra",), "extra word extra")


@contextmanager
def scratch(trec: Path) -> Iterator[Path]:
    """A working folder holding each --out kind and the data folders, made afresh."""
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
        (root / "cfg").mkdir()
        (root / "cfg" / "t.yaml").write_text("bogus_key: 1\n")
        (root / "cfg" / "c.yaml").write_text("trainer: t.yaml\n")
        os.chdir(root)
        try:
            yield root
        finally:
            os.chdir(cwd)


def _entries(root: Path) -> set[str]:
    return {str(path.relative_to(root)) for path in root.rglob("*") if not path.is_symlink()}


@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    out=st.sampled_from(list(OUTS)),
    data=st.sampled_from(list(DATA)),
    words=st.sets(st.sampled_from([VALUE, SECTION, EXTRA])),
)
def test_reproduce_names_every_problem_in_one_refusal(
    out: str,
    data: str,
    words: set[tuple[tuple[str, ...], str]],
    trec_dir: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    expected = [fragment for fragment in (OUTS[out], DATA[data]) if fragment]
    expected += [fragment for _, fragment in words]
    if not expected:
        return  # a good command line: it would train
    line = ["reproduce", "--tasks", "trec", "--encoders", "bilstm", "--out", out]
    line += [] if data == "missing" else ["--data-dir", data]
    for given_words, _ in sorted(words, key=lambda entry: entry[1]):
        line += given_words
    with scratch(trec_dir) as root:
        before = _entries(root)
        capsys.readouterr()
        assert main(line) == 2, line
        err = capsys.readouterr().err
        assert _entries(root) == before, line
    lines = err.splitlines()
    of_words = bool(words) or data == "missing"
    assert (lines[-1] == pointer("reproduce")) == of_words, (line, lines)
    said = [text.removeprefix("sanbench reproduce: ") for text in lines[:-1] if of_words] or [
        text.removeprefix("sanbench reproduce: ") for text in lines
    ]
    for fragment in expected:
        assert sum(fragment in text for text in said) == 1, (line, fragment, lines)
    assert len(said) == len(expected), (line, lines)  # no other line


# --tables-only beside a refused --out or value: the --out's own words, never the manifest's
# line for an --out refused (item 11); an option it does not take, one "not taken" line each,
# also a refused value's (item 12)
TABLES_ONLY = [
    ("--out afile --optimizer.lr 0.1", ["--optimizer.lr 0.1: not taken", "--out afile is a"]),
    ("--out userdir --max-length 0", ["--max-length 0: not taken", "holds notes.txt"]),
    ("--out loop --preset bogus", ["--preset bogus: not taken", "a loop of symlinks"]),
    (
        "--out new --max-length 0 --encoding bogus",
        ["--max-length 0: not taken", "--encoding bogus: not taken", "manifest.json not found"],
    ),
]


@pytest.mark.parametrize(("words", "fragments"), TABLES_ONLY)
def test_tables_only_says_the_outs_problem_and_each_option_not_taken(
    words: str, fragments: list[str], trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with scratch(trec_dir) as root:
        before = _entries(root)
        assert main(["reproduce", "--tables-only", *words.split()]) == 2
        assert _entries(root) == before
    lines = capsys.readouterr().err.splitlines()
    assert lines[-1] == pointer("reproduce"), lines
    for fragment in fragments:
        assert sum(fragment in line for line in lines) == 1, (fragment, lines)
    assert "expected one of" not in str(lines)
    assert ("manifest.json" in str(lines)) == ("manifest.json not found" in fragments), lines
