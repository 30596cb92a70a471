"""``profile`` options refused in sanbench's words, naming the option given (issue 56.4):
``--repeats 0`` was accepted (the preset's count ran instead), ``--predict-lengths 16:1024:0``
was called a bad ``--lengths`` part, ``--threads`` beyond the machine's cores was taken."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.cli import main
from harness.errors import InputError
from harness.profiling.options import ProfileOptions
from tests.harness.problem_lines import problem_lines


@pytest.mark.parametrize("repeats", [0, 2, -1])
def test_fewer_than_three_repeats_are_refused(repeats: int) -> None:
    with pytest.raises(InputError, match=f"--repeats {repeats}: at least 3"):
        ProfileOptions(repeats=repeats)


def test_a_bad_predict_lengths_part_names_that_option() -> None:
    with pytest.raises(InputError, match=r"^--predict-lengths 16:1024:0: bad part 16:1024:0"):
        ProfileOptions(predict_lengths="16:1024:0")


def test_threads_beyond_the_cores_are_refused() -> None:
    cores = len(os.sched_getaffinity(0))
    with pytest.raises(InputError, match=f"--threads {cores + 1}: .*{cores} core"):
        ProfileOptions(threads=cores + 1)
    ProfileOptions(threads=cores)


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("1e30", "--batch-size 1e30: expected an integer"),
        ("100000000000000000000", "--batch-size 100000000000000000000: a batch holds at "),
    ],
)
def test_an_absurd_batch_size_is_one_line_in_sanbenchs_words(
    given: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 56 breaker: jsonargparse's union dump, or torch's overflow on every point."""
    assert main(["profile", "--batch-size", given, "--out", str(tmp_path / "p")]) == 2
    lines = problem_lines(capsys.readouterr().err, "profile")
    assert len(lines) == 1 and lines[0].startswith(f"sanbench profile: {said}"), lines
    assert list(tmp_path.iterdir()) == []


def test_every_problem_of_the_command_line_is_named_at_once(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 56 (G2 item 1): a batch size typed as ``1_000`` was named alone; without it, the
    repeats and lengths were, and never the misspelt encoders. Now one line each, at once."""
    out = tmp_path / "sweep"
    words = ["profile", "--preset", "quick", "--encoders", "disan2,bilstmm", "--lengths", "-8,16"]
    words += ["--batch-size", "1_000", "--repeats", "2", "--out", str(out)]
    assert main(words) == 2
    lines = problem_lines(capsys.readouterr().err, "profile")
    assert [line.split(":")[1].split()[:2] for line in lines] == [
        ["--batch-size", "1_000"],
        ["--repeats", "2"],
        ["--lengths", "-8,16"],
        ["--encoders", "disan2"],
        ["--encoders", "bilstmm"],
    ]
    assert "(did you mean bilstm?)" in lines[-1] and not out.exists()
