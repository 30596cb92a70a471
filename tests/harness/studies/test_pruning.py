"""Pruning stops a trial only where that saves training, and a pruned trial keeps what it
measured (on e81e6e0 ``--max-epochs 1`` trials were pruned after their whole budget, and lost
their test accuracy and memory)."""

from __future__ import annotations

import types
from pathlib import Path

import lightning.pytorch as pl
import optuna
import pytest
from lightning.pytorch.trainer.states import TrainerFn

from harness.studies.fitting import fit_trial
from harness.studies.plans import TuneContext
from harness.studies.pruning import (
    PruneUnpromising,
    last_validation,
    pruning,
    validations_per_trial,
)
from harness.studies.study import run_study


def context(tmp_path: Path, trec_dir: Path, **budget: int) -> TuneContext:
    return TuneContext(
        study="dropout",
        task="trec",
        encoder="multi_cnn",
        data_dir=trec_dir,
        embeddings=trec_dir / "glove.txt",
        out=tmp_path / "study",
        overrides={"model.hidden_dim": 4, "model.head_hidden": 8},
        budget={f"trainer.{key}": value for key, value in budget.items()},
    )


@pytest.mark.parametrize(
    ("trainer", "validations"),
    [
        ({"max_epochs": 1}, 1),
        ({"max_epochs": 30}, 30),
        ({"max_epochs": 30, "check_val_every_n_epoch": 4}, 7),
        ({"max_epochs": 30, "max_steps": 100, "limit_train_batches": 60}, 1),  # 2nd cut short
        ({"max_epochs": 30, "max_steps": 6, "limit_train_batches": 0.5}, 30),  # data unknown
        ({"max_epochs": 30, "max_steps": 100, "limit_train_batches": 0.5}, 30),
        ({"max_epochs": -1, "max_steps": 100}, None),
    ],
)
def test_validations_per_trial(trainer: dict, validations: int | None) -> None:
    assert validations_per_trial(trainer) == validations


def test_the_pruner_is_off_where_a_trial_validates_too_few_times(tmp_path: Path) -> None:
    ctx = context(tmp_path, tmp_path)
    for epochs in (1, 2):
        off = pruning(ctx, "val_acc", {"max_epochs": epochs})
        assert isinstance(off.pruner, optuna.pruners.NopPruner)
        assert off.monitor is None and "off" in off.note and "--max-epochs 3" in off.note
    on = pruning(ctx, "val_acc", {"max_epochs": 3})
    assert isinstance(on.pruner, optuna.pruners.MedianPruner) and on.monitor == "val_acc"
    assert isinstance(
        pruning(ctx, "val_acc", {"max_epochs": None}).pruner, optuna.pruners.MedianPruner
    )


class AlwaysPrune:
    """A trial stand-in whose pruner always says prune."""

    def __init__(self) -> None:
        self.reported: list[tuple[int, float]] = []

    def report(self, value: float, step: int) -> None:
        self.reported.append((step, value))

    def should_prune(self) -> bool:
        return True


def validation_end(callback: PruneUnpromising, epoch: int, max_epochs: int) -> bool:
    trainer = types.SimpleNamespace(
        state=types.SimpleNamespace(fn=TrainerFn.FITTING),
        sanity_checking=False,
        callback_metrics={"val_acc": 0.5},
        world_size=1,
        max_epochs=max_epochs,
        max_steps=-1,
        global_step=10 * (epoch + 1),
        current_epoch=epoch,
        should_stop=False,
        check_val_every_n_epoch=1,
        num_training_batches=10,
        val_check_batch=10,
        accumulate_grad_batches=1,
    )
    callback.on_validation_end(trainer, types.SimpleNamespace(current_epoch=epoch))
    return trainer.should_stop


def test_the_last_validation_is_reported_but_never_prunes() -> None:
    trial = AlwaysPrune()
    last = PruneUnpromising(trial, "val_acc")
    assert not validation_end(last, 0, max_epochs=1) and last.pruned_at is None
    earlier = PruneUnpromising(trial, "val_acc")
    assert validation_end(earlier, 1, max_epochs=3) and earlier.pruned_at == 1
    assert trial.reported == [(0, 0.5), (1, 0.5)]


