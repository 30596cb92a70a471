"""Pruning of single-objective training studies (``dropout``, ``search``): optuna's median
pruner, fed the dev metric after each validation, where pruning can save training.

optuna-integration's ``PyTorchLightningPruningCallback`` raises ``TrialPruned`` from inside
the fit, so a pruned trial keeps nothing it measured (test accuracy, memory, time), and it
prunes at the last validation too, where the trial has trained its whole budget already. Here
:class:`PruneUnpromising` reports every validation, never prunes at the budget's last one, and
stops a pruned fit the way early stopping does: the fit ends, tests and writes its metrics,
and :func:`harness.studies.fitting.fit_trial` records them before the trial is marked pruned.
Trials train in one process: a trial's fit with several devices (DDP) is not pruned.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import lightning.pytorch as pl
import optuna
from lightning.pytorch.trainer.states import TrainerFn

from harness.studies.plans import TuneContext

WARM_UP_VALIDATIONS = 1  # the median pruner decides from the second validation on


class PruneUnpromising(pl.Callback):
    """Reports ``monitor`` to ``trial`` after each validation (step = epoch) and, where the
    pruner says so and it is not the budget's last validation, stops the fit
    (``pruned_at`` = the epoch)."""

    def __init__(self, trial: optuna.Trial, monitor: str) -> None:
        self.trial, self.monitor = trial, monitor
        self.pruned_at: int | None = None

    def on_validation_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        score = trainer.callback_metrics.get(self.monitor)
        fitting = trainer.state.fn == TrainerFn.FITTING  # not the dev/test passes after it
        if not fitting or trainer.sanity_checking or score is None or trainer.world_size > 1:
            return
        epoch = pl_module.current_epoch
        self.trial.report(float(score), step=epoch)
        if not last_validation(trainer) and self.trial.should_prune():
            self.pruned_at = epoch
            trainer.should_stop = True


def last_validation(trainer: pl.Trainer) -> bool:
    """Whether no validation follows this one in the fit's budget, whatever the pruner says.

    Lightning validates at the end of epoch e when (e + 1) % ``check_val_every_n_epoch`` == 0,
    so the next one ends epoch ``current_epoch + every``: none when that epoch is past
    ``max_epochs``, or when the ``every`` epochs' optimizer steps (ceil(batches /
    ``accumulate_grad_batches``) each) pass ``max_steps``, which then ends the fit mid-epoch,
    unvalidated. Validations inside an epoch or by steps (``val_check_interval``) are not
    counted here: each is taken as the last (never pruned), as is an epoch of unknown length.
    """
    every, batches = trainer.check_val_every_n_epoch, trainer.num_training_batches
    if every is None or math.isinf(batches) or trainer.val_check_batch < batches:
        return True
    max_epochs = trainer.max_epochs if trainer.max_epochs not in (None, -1) else math.inf
    if trainer.current_epoch + every >= max_epochs:
        return True
    if trainer.max_steps in (None, -1):
        return False
    steps_per_epoch = math.ceil(batches / trainer.accumulate_grad_batches)
    return trainer.global_step + every * steps_per_epoch > trainer.max_steps


def validations_per_trial(trainer: dict[str, Any], data_epoch: int | None = None) -> int | None:
    """How many validations a trial's fit runs with its resolved ``trainer`` config at most
    (early stopping may end it sooner, and so may a step budget over epochs of unknown length:
    :func:`steps_may_end_first`): one per ``check_val_every_n_epoch`` whole epochs, none when
    the budget ends before the first such epoch (a step budget ending mid-epoch validates not
    there: Lightning validates at an epoch's end); None when no bound is known (a step budget
    over epochs of unknown length and no ``max_epochs``, or no budget). ``data_epoch``: an
    epoch's optimizer steps as the data gives them, where the config does not fix them."""
    epochs = trainer.get("max_epochs")
    epochs = math.inf if epochs in (None, -1) else epochs
    steps, per_epoch = trainer.get("max_steps"), data_epoch or epoch_batches(trainer)
    if steps not in (None, -1) and per_epoch is not None:
        epochs = min(epochs, steps // per_epoch)
    if epochs == math.inf:
        return None
    return int(epochs) // (trainer.get("check_val_every_n_epoch") or 1)


def epoch_batches(trainer: dict[str, Any]) -> int | None:
    """An epoch's optimizer steps where the config fixes them (``limit_train_batches`` a count,
    over ``accumulate_grad_batches``); None where only the data would tell. A count is an
    upper bound: Lightning trains min(it, the data's batches), which the data tells
    (:func:`data_epoch_steps`, preferred wherever it could be read)."""
    per_epoch = trainer.get("limit_train_batches")
    if not isinstance(per_epoch, int) or isinstance(per_epoch, bool):
        return None
    return math.ceil(per_epoch / (trainer.get("accumulate_grad_batches") or 1))


def steps_may_end_first(trainer: dict[str, Any]) -> bool:
    """Whether a step budget (``max_steps``) may end a trial before the validations the epochs
    count, as the data's size decides (:func:`data_epoch_steps`): a task's ``max_epochs`` 30
    with ``--max-steps 3`` validates never, once or 30 times; ``--limit-train-batches 50``
    caps an epoch at 50 batches, and an epoch of 4 trains 4 (until 2026-11-30 counted 50)."""
    return trainer.get("max_steps") not in (None, -1)


def data_epoch_steps(ctx: TuneContext, trainer: dict[str, Any]) -> int | None:
    """An epoch's optimizer steps in a trial, as its data gives them (the files read); None
    when they cannot be read (a finished study's outputs rewritten without its data: the
    files were judged before its trials ran). It does not warn of random vectors: the study's
    check of its files did, once (until 2026-11-30 the command said it twice)."""
    from datamodules.datamodule import BenchmarkDataModule, RandomVectorsWarning
    from harness.studies.fitting import best_fit_run
    from harness.training.settings.config_checks import replicas

    datamodule = BenchmarkDataModule(**best_fit_run(ctx, ctx.budget).resolved()["data"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RandomVectorsWarning)
        try:
            datamodule.check_inputs()
        except (OSError, ValueError):  # MissingSplitError, DataFormatError, EmptySplitError
            return None
        datamodule.setup("fit")
    batches = datamodule.epoch_batches(trainer.get("limit_train_batches"), replicas(trainer))
    return math.ceil(batches / (trainer.get("accumulate_grad_batches") or 1))


def option_given(trainer: dict[str, Any], key: str) -> str:
    """``trainer.key``'s option and value as the command was given them (``--max-steps 6``,
    ``--config c.yaml: trainer.max_epochs 2``), else as the task's config sets it."""
    from harness.command_parser import typed_now
    from harness.training.settings.fit_overrides import fit_typed

    typed = fit_typed(typed_now()).get(f"trainer.{key}")
    return " ".join(typed) if typed else f"the task's {key} {trainer.get(key)}"


@dataclass(frozen=True)
class Pruning:
    """A study's pruner, the callback a trial's fit reports to, and the study's note on it."""

    pruner: optuna.pruners.BasePruner
    monitor: str | None  # None: nothing is reported
    note: str

    def callbacks(self, trial: optuna.Trial) -> list[pl.Callback]:
        return [] if self.monitor is None else [PruneUnpromising(trial, self.monitor)]


def pruning(ctx: TuneContext, monitor: str, trainer: dict[str, Any]) -> Pruning:
    """The median pruner on ``monitor``, unless ``--no-prune`` or unless a trial's fit (its
    resolved ``trainer`` config) validates too few times for pruning to save any training:
    the first validation is the pruner's warm-up and the last ends the trial anyway."""
    if not ctx.prune:
        return Pruning(optuna.pruners.NopPruner(), None, "Pruning: off (--no-prune).")
    data_epoch = data_epoch_steps(ctx, trainer) if steps_may_end_first(trainer) else None
    validations = validations_per_trial(trainer, data_epoch)
    if validations == 0:
        return Pruning(optuna.pruners.NopPruner(), None, never_validates(trainer, data_epoch))
    interval = trainer.get("val_check_interval")  # by steps or within epochs: each one is
    if not (interval is None or (interval == 1.0 and isinstance(interval, float))):  # the last
        return Pruning(  # (last_validation)
            optuna.pruners.NopPruner(),
            None,
            f"Pruning: off: a trial validates within its epochs (--trainer.val_check_interval "
            f"{interval}), and pruning stops one only at an epoch's end.",
        )
    if validations is not None and validations < WARM_UP_VALIDATIONS + 2:
        return Pruning(
            optuna.pruners.NopPruner(),
            None,
            f"Pruning: off: a trial validates {validations} time(s) in its budget, and pruning "
            "can stop one only after its first validation and before its last (give "
            f"{larger_budget(trainer, data_epoch)} to prune).",
        )
    return Pruning(
        optuna.pruners.MedianPruner(n_startup_trials=3, n_warmup_steps=WARM_UP_VALIDATIONS),
        monitor,
        f"Pruning: median pruner on {monitor}, after each validation but the first and the last.",
    )


def larger_budget(trainer: dict[str, Any], data_epoch: int | None) -> str:
    """The budget that validates a trial often enough to prune it, of each limit that stops
    it short (``--max-steps 12 or more`` where the step budget ends the epochs first; until
    2026-11-30 ``--max-epochs 3`` whatever limited it, which changed nothing there)."""
    every = trainer.get("check_val_every_n_epoch") or 1
    epochs = (WARM_UP_VALIDATIONS + 2) * every  # the epochs that end in the third validation
    per_epoch = data_epoch or epoch_batches(trainer)
    steps, max_epochs = trainer.get("max_steps"), trainer.get("max_epochs")
    wanted = []
    if max_epochs not in (None, -1) and max_epochs < epochs:
        wanted.append(f"--max-epochs {epochs}")
    if steps not in (None, -1) and per_epoch is not None and steps < epochs * per_epoch:
        wanted.append(f"--max-steps {epochs * per_epoch}")
    return f"{' and '.join(wanted) or f'--max-epochs {epochs}'} or more"


def never_validates(trainer: dict[str, Any], data_epoch: int | None) -> str:
    """The note of a study whose trials' budget ends before their first validation, naming
    what ends it: the step budget inside the epochs that validate, or the epochs."""
    every = trainer.get("check_val_every_n_epoch") or 1
    per_epoch = data_epoch or epoch_batches(trainer)
    steps = trainer.get("max_steps")
    if steps not in (None, -1) and per_epoch is not None and steps < every * per_epoch:
        first = "an epoch's end" if every == 1 else f"the end of epoch {every}"
        return (
            f"Pruning: off: no trial validates within {option_given(trainer, 'max_steps')} "
            f"step(s) (an epoch is {per_epoch} training step(s), and the first validation "
            f"comes at {first}): none is pruned."
        )
    return (
        "Pruning: off: no trial validates: "
        f"{option_given(trainer, 'check_val_every_n_epoch')} is beyond "
        f"{option_given(trainer, 'max_epochs')}: none is pruned."
    )
