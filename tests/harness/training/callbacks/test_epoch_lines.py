"""The epoch lines (``EpochLines``) show only what was measured by that line's step (issue 56,
"Docs that match output"): a step budget ending epoch 1 before its validation printed epoch 0's
``val_acc`` and ``val_loss`` on epoch 1's line."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from harness.cli import main


@pytest.mark.slow  # trains
def test_a_line_shows_no_validation_that_did_not_run_by_its_step(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    out = tmp_path / "fit"
    argv = ["fit", "--task", "trec", "--encoder", "multi_cnn", "--data-dir", str(trec_dir),
            "--out", str(out), "--model.hidden_dim", "4", "--trainer.limit_train_batches", "3",
            "--trainer.max_steps", "4"]  # fmt: skip
    assert main(argv) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("epoch ")]
    with (out / "curve.csv").open(newline="") as handle:
        validated = {int(row["step"]) for row in csv.DictReader(handle)}
    assert validated == {3}, validated  # epoch 0's end; the budget ended epoch 1 at step 4
    assert len(lines) == 2, lines
    assert re.match(r"epoch 0: step 3, .*val_acc ", lines[0]), lines
    assert lines[1].startswith("epoch 1: step 4, ") and "val_" not in lines[1], lines
