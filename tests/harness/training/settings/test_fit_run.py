"""``FitRun``: one fit of a suite run or a tune trial, as the values that differ from its task's
config (``harness.training.settings.fit_run``)."""

from __future__ import annotations

import copy
from pathlib import Path

from harness.training.settings.fit_run import FitRun


def test_resolving_a_run_leaves_the_overrides_every_run_shares_as_they_were(
    tmp_path: Path,
) -> None:
    """Outside check of #56, item 4: resolving a run's config typed the callbacks' list of the
    overrides in place (each entry became jsonargparse's ``Namespace``), so the suite's
    manifest held ``"Namespace(class_path='lightning.pytorch.callbacks.EarlyStopping', ...)"``."""
    callback = {"class_path": "EarlyStopping", "init_args": {"monitor": "val_loss", "patience": 2}}
    overrides = {"trainer.callbacks": [callback], "run.early_stopping_patience": 0}
    given = copy.deepcopy(overrides)
    run = FitRun("trec", "multi_cnn", tmp_path, tmp_path / "out", overrides=overrides)
    assert "EarlyStopping" in run.to_yaml()
    assert overrides == given and type(overrides["trainer.callbacks"][0]) is dict
