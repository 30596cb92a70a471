"""``-c FILE``, fit's LightningCLI spelling of ``--config``, is taken by every command and its
lines say ``-c FILE`` as typed (issue 56, outside check 8z note): suite refused it as
"unknown option -c (did you mean -c?)"."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from tests.harness.problem_lines import problem_lines
from tests.harness.refusal_scratch import CFG, refused, scratch


def test_suite_reads_dash_c_and_says_it_as_typed(
    trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A refused value of the file is named by ``-c``, the rest judged beside it."""
    with scratch(trec_dir, {**CFG, "cfg/s.yaml": "out: {a: 1}\n"}) as root:
        words = ["suite", "-c", "cfg/s.yaml", "--tasks", "trec", "--encoders", "bilstm"]
        err = refused(root, [*words, "--data-dir", "/nonexist"], capsys)
    assert problem_lines(err, "suite") == [
        "sanbench suite: -c cfg/s.yaml: out {a: 1}: expected a path",
        "sanbench suite: --data-dir /nonexist: no such folder",
    ]


def test_report_prints_the_config_dash_c_gives(
    trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``report -c r.yaml --print_config`` prints the file's run folders."""
    with scratch(trec_dir, {"r.yaml": "runs: [userdir]\nout: site\n"}):
        assert main(["report", "-c", "r.yaml", "--print_config"]) == 0
    assert "userdir" in capsys.readouterr().out
