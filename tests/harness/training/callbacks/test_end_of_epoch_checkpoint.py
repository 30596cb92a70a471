"""A run whose step budget ended mid-epoch, extended by a larger epoch budget, trains and counts
the epochs an uninterrupted run does (issue 56, H31 item 7: ``last.ckpt`` was written as at an
epoch's end, so the extension numbered the rest of that epoch as the next one, ``epoch 2`` after
4 + 2 steps of 3-step epochs, and recorded one epoch more than it trained)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from harness.cli import main

FIXTURES = Path(__file__).parents[3] / "datamodules" / "fixtures"
FIT = [
    "fit",
    "--task",
    "sst2",
    "--encoder",
    "multi_cnn",
    "--data-dir",
    str(FIXTURES / "kim2014"),
    "--embeddings",
    str(FIXTURES / "vectors" / "tiny.glove.txt"),
    "--data.batch_size",
    "4",  # the fixture's 12 training sentences: 3 steps an epoch
]


def _counted(out: Path) -> tuple[int, int, list[tuple[int, int]]]:
    metrics = json.loads((out / "metrics.json").read_text())
    curve = pd.read_csv(out / "curve.csv")
    return (
        metrics["epochs"],
        metrics["steps"],
        list(zip(curve["epoch"], curve["step"], strict=True)),
    )


@pytest.mark.slow  # three short fits in this process: 12 s at load 7
def test_a_run_stopped_mid_epoch_then_extended_counts_the_epochs_it_trained(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.chdir(tmp_path)
    assert main([*FIT, "--out", "whole", "--trainer.max_epochs", "3"]) == 0
    assert (
        main([*FIT, "--out", "run", "--trainer.max_epochs", "3", "--trainer.max_steps", "4"]) == 0
    )
    capsys.readouterr()
    extend = ["fit", "--config", "run/fit_config.yaml", "--trainer.max_steps", "-1"]
    assert main(extend) == 0
    said = [line for line in capsys.readouterr().err.splitlines() if line.startswith("epoch ")]
    whole = _counted(tmp_path / "whole")
    assert whole[:2] == (3, 9)
    assert _counted(tmp_path / "run") == whole
    assert [line.partition(",")[0] for line in said] == ["epoch 1: step 6", "epoch 2: step 9"]