def at_epoch_end(epoch: int, **trainer: object) -> types.SimpleNamespace:
    """A trainer validating at the end of ``epoch`` (10 batches an epoch, one step each)."""
    schedule = {"check_val_every_n_epoch": 1, "max_steps": -1, "accumulate_grad_batches": 1}
    schedule |= {"num_training_batches": 10, "val_check_batch": 10} | trainer
    steps = (epoch + 1) * -(
        -schedule["num_training_batches"] // schedule["accumulate_grad_batches"]
    )
    return types.SimpleNamespace(current_epoch=epoch, global_step=steps, **schedule)


def test_the_last_validation_counts_validations_every_n_epochs() -> None:
    """Issue 54.9: with ``check_val_every_n_epoch 3`` over 4 epochs the validation of epoch 2
    is the last one, and was pruned (``current_epoch + 1 >= max_epochs`` read it as not)."""
    every_3 = {"max_epochs": 4, "check_val_every_n_epoch": 3}
    assert last_validation(at_epoch_end(2, **every_3))
    assert not last_validation(at_epoch_end(2, max_epochs=6, check_val_every_n_epoch=3))
    # a step budget that ends inside epoch 5, before the next validation (end of epoch 5)
    assert last_validation(at_epoch_end(2, max_epochs=30, check_val_every_n_epoch=3, max_steps=55))
    assert not last_validation(
        at_epoch_end(2, max_epochs=30, check_val_every_n_epoch=3, max_steps=60)
    )


class Recorder(pl.Callback):
    """What ``last_validation`` says at each validation of a fit, and which was the last."""

    def __init__(self) -> None:
        self.said: list[bool] = []

    def on_validation_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if trainer.state.fn == TrainerFn.FITTING and not trainer.sanity_checking:
            self.said.append(last_validation(trainer))


@pytest.mark.slow  # a few tiny Lightning fits
@pytest.mark.parametrize(
    "schedule",
    [
        {"max_epochs": 4, "check_val_every_n_epoch": 3},
        {"max_epochs": 7, "check_val_every_n_epoch": 2},
        {"max_epochs": 9, "check_val_every_n_epoch": 2, "max_steps": 13},
        {"max_epochs": 9, "check_val_every_n_epoch": 2, "max_steps": 16},
        {"max_epochs": -1, "max_steps": 11, "accumulate_grad_batches": 2},
        {"max_epochs": 5, "check_val_every_n_epoch": 1, "limit_train_batches": 3},
    ],
)
def test_last_validation_is_lightnings_last_validation(tmp_path: Path, schedule: dict) -> None:
    """Lightning's own schedule: ``last_validation`` is true at the fit's last validation and
    at no other (4 batches an epoch unless limited)."""
    from lightning.pytorch.demos.boring_classes import BoringModel, RandomDataset
    from torch.utils.data import DataLoader

    recorder = Recorder()
    trainer = pl.Trainer(
        default_root_dir=tmp_path,
        callbacks=[recorder],
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        num_sanity_val_steps=0,
        **schedule,
    )
    loader = DataLoader(RandomDataset(32, 16), batch_size=4)
    trainer.fit(BoringModel(), train_dataloaders=loader, val_dataloaders=loader)
    assert recorder.said and recorder.said == [False] * (len(recorder.said) - 1) + [True]


@pytest.mark.slow  # two tiny fits
def test_a_pruned_trial_keeps_what_it_measured(tmp_path: Path, trec_dir: Path) -> None:
    ctx = context(tmp_path, trec_dir, max_epochs=3)
    study = optuna.create_study(direction="maximize", pruner=optuna.pruners.ThresholdPruner(2.0))

    def objective(trial: optuna.Trial) -> float:
        callbacks = [PruneUnpromising(trial, "val_acc")]
        return fit_trial(ctx, trial, {"model.dropout": 0.1}, callbacks)["dev_acc"]

    study.optimize(objective, n_trials=1)
    (trial,) = study.trials
    assert trial.state == optuna.trial.TrialState.PRUNED
    assert list(trial.intermediate_values) == [0]  # stopped after its first epoch of three
    for key in ("dev_acc", "test_acc", "peak_train_mem_mb", "train_time_s"):
        assert trial.user_attrs[key] == trial.user_attrs[key]  # present, not NaN


