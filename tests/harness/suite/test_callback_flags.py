"""A callback class given as flags, as fit takes it (``--trainer.callbacks EarlyStopping
--trainer.callbacks.monitor val_acc``), reaches every run of suite, tune and reproduce: their
``trainer`` mapping took ``callbacks.monitor`` as a key of its own and lost the class (issue 56,
G2 item 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from harness.cli import main
from tests.harness.problem_lines import problem_lines

COMMANDS = {
    "suite": ["suite", "--tasks", "trec", "--encoders", "multi_cnn,bilstm"],
    "tune": ["tune", "--study", "dropout"],
    "reproduce": ["reproduce"],
}
CALLBACK = ["--trainer.callbacks", "EarlyStopping", "--trainer.callbacks.monitor"]


@pytest.mark.parametrize("command", COMMANDS)
def test_the_class_and_its_arguments_are_kept(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    words = [*COMMANDS[command], "--data-dir", str(tmp_path), "--out", str(tmp_path / "out")]
    words += [*CALLBACK, "val_acc", "--trainer.callbacks.mode", "max"]
    words += ["--trainer.callbacks+=LearningRateMonitor", "--run.early_stopping_patience", "0"]
    assert main([*words, "--print_config"]) == 0
    printed = yaml.safe_load(capsys.readouterr().out)
    assert printed["trainer"]["callbacks"] == [
        {"class_path": "EarlyStopping", "init_args": {"monitor": "val_acc", "mode": "max"}},
        {"class_path": "LearningRateMonitor"},
    ]
    assert printed["run"] == {"early_stopping_patience": 0}


def test_a_misspelt_monitor_is_named_as_fit_names_it(
    tmp_path: Path, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The class was given: no 'needs --trainer.callbacks CLASS', the metric's own problem."""
    out = tmp_path / "out"
    words = [*COMMANDS["suite"], "--data-dir", str(trec_dir), "--out", str(out), *CALLBACK, "acc"]
    assert main([*words, "--run.early_stopping_patience", "0"]) == 2
    lines = problem_lines(capsys.readouterr().err, "suite")
    assert len(lines) == 1 and "the model logs no metric acc" in lines[0], lines
    assert "(did you mean val_acc?)" in lines[0] and not out.exists()
