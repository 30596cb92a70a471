"""A strategy that starts its processes by multiprocessing, and a config file's mapping values,
refused before any data is read in one line naming them as given (outside check 54i: items 1-3;
``--trainer.strategy ddp_spawn`` was an internal error, "Can't pickle local object", a file's
``class_path`` accelerator Lightning's raw words after the data was read, a file's
``max_time: {seconds: 0}`` named ``--trainer.max_time {'seconds': 0}``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

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
FORKED = "sanbench runs no strategy that starts its processes by multiprocessing"
STRATEGIES = ["ddp_spawn", "ddp_fork", "ddp_notebook", "ddp_spawn_find_unused_parameters_true"]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_strategy_starting_processes_by_multiprocessing_is_one_line_naming_ddp(
    command: str, strategy: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.chdir(tmp_path)
    words = ["--trainer.strategy", strategy, "--trainer.devices", "2"]
    status = main([*COMMANDS[command], *words])
    err = capsys.readouterr().err
    assert status == 2, err
    lines = problem_lines(err, command)
    assert len(lines) == 1, lines
    assert f"--trainer.strategy {strategy}: {FORKED}" in lines[0], lines
    assert "give ddp, which starts each process as a copy of the command" in lines[0], lines
    assert list(tmp_path.iterdir()) == []  # refused before anything is made or read


def test_the_names_offered_for_a_misspelt_strategy_hold_no_forked_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.chdir(tmp_path)
    assert main([*COMMANDS["fit"], "--trainer.strategy", "ddp_spwn"]) == 2
    (line,) = problem_lines(capsys.readouterr().err, "fit")
    assert "--trainer.strategy ddp_spwn: expected auto, ddp, " in line, line
    assert "spawn" not in line.removeprefix("--trainer.strategy ddp_spwn"), line
    assert "fork" not in line and "notebook" not in line, line


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
    (
        "trainer:\n  strategy:\n    class_path: lightning.pytorch.strategies.DDPStrategy\n"
        "    init_args: {start_method: spawn}",
        "--config c.yaml: trainer.strategy {class_path: lightning.pytorch.strategies.DDPStrategy"
        ", init_args: {start_method: spawn}}: " + FORKED,
    ),
]
CUDA_CLASS = "lightning.pytorch.accelerators.CUDAAccelerator"
UNAVAILABLE = (
    f"trainer: {{accelerator: {{class_path: {CUDA_CLASS}}}}}",
    f"--config c.yaml: trainer.accelerator {{class_path: {CUDA_CLASS}}}: torch (",
)


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(("text", "named"), [*CONFIG_NAMED, UNAVAILABLE])
def test_a_config_files_mapping_is_named_by_its_file_and_key_as_written(
    command: str, text: str, named: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if "CUDA" in text and torch.cuda.is_available():
        pytest.skip("CUDA runs here")
    os.chdir(tmp_path)
    (tmp_path / "c.yaml").write_text(text + "\n")
    status = main([*COMMANDS[command], "--config", "c.yaml"])
    err = capsys.readouterr().err
    assert status == 2, err
    lines = problem_lines(err, command)
    assert len(lines) == 1 and lines[0].startswith(f"sanbench {command}: {named}"), lines
    assert sorted(os.listdir(tmp_path)) == ["c.yaml"]
