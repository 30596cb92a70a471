"""A run stopped at any moment and resumed writes the metrics.json of an uninterrupted run
(#54: a stop inside an epoch lost that epoch's running ``train_acc``; a stop at the last step or
while the trained model was scored lost ``epochs``, ``train_acc`` and every efficiency figure).

Each budget's moments are swept: a signal at the start of every training step (served at its end,
or after the validation that follows it), inside each validation, at training's end (before
scoring: it was swallowed, the run scored and exited 0 until 2026-11-30) and while the trained
model is scored. The whole metrics.json is compared, timings aside: those must be present and
measured (not null) in both."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import lightning.pytorch as pl
import pandas as pd
import pytest

from harness.errors import RunInterruptedError
from harness.training.fit import run_fit
from tests.harness.fixtures.interrupting_callback import CtrlCWhileScoring
from tests.harness.training.test_fit import tiny_run
from tests.harness.training.test_resume import AskToStop

# name: (fit options, its steps, the steps a validation follows); 4 batches of 16 an epoch
BUDGETS: dict[str, tuple[dict[str, Any], int, tuple[int, ...]]] = {
    "epochs": ({"trainer__max_epochs": 3}, 12, (4, 8, 12)),
    "steps_inside_an_epoch": ({"trainer__max_steps": 10, "trainer__max_epochs": -1}, 10, (4, 8)),
    "validation_every_2_epochs": (
        {"trainer__max_epochs": 4, "trainer__limit_train_batches": 3,
         "trainer__check_val_every_n_epoch": 2},
        12,
        (6, 12),
    ),
    "validation_every_2_batches": (
        {"trainer__max_steps": 10, "trainer__max_epochs": -1, "trainer__val_check_interval": 2},
        10,
        (2, 4, 6, 8, 10),
    ),
}  # fmt: skip
COMMON = {
    "data__batch_size": 16,
    "trainer__limit_train_batches": 4,
    "trainer__limit_val_batches": 2,
    "model__dropout": 0.3,
}
# measured, not reproduced: compared as present (not null) in both runs
MEASURED = ("_time", "_s", "_cpu_", "_load_avg_", "_contended", "_threads")


def _moments() -> list:
    """Every step's start (SIGINT and SIGTERM by turns), the first batch of each validation
    (SIGTERM), training's end and the scoring of the trained model (SIGINT in ``on_train_end``,
    in its validation and its test)."""
    moments = []
    for budget, (_options, steps, validated) in BUDGETS.items():
        for step in range(steps):
            signum = (signal.SIGINT, signal.SIGTERM)[step % 2]
            moments.append(pytest.param(budget, "step", step, signum, id=f"{budget}-step{step}"))
        for step in validated:
            moments.append(
                pytest.param(budget, "validation", step, signal.SIGTERM, id=f"{budget}-val{step}")
            )
        for stage in ("fit", "validate", "test"):
            moments.append(pytest.param(budget, stage, 0, signal.SIGINT, id=f"{budget}-{stage}"))
    return moments


def _stop(where: str, step: int, signum: signal.Signals) -> pl.Callback:
    if where in ("fit", "validate", "test"):
        return CtrlCWhileScoring(where)
    return AskToStop(where, step, signum)


def _comparable(metrics: dict[str, Any]) -> dict[str, Any]:
    """metrics.json with each measured figure replaced by whether it was measured, and the
    configuration without its ``--out``."""
    comparable = {
        key: (value is not None) if any(part in key for part in MEASURED) else value
        for key, value in metrics.items()
        if key != "versions"
    }
    comparable["config"] = {**metrics["config"], "out": None}
    return comparable


def _logged_training_figures(out: Path) -> dict[tuple[str, int], float]:
    """Each training epoch's logged figures (``train_acc``, ``train_loss``; not its time) by
    step, over every attempt's metrics.csv: the epochs before the last one too."""
    logged = {}
    for log in sorted(out.glob("logs/version_*/metrics.csv")):
        for row in pd.read_csv(log).to_dict("records"):
            for key, value in row.items():
                if key.startswith("train_") and key != "train_seconds" and pd.notna(value):
                    logged[key, int(row["step"])] = value
    return logged


@pytest.fixture(scope="module")
def uninterrupted(trec_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    """metrics.json and the logged training figures of each budget's uninterrupted run, trained
    once per test process."""
    runs: dict[str, tuple[dict[str, Any], dict]] = {}

    def run(budget: str) -> tuple[dict[str, Any], dict]:
        if budget not in runs:
            out = tmp_path_factory.mktemp(budget)
            metrics = run_fit(tiny_run(trec_dir, out, **(COMMON | BUDGETS[budget][0])))
            runs[budget] = metrics, _logged_training_figures(out)
        return runs[budget]

    return run


@pytest.mark.slow  # 2 tiny fits each, and the budget's uninterrupted one once per process
@pytest.mark.parametrize(("budget", "where", "step", "signum"), _moments())
def test_a_run_stopped_at_any_moment_and_resumed_writes_the_uninterrupted_metrics(
    trec_dir: Path,
    tmp_path: Path,
    uninterrupted,
    budget: str,
    where: str,
    step: int,
    signum: signal.Signals,
) -> None:
    run = tiny_run(trec_dir, tmp_path / "stopped", **(COMMON | BUDGETS[budget][0]))
    with pytest.raises(RunInterruptedError):
        run_fit(run, callbacks=[_stop(where, step, signum)])
    resumed = run_fit(run)
    metrics, logged = uninterrupted(budget)
    assert _comparable(resumed) == _comparable(metrics)
    # a stop served at an epoch's end comes before Lightning logs that epoch's figures: every
    # figure logged is the uninterrupted run's
    assert _logged_training_figures(tmp_path / "stopped").items() <= logged.items()
