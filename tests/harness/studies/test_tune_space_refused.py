"""tune's ``space: {a: 1}`` in a config file is said once, as written, without a false line
that ``--space`` is missing (issue 56, outside check 8z note)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.harness.problem_lines import problem_lines
from tests.harness.refusal_scratch import CFG, refused, scratch

TUNE = "tune --study search --task trec --encoder bilstm --data-dir trec --out new"


def test_a_refused_space_in_a_config_file_says_no_false_space_line(
    trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It added "--space FILE goes with --study search, and --study search needs it"."""
    with scratch(trec_dir, {**CFG, "cfg/t.yaml": "space: {a: 1}\n"}) as root:
        err = refused(root, [*TUNE.split(), "--config", "cfg/t.yaml"], capsys)
    assert problem_lines(err, "tune") == [
        "sanbench tune: --config cfg/t.yaml: space {a: 1}: expected a path"
    ]


def test_search_without_a_space_says_it_is_required(
    trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--study search with no --space names the option it needs."""
    with scratch(trec_dir, CFG) as root:
        err = refused(root, TUNE.split(), capsys)
    expected = ["sanbench tune: --space is required: --study search needs a search space file"]
    assert problem_lines(err, "tune") == expected
