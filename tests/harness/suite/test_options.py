"""``SuiteOptions``' task list: a task file whose folder's name holds a comma, among other
tasks (``harness.suite.options.task_list``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.cli import main
from harness.suite.options import task_list
from tests.harness.problem_lines import problem_lines

OWN_DATA = Path(__file__).resolve().parents[3] / "examples" / "own-data"


def test_a_misspelt_task_file_in_a_folder_with_a_comma_before_other_tasks_is_one_span(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """Outside check of #56, item 7: ``--tasks my,data/reviewz.yaml,sst2,my,data/reviews.yaml``
    took ``my,data/reviewz.yaml,sst2,my,data`` for a path in ``my,data`` and said '--tasks
    my,data/reviewz.yaml,sst2,my: expected one of ...' and 'data/reviews.yaml: no such task
    file' (it exists), with no nearest file."""
    shutil.copytree(OWN_DATA, tmp_path / "my,data")
    monkeypatch.chdir(tmp_path)
    typed = "my,data/reviewz.yaml,sst2,my,data/reviews.yaml"
    assert task_list(typed, "--tasks") == ["my,data/reviewz.yaml", "sst2", "my,data/reviews.yaml"]
    assert task_list("trec,reviewz.yaml", "--tasks") == ["trec", "reviewz.yaml"]
    assert task_list("my,data/no,such.yaml", "--tasks") == ["my,data/no,such.yaml"]
    argv = ["suite", "--tasks", typed, "--encoders", "bilstm", "--out", "s"]
    assert main([*argv, "--data-dir", str(tmp_path)]) == 2
    lines = problem_lines(capsys.readouterr().err, "suite")
    assert lines[0] == (
        "sanbench suite: my,data/reviewz.yaml: no such task file (did you mean "
        "my,data/reviews.yaml?)"
    )
    # the folder holds none of sst2's files: said beside it (outside check 5z item 6)
    assert len(lines) == 2 and "expected the files of task 'sst2'" in lines[1], lines
    assert not (tmp_path / "s").exists()
