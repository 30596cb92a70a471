"""A data folder holding none of a task's files is said as every other line is, led by the
option that named it (``--data-dir W: ...``, ``--config F: data_dir W: ...``), once for the
folder, naming every task it lacks (issue 56, b7z: ``/tmp/w: expected the files of task
'trec'``, once per task, six lines for one folder from reproduce)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main

WORDS = {
    "data stats": "--task trec",
    "suite": "--tasks trec,mr --encoders bilstm --out s --seeds 0",
    "reproduce": "--tasks trec,subj --encoders bilstm --out r --threads 0",
}


@pytest.mark.parametrize("command", list(WORDS))
@pytest.mark.parametrize("from_config", [False, True])
def test_a_folder_without_the_tasks_files_is_said_once_led_by_its_option(
    command: str,
    from_config: bool,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Beside another problem (suite's ``--seeds 0``), from a flag and from a config file."""
    (tmp_path / "empty").mkdir()
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "d.yaml").write_text("data_dir: ../empty\n")
    monkeypatch.chdir(tmp_path)
    given = "--config c/d.yaml" if from_config else f"--data-dir {tmp_path / 'empty'}"
    assert main([*command.split(), *WORDS[command].split(), *given.split()]) == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if "expected the files" in line]
    lead = "--config c/d.yaml: data_dir ../empty:" if from_config else f"{given}:"
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"sanbench {command}: {lead} expected the files of task"), lines
    if command != "data stats":
        assert "files of tasks '" in lines[0] and "'trec'" in lines[0], lines
