"""``train_time_per_epoch_s`` is the time of a full pass over the training set: the mean of the
epochs trained to their last batch, the same after a resume mid-epoch (an epoch's time is the
sum of its parts); a run that completed no epoch says its figure is scaled from the batches it
ran (``train_epochs_timed`` 0). Issue 56: 15 steps of 10-batch epochs reported 9.22 s / 2."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import lightning.pytorch as pl
import pytest

import harness.measurement.latency as latency
from harness.training.callbacks.efficiency_callback import EfficiencyCallback
from harness.training.fit import run_fit
from tests.harness.training.test_fit import tiny_run

BATCHES = 10  # an epoch's batches; each takes one second of the fake clock


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(latency, "time", fake)
    return fake


class Trainer(SimpleNamespace):
    """What the callback reads of a trainer: the epoch loop's batch progress."""

    def __init__(self) -> None:
        progress = SimpleNamespace(is_last_batch=False, current=SimpleNamespace(completed=0))
        epoch_loop = SimpleNamespace(batch_progress=progress)
        loop = SimpleNamespace(restarted_on_epoch_end=False, epoch_loop=epoch_loop)
        super().__init__(fit_loop=loop, num_training_batches=BATCHES)

    @property
    def progress(self) -> SimpleNamespace:
        return self.fit_loop.epoch_loop.batch_progress


def _train(
    clock: FakeClock, steps: range, saved: dict | None = None, stop_at: int | None = None
) -> tuple[EfficiencyCallback, dict | None]:
    """Global ``steps`` of 1 s each (a fresh process resuming from ``saved`` if given); a
    checkpoint and a kill before step ``stop_at``; the epoch ends as Lightning calls them (a step
    budget ends the last one inside)."""
    trainer, module = Trainer(), pl.LightningModule()
    callback = EfficiencyCallback()
    if saved is not None:
        callback.load_state_dict(saved)
    callback.on_train_start(trainer, module)
    for step in steps:
        batch = step % BATCHES
        if step == stop_at:
            return callback, callback.state_dict()
        if batch == 0:
            callback.on_train_epoch_start(trainer, module)
        clock.now += 1.0
        trainer.progress.current.completed = batch + 1
        trainer.progress.is_last_batch = batch == BATCHES - 1
        if trainer.progress.is_last_batch or step == steps[-1]:
            callback.on_train_epoch_end(trainer, module)
    return callback, None


@pytest.mark.parametrize("steps", [15, 25, 30])
def test_a_step_budget_reports_the_time_of_the_whole_epochs(clock: FakeClock, steps: int) -> None:
    callback, _ = _train(clock, range(steps))
    summary = callback.summary()
    assert summary["train_time_per_epoch_s"] == 10.0  # was 7.5 for 15 steps: 15 s over 2
    assert summary["train_epochs_timed"] == steps // BATCHES
    assert summary["train_time_s"] == steps


@pytest.mark.parametrize("stop_at", [3, 14, 20])
def test_a_run_stopped_and_resumed_mid_epoch_reports_what_an_uninterrupted_one_does(
    clock: FakeClock, stop_at: int
) -> None:
    whole, _ = _train(clock, range(25))
    _, saved = _train(clock, range(25), stop_at=stop_at)
    clock.now += 100.0  # the restart
    resumed, _ = _train(clock, range(stop_at, 25), saved=saved)
    assert resumed.summary()["train_time_per_epoch_s"] == 10.0
    assert resumed.summary()["train_epochs_timed"] == whole.summary()["train_epochs_timed"] == 2
    assert resumed.summary()["train_time_s"] == whole.summary()["train_time_s"] == 25.0


def test_no_whole_epoch_scales_the_batches_run_to_an_epoch_and_says_so(clock: FakeClock) -> None:
    callback, _ = _train(clock, range(4))
    summary = callback.summary()
    assert summary["train_epochs_timed"] == 0
    assert summary["train_time_per_epoch_s"] == 10.0  # 4 s over 4 of 10 batches
    _, saved = _train(clock, range(4), stop_at=2)
    resumed, _ = _train(clock, range(2, 4), saved=saved)
    assert resumed.summary()["train_time_per_epoch_s"] == 10.0


def test_nothing_trained_times_no_epoch() -> None:
    summary = EfficiencyCallback().summary()
    assert summary["train_epochs_timed"] == 0 and math.isnan(summary["train_time_per_epoch_s"])


class Tick(pl.Callback):
    """Each training batch takes one second of the fake clock (validation none)."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock

    def on_train_batch_start(self, *args: object) -> None:
        self.clock.now += 1.0


@pytest.mark.slow  # one short fit
def test_a_fit_stopped_by_a_step_budget_inside_an_epoch(
    trec_dir: Path, tmp_path: Path, clock: FakeClock
) -> None:
    """Lightning ends the last epoch (``on_train_epoch_end``) when the budget runs out inside it;
    ``sanbench fit`` of trec with limit_train_batches 10, max_steps 15 said 4.61 s = 9.22 s / 2."""
    overrides = {"trainer__limit_train_batches": 4, "trainer__max_steps": 6}
    run = tiny_run(trec_dir, tmp_path / "run", trainer__max_epochs=5, **overrides)
    metrics = run_fit(run, callbacks=[Tick(clock)])
    assert (metrics["epochs"], metrics["steps"], metrics["train_time_s"]) == (1, 6, 6.0)
    assert metrics["train_time_per_epoch_s"] == 4.0 and metrics["train_epochs_timed"] == 1


def test_tables_and_pages_mark_a_time_scaled_from_a_partial_epoch() -> None:
    import pandas as pd

    from harness.suite.summary_tables import finished, summarize, summary_table
    from reports.contracts.suite_results import SCALED_NOTE
    from reports.site.training_page import scaled_runs, summary_rows

    results = pd.DataFrame(
        {
            "task": ["trec"] * 3,
            "encoder": ["multi_cnn", "multi_cnn", "bilstm"],
            "replicate": ["seed0", "seed1", "seed0"],
            "status": ["ok"] * 3,
            "train_time_per_epoch_s": [10.0, 12.0, 20.0],
            "train_epochs_timed": [0, 2, 3],
        }
    )
    runs = finished(results).groupby(["task", "encoder"], sort=True).size()
    table = summary_table(summarize(results), runs)
    assert [row[-1] for row in table.rows] == ["20.0", "11.0 (1.4) e"]  # bilstm, multi_cnn
    assert SCALED_NOTE in table.notes
    _, rows = summary_rows(results)
    assert [row[-1] for row in rows] == ["20.0", "11.0 (1.4) e"]  # the std to its mean's places
    assert scaled_runs(results) == ["trec / multi_cnn / seed0"]
