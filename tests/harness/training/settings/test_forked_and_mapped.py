"""A config file's mapping values refused before any data is read in one line naming them as
given (outside check 54i item 3: a file's ``max_time: {seconds: 0}`` was named
``--trainer.max_time {'seconds': 0}``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.cli import main
from tests.harness.problem_lines import problem_lines

ROOT = Path(__file__).parents[4]
FIXTURES = ROOT / "tests" / "datamodules" / "fixtures"
DATA = ["--data-dir", str(FIXTURES / "kim2014")]
FIT = ["fit", "--task", "sst2", "--encoder", "multi_cnn", *DATA, "--trainer.max_steps", "1"]
SUITE = ["suite", "--tasks", "sst2", "--encoders", "multi_cnn", "--seeds", "1", "--max-steps", "1"]
TUNE = ["tune", "--study", "dropout", "--task", "sst2", "--encoder", "multi_cnn", "--trials", "1"]
REPRODUCE = ["reproduce", "--preset", "cpu", "--tasks", "sst2", "--encoders", "multi_cnn"]
COMMANDS = {
    "fit": [*FIT, "--out", "r"],
    "suite": [*SUITE, *DATA, "--out", "r"],
    "tune": [*TUNE, "--max-steps", "1", *DATA, "--out", "r"],
    "reproduce": [*REPRODUCE, *DATA, "--out", "r"],
}
# (a config file's text, the one line's start after the command's name)
CONFIG_NAMED = [
    (
        "trainer: {max_time: {seconds: 0}}",
        "--config c.yaml: trainer.max_time {seconds: 0}: trains nothing",
    ),
    (
        "trainer: {max_time: {minutes: 0, seconds: 0}}",
        "--config c.yaml: trainer.max_time {minutes: 0, seconds: 0}: trains nothing",
    ),
]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(("text", "named"), CONFIG_NAMED)
def test_a_config_files_mapping_is_named_by_its_file_and_key_as_written(
    command: str, text: str, named: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.chdir(tmp_path)
    (tmp_path / "c.yaml").write_text(text + "\n")
    status = main([*COMMANDS[command], "--config", "c.yaml"])
    err = capsys.readouterr().err
    assert status == 2, err
    lines = problem_lines(err, command)
    assert len(lines) == 1 and lines[0].startswith(f"sanbench {command}: {named}"), lines
    assert sorted(os.listdir(tmp_path)) == ["c.yaml"]