@pytest.mark.slow  # two tiny trials
def test_a_one_epoch_study_says_once_that_it_does_not_prune(
    tmp_path: Path, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ctx = context(tmp_path, trec_dir, max_epochs=1)
    summary = run_study(ctx, "d", f"sqlite:///{tmp_path / 's.db'}", 2)
    out = capsys.readouterr().out
    assert out.count("Pruning: off") == 1 and "pruned" not in out
    assert summary["trial_counts"] == {"complete": 2}


@pytest.mark.slow  # three tiny trials
def test_the_dropout_study_answers_its_best_trial_and_offers_it_to_fit(
    tmp_path: Path, trec_dir: Path
) -> None:
    """The dropout study's answer, run small as a user runs it: its best trial is the trial of
    trials.csv with the highest dev accuracy (ties: the first), and best_config.yaml trains
    that trial's dropout."""
    import yaml

    from reports.contracts.study import StudyFolder

    ctx = context(tmp_path, trec_dir, max_epochs=1)
    summary = run_study(ctx, "d", f"sqlite:///{tmp_path / 's.db'}", 3)
    trials = StudyFolder(ctx.out).read_trials()
    complete = trials[trials["state"] == "COMPLETE"]
    winner = complete.loc[complete["value_dev_acc"].idxmax()]
    (best,) = summary["best"]
    assert best["number"] == winner["number"] and best["values"] == [winner["value_dev_acc"]]
    config = yaml.safe_load(StudyFolder(ctx.out).best_config.read_text())
    assert config["model"]["dropout"] == round(1 - winner["params_keep_prob"], 6)


@pytest.mark.parametrize(
    ("trainer", "said"),
    [
        (
            {"max_epochs": 2, "check_val_every_n_epoch": 5},
            "Pruning: off: no trial validates: the task's check_val_every_n_epoch 5 is beyond "
            "the task's max_epochs 2: none is pruned.",
        ),
        (
            {"max_epochs": 5, "val_check_interval": 0.5},
            "Pruning: off: a trial validates within its epochs (--trainer.val_check_interval "
            "0.5), and pruning stops one only at an epoch's end.",
        ),
        (  # the fixture's TREC: 4 training batches an epoch
            {"max_epochs": -1, "max_steps": 2},
            "Pruning: off: no trial validates within the task's max_steps 2 step(s) (an epoch "
            "is 4 training step(s), and the first validation comes at an epoch's end): none is "
            "pruned.",
        ),
        (  # trec.yaml's max_epochs 30 with --max-steps 11: 2 validations, too few
            {"max_epochs": 30, "max_steps": 11},
            "Pruning: off: a trial validates 2 time(s) in its budget, and pruning can stop one "
            "only after its first validation and before its last (give --max-steps 12 or more "
            "to prune).",
        ),
        (
            {"max_epochs": 2},
            "Pruning: off: a trial validates 2 time(s) in its budget, and pruning can stop one "
            "only after its first validation and before its last (give --max-epochs 3 or more "
            "to prune).",
        ),
        (
            {"max_epochs": 30, "max_steps": 12},
            "Pruning: median pruner on val_acc, after each validation but the first and the last.",
        ),
    ],
    ids=[
        "no validation",
        "within epochs",
        "steps",
        "steps within the task's epochs",
        "epochs",
        "on",
    ],
)
def test_the_pruning_note_says_what_will_happen(
    trainer: dict, said: str, tmp_path: Path, trec_dir: Path
) -> None:
    """Issue 56, item 5: 'Pruning: median pruner on val_acc, after each validation ...' was said
    for trials that never validate, that validate within epochs (never pruned: each such
    validation is taken as the last), and for a step budget that may end before any
    validation. Short checks 54j items 2, 3 and 56i item 9: 'tune --max-steps 6' on TREC (171
    batches an epoch) said the median pruner would prune 'after each validation but the first
    and the last (a trial whose --max-steps 6 ends before its third validation is never
    pruned)', and no trial validated; the epoch's batches are now counted from the data."""
    chosen = pruning(context(tmp_path, trec_dir), "val_acc", trainer)
    assert chosen.note == said
    off = said.startswith("Pruning: off")
    assert isinstance(chosen.pruner, optuna.pruners.NopPruner) == off
    assert (chosen.monitor is None) == off


@pytest.mark.parametrize(
    ("trainer", "advice"),
    [
        ({"max_epochs": 30, "max_steps": 10, "limit_train_batches": 4}, "--max-steps 12 or more"),
        ({"max_epochs": 4, "check_val_every_n_epoch": 2}, "--max-epochs 6 or more"),
        (
            {"max_epochs": 2, "max_steps": 5, "limit_train_batches": 4},
            "--max-epochs 3 and --max-steps 12 or more",
        ),
    ],
)
def test_the_note_advises_the_budget_that_limits_the_validations(
    trainer: dict, advice: str, tmp_path: Path
) -> None:
    """Outside check 54k item 4: 'tune --max-steps 10 --limit-train-batches 4' (the task's
    max_epochs 30) said '(give --max-epochs 3 or more to prune)', which changed nothing: the
    step budget ends the trial after its second validation."""
    note = pruning(context(tmp_path, tmp_path), "val_acc", trainer).note
    assert note.endswith(f"(give {advice} to prune)."), note


def test_counting_an_epochs_steps_warns_not_again_of_random_vectors(
    tmp_path: Path, trec_dir: Path
) -> None:
    """Outside check 54k item 6: tune said 'warning: no --embeddings ...' twice, the second
    time as the pruning note read the data to count an epoch's steps."""
    import dataclasses
    import warnings

    from datamodules.datamodule import RandomVectorsWarning

    ctx = dataclasses.replace(context(tmp_path, trec_dir), embeddings=None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        note = pruning(ctx, "val_acc", {"max_epochs": 30, "max_steps": 11})
    assert "--max-steps 12" in note.note  # the data was read: 4 steps an epoch
    assert not [w for w in caught if issubclass(w.category, RandomVectorsWarning)]


def test_the_note_names_the_options_as_given(tmp_path: Path, trec_dir: Path) -> None:
    """Short check 54j item 2: the note names the options the command was given."""
    from harness.command_parser import options_typed

    typed = {
        "max_steps": ("--max-steps", "2"),
        "trainer.check_val_every_n_epoch": ("--trainer.check_val_every_n_epoch", "5"),
        "trainer.max_epochs": ("--trainer.max_epochs", "2"),
    }
    ctx = context(tmp_path, trec_dir)
    with options_typed(typed):
        steps = pruning(ctx, "val_acc", {"max_epochs": 30, "max_steps": 2}).note
        epochs = pruning(ctx, "val_acc", {"max_epochs": 2, "check_val_every_n_epoch": 5}).note
    assert "within --max-steps 2 step(s)" in steps
    assert epochs == (
        "Pruning: off: no trial validates: --trainer.check_val_every_n_epoch 5 is beyond "
        "--trainer.max_epochs 2: none is pruned."
    )


def test_the_command_says_the_notes_once_for_its_workers(
    tmp_path: Path, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Short check 54j item 3: with --jobs 2 each worker printed the pruning note and the
    study's other notes; now the command says them as it counts the trials left, and its
    workers (run_study's opening False) do not."""
    import inspect

    from harness.studies import tune
    from harness.studies.study import trials_left

    ctx = context(tmp_path, trec_dir, max_epochs=1)
    assert trials_left(ctx, "d", f"sqlite:///{tmp_path / 's.db'}", 2) == 2
    out = capsys.readouterr().out
    assert out.count("Pruning: off") == 1 and out.count("no attention dropout") == 1
    assert "opening=False" in inspect.getsource(tune.run_as_jobs)


def test_a_batch_limit_beyond_the_epoch_counts_the_epochs_batches(
    tmp_path: Path, trec_dir: Path
) -> None:
    """Brief 5c item 4: '--limit-train-batches 50' over an epoch of 4 batches was counted as
    50 steps an epoch ('no trial validates within 10 step(s) (an epoch is 50 training
    step(s) ...)'); Lightning trains min(50, 4), so 10 steps validate twice."""
    trainer = {"max_epochs": 30, "max_steps": 10, "limit_train_batches": 50}
    note = pruning(context(tmp_path, trec_dir), "val_acc", trainer).note
    assert note == (
        "Pruning: off: a trial validates 2 time(s) in its budget, and pruning can stop one only "
        "after its first validation and before its last (give --max-steps 12 or more to prune)."
    )
