"""``run_reproduce`` and its command's checks (``harness/reproduce/reproduce.py``): every
problem of the words is named in one refusal, the fit values' beside the reproduction's own."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from tests.harness.problem_lines import problem_lines

FIT_VALUES = "model: {dropout: 2}\nlr_scheduler: {init_args: {step_size: 2}}\n"
FIT_LINES = [
    "lr_scheduler.init_args.step_size needs --lr_scheduler CLASS (e.g. "
    "torch.optim.lr_scheduler.StepLR)",
    "model.dropout 2: expected a number in [0, 1]",
]


@pytest.mark.parametrize("own", [True, False], ids=["own problems too", "fit values only"])
def test_a_config_files_fit_values_are_named_beside_the_reproductions_own_problems(
    own: bool, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Outside check 56e of #56, item 4: a file with ``tasks: cr,trecc``, ``encoders: BiLSTM``,
    ``threads: 0``, ``trainer: {max_steps: 0}`` and two wrong fit values was refused in two
    rounds: those 4 first, the fit values only once they were fixed (suite: one round)."""
    config = tmp_path / "r.yaml"
    own_values = "tasks: cr,trecc\nencoders: BiLSTM\nthreads: 0\ntrainer: {max_steps: 0}\n"
    config.write_text(f"data_dir: {tmp_path}\n" + (own_values if own else "") + FIT_VALUES)
    out = tmp_path / "out"
    assert main(["reproduce", "--config", str(config), "--out", str(out)]) == 2
    lines = problem_lines(capsys.readouterr().err, "reproduce")
    fit_lines = [f"sanbench reproduce: --config {config}: {line}" for line in FIT_LINES]
    # the data folder holds none of the tasks' files: said last, beside them (outside check 5z)
    folder = [line for line in lines if "expected the files of task" in line]
    assert len(folder) == 1 and lines[-1:] == folder, lines  # once, naming its tasks (56)
    lines = lines[: -len(folder)]
    assert lines[-2:] == fit_lines, lines
    assert len(lines) == (6 if own else 2), lines
    if own:
        assert f"--config {config}: tasks trecc: expected one of" in lines[2], lines
        assert f"--config {config}: threads 0" in lines[1], lines
    assert not out.exists()


@pytest.mark.parametrize("other", [[], ["--threads", "0"]])
def test_a_misspelt_task_hides_no_missing_data_folder(
    other: list[str], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """``reproduce --data-dir /nonexist --tasks treec`` named only the task, the folder once the
    task was fixed; now both in one refusal (short check 56i item 4)."""
    missing, out = tmp_path / "nonexist", tmp_path / "r"
    words = ["reproduce", "--data-dir", str(missing), "--tasks", "treec", "--encoders", "disan"]
    assert main([*words, "--out", str(out), *other]) == 2
    lines = problem_lines(capsys.readouterr().err, "reproduce")
    assert f"sanbench reproduce: --data-dir {missing}: no such folder" in lines, lines
    assert any("--tasks treec: expected one of" in line for line in lines), lines
    assert not out.exists()
