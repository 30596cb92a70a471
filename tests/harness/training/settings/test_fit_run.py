"""``FitRun``: one fit of a suite run or a tune trial, as the values that differ from its task's
config (``harness.training.settings.fit_run``)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

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


@pytest.mark.parametrize(
    ("command", "given", "said"),
    [
        (["suite", "--tasks", "trec", "--encoders", "bilstm", "--out", "o"],
         ["--model", "{encoder: mtsa}"], "--model {encoder: mtsa}: encoder mtsa: each run's "
         "encoder is given by --encoders, not by fit's model section"),
        (["suite", "--tasks", "trec,sst2", "--encoders", "bilstm", "--out", "o"],
         ["--data.task", "trec"], "--data.task trec: each run's task is given by --tasks"),
        (["suite", "--tasks", "subj", "--encoders", "bilstm", "--out", "o"],
         ["--data", "{fold: 3}"], "--data {fold: 3}: fold 3: each run's fold is given by --folds"),
        (["tune", "--study", "dropout", "--task", "trec", "--encoder", "bilstm", "--out", "o"],
         ["--model.encoder", "mtsa"], "--model.encoder mtsa: each run's encoder is given by "
         "--encoder"),
        (["reproduce", "--encoders", "bilstm", "--out", "o"], ["--model", "{encoder: mtsa}"],
         "--model {encoder: mtsa}: encoder mtsa: each run's encoder is given by --encoders"),
    ],
)  # fmt: skip
def test_a_fit_section_never_sets_the_grids_own_keys_for_every_run(
    command: list[str],
    given: list[str],
    said: str,
    trec_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
) -> None:
    """Issue 56 (fixer f21a, confirmed by the lead): ``suite --encoders bilstm --model
    '{encoder: mtsa}'`` trained mtsa in bilstm's folder, its row and tables saying bilstm (the
    shared overrides won over each run's own key). A section's task, encoder or fold is refused
    unless it is the grid's one value, before anything is made."""
    from harness.cli import main

    monkeypatch.chdir(tmp_path)
    assert main([*command, *given, "--data-dir", str(trec_dir)]) == 2
    assert said in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
    same = ["--model", "{encoder: bilstm}"]  # the grid's one encoder: taken
    assert main(["suite", "--tasks", "trec", "--encoders", "bilstm", *same, "--print_config"]) == 0
