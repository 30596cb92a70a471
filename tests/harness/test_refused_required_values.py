"""A config file's refused value of a required option (report's runs and out, suite's out) is
said beside every other problem, each once, as the file writes it (issue 56, outside check 8z
item 10): it hid them, exit 2 with the one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.harness.problem_lines import problem_lines
from tests.harness.refusal_scratch import CFG, refused, said_once, scratch

AFILE = "--out afile is a file, not a folder; give a folder for the results"
REPORT_RUNS = {
    "{a: 1}": ["--config cfg/c.yaml: runs {a: 1}: expected one run folder or a list of run"],
    "[]": ["--config cfg/c.yaml: runs []: expected at least one run folder"],
    "[5, /nonexist]": [
        "--config cfg/c.yaml: runs 5: no such folder",
        "--config cfg/c.yaml: runs /nonexist: no such folder",
    ],
}


@pytest.mark.parametrize("runs", list(REPORT_RUNS))
def test_report_says_out_beside_a_config_files_refused_runs(
    runs: str, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``runs: {a: 1}`` (or ``[]``) beside ``--out afile`` hid the out's line."""
    with scratch(trec_dir, {**CFG, "cfg/c.yaml": f"runs: {runs}\n"}) as root:
        err = refused(root, ["report", "--config", "cfg/c.yaml", "--out", "afile"], capsys)
    lines = err.splitlines()
    lines = problem_lines(err, "report") if lines[-1].endswith("--help)") else lines
    said_once(lines, [*REPORT_RUNS[runs], AFILE])


def test_report_says_the_run_folders_beside_a_config_files_refused_out(
    trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``out: [7]`` hid the file's run folder that is not there (``out: 7`` is a folder's name
    since 2026-12-01, as ``--out 7``)."""
    with scratch(trec_dir, {**CFG, "cfg/c.yaml": "out: [7]\nruns: [/nonexist]\n"}) as root:
        err = refused(root, ["report", "--config", "cfg/c.yaml"], capsys)
    expected = ["--config cfg/c.yaml: out [7]: expected a path"]
    expected += ["--config cfg/c.yaml: runs /nonexist: no such folder"]
    said_once(problem_lines(err, "report"), expected)


def test_suite_says_the_others_beside_a_config_files_refused_out(
    trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``out: {a: 1}`` hid the misspelt encoders and the data folder that is not there."""
    with scratch(trec_dir, {**CFG, "cfg/c.yaml": "out: {a: 1}\n"}) as root:
        words = ["suite", "--config", "cfg/c.yaml", "--tasks", "trec"]
        words += ["--encoders", "bilstmm,multi_cn", "--data-dir", "/nonexist"]
        err = refused(root, words, capsys)
    expected = ["--config cfg/c.yaml: out {a: 1}: expected a path"]
    expected += ["--data-dir /nonexist: no such folder"]
    expected += ["--encoders bilstmm: expected one of", "--encoders multi_cn: expected one of"]
    said_once(problem_lines(err, "suite"), expected)
