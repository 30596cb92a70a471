"""metrics.json holds the last training epoch's metrics however the run was stopped and resumed
(#54: a run stopped at its last epoch's end, or while its trained model was scored, resumed into
a metrics.json without ``train_acc``: the resumed process trained no epoch)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import lightning.pytorch as pl
import pytest

from harness.errors import RunInterruptedError
from harness.training.fit import run_fit
from tests.harness.fixtures.interrupting_callback import CtrlCWhileScoring
from tests.harness.training.test_fit import tiny_run


class CtrlCAtEpochEnd(pl.Callback):
    """SIGINT to this process at the end of training epoch ``epoch`` (served there)."""

    def __init__(self, epoch: int) -> None:
        self.epoch = epoch

    def on_train_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if trainer.current_epoch == self.epoch:
            os.kill(os.getpid(), signal.SIGINT)


STOPS = {  # the tiny run trains 2 epochs
    "at the last epoch's end": lambda: CtrlCAtEpochEnd(1),
    "at the first epoch's end": lambda: CtrlCAtEpochEnd(0),
    "while scoring": lambda: CtrlCWhileScoring("test"),
}


@pytest.fixture(scope="module")
def uninterrupted(trec_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    return run_fit(tiny_run(trec_dir, tmp_path_factory.mktemp("uninterrupted")))


@pytest.mark.slow  # two tiny fits, and the uninterrupted one once per process
@pytest.mark.parametrize("stop", STOPS)
def test_a_stopped_and_resumed_run_records_its_last_epochs_training_metrics(
    trec_dir: Path, tmp_path: Path, uninterrupted: dict, stop: str
) -> None:
    with pytest.raises(RunInterruptedError):
        run_fit(tiny_run(trec_dir, tmp_path), callbacks=[STOPS[stop]()])
    resumed = run_fit(tiny_run(trec_dir, tmp_path))
    for key in ("train_acc", "steps"):
        assert resumed.get(key) == uninterrupted[key], key
