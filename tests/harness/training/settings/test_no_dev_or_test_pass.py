"""A limit that runs no validation or no test (``limit_val_batches 0``, ``limit_test_batches
0.0``) is refused before any data is read, one line, nothing created, in every command that
trains (issue 54, leftover): ``fit --trainer.limit_val_batches 0 --trainer.max_steps 2`` trained,
then ended in "sanbench fit: list index out of range" (exit 2) and left its run folder, since
the validation after training (the dev score, the best checkpoint) returned nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from datamodules.datamodule import BenchmarkDataModule
from harness.cli import main
from tests.harness.problem_lines import problem_lines

ROOT = Path(__file__).parents[4]
DATA = ["--data-dir", str(ROOT / "tests" / "datamodules" / "fixtures" / "kim2014")]
FIT = ["fit", "--task", "sst2", "--encoder", "multi_cnn", *DATA, "--trainer.max_steps", "2"]
PAIR = ["--tasks", "sst2", "--encoders", "multi_cnn", *DATA]
RUNS = [*PAIR, "--max-steps", "2"]
COMMANDS = {
    "fit": FIT,
    "suite": ["suite", *RUNS, "--seeds", "2"],
    "tune": ["tune", "--study", "dropout", "--task", "sst2", "--encoder", "multi_cnn", *DATA],
    "reproduce": ["reproduce", "--preset", "cpu", *PAIR],
}
NO_DEV = "runs no validation: no dev score and no best checkpoint"
NO_TEST = "runs no test: no test score"
WAY_OUT = "; drop it or give a fraction > 0 or a number of batches"
GIVEN = [
    (["--trainer.limit_val_batches", "0"], f"--trainer.limit_val_batches 0: {NO_DEV}"),
    (["--trainer.limit_val_batches", "0.0"], f"--trainer.limit_val_batches 0.0: {NO_DEV}"),
    (["--trainer.limit_test_batches", "0"], f"--trainer.limit_test_batches 0: {NO_TEST}"),
    (["--trainer.limit_test_batches", "0.0"], f"--trainer.limit_test_batches 0.0: {NO_TEST}"),
]


@pytest.fixture
def no_data_read(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Any data file parsed fails the test; the commands run in ``tmp_path``."""

    def parsed(*_: object) -> None:
        raise AssertionError("a data file was read")

    monkeypatch.setattr(BenchmarkDataModule, "_prepare", parsed)
    os.chdir(tmp_path)


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(("words", "line"), GIVEN, ids=[" ".join(w) for w, _ in GIVEN])
def test_no_dev_or_test_pass_is_one_line_before_any_data_is_read(
    command: str,
    words: list[str],
    line: str,
    no_data_read: None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = main([*COMMANDS[command], *words, "--out", "o"])
    err = capsys.readouterr().err
    assert status == 2, err
    assert problem_lines(err, command) == [f"sanbench {command}: {line}{WAY_OUT}"], err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("value", ["0", "0.0"])
def test_a_config_files_and_a_suites_own_zero_are_said_alike(
    value: str, no_data_read: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A config file's ``trainer: {limit_val_batches: 0}`` and ``suite --limit-val-batches 0``
    (was "expected a positive number of batches or a fraction in (0, 1]")."""
    (tmp_path / "c.yaml").write_text(f"trainer: {{limit_val_batches: {value}}}\n")
    assert main([*FIT, "--config", "c.yaml", "--out", "o"]) == 2
    named = f"--config c.yaml: trainer.limit_val_batches {value}"
    assert problem_lines(capsys.readouterr().err, "fit") == [
        f"sanbench fit: {named}: {NO_DEV}{WAY_OUT}"
    ]
    assert main(["suite", *RUNS, "--limit-val-batches", value, "--out", "o"]) == 2
    assert problem_lines(capsys.readouterr().err, "suite") == [
        f"sanbench suite: --limit-val-batches {value}: {NO_DEV}{WAY_OUT}"
    ]
    assert sorted(os.listdir(tmp_path)) == ["c.yaml"]


@pytest.mark.parametrize(
    ("key", "split"), [("limit_val_batches", "dev"), ("limit_test_batches", "test")]
)
@pytest.mark.parametrize("command", ["fit", "suite"])
def test_a_share_of_no_dev_or_test_batch_is_one_line_before_any_training(
    key: str, split: str, command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A share below one batch of the split: Lightning refused it only as the fit first
    validated or tested, "internal error: MisconfigurationException: You requested to check
    0.0001 of the `val_dataloader` but 0.0001 * 18 < 1" (exit 1)."""
    os.chdir(tmp_path)
    status = main([*COMMANDS[command], f"--trainer.{key}", "0.0001", "--out", "o"])
    err = capsys.readouterr().err
    assert status == 2, err
    (line,) = problem_lines(err, command) if command == "fit" else err.splitlines()
    lacks = NO_DEV if split == "dev" else NO_TEST
    assert line.startswith(f"sanbench {command}: --trainer.{key} 0.0001: {lacks}: 0.0001 of the ")
    assert f" {split} batch(es) is less than one" in line, line
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").rglob("*.ckpt"))


def test_a_validation_interval_no_epoch_reaches_is_one_line_before_any_training(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--trainer.val_check_interval 200`` over 154-batch epochs (TREC): Lightning's "must be
    less than or equal to the number of the training batches (154). If you want to disable
    validation set `limit_val_batches` to 0.0 instead ...", offering a value now refused."""
    os.chdir(tmp_path)
    assert main([*FIT, "--trainer.val_check_interval", "50", "--out", "o"]) == 2
    (line,) = problem_lines(capsys.readouterr().err, "fit")
    assert line.startswith("sanbench fit: --trainer.val_check_interval 50: more than the "), line
    assert line.endswith(
        " training batch(es) of an epoch, which no epoch reaches (no validation would run); "
        "expected at most 1, or add --trainer.check_val_every_n_epoch null to count batches "
        "across epochs"
    ), line
    assert list(tmp_path.iterdir()) == []


def test_a_suites_validation_interval_no_epoch_reaches_is_one_line_before_any_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each run failed with Lightning's words ("1 runs failed", exit 1), as fit's above."""
    os.chdir(tmp_path)
    words = [*COMMANDS["suite"], "--trainer.val_check_interval", "50", "--out", "o"]
    assert main(words) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("sanbench suite: --trainer.val_check_interval 50: more than the ")
    assert list(tmp_path.iterdir()) == []
