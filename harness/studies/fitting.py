"""Trials that train: one ``run_fit`` per trial in ``OUT/trials/NNNN``; the best as a fit config."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import optuna

from harness.command_parser import options_typed, typed_now
from harness.studies.plans import TuneContext
from harness.studies.trial_environment import record_environment
from harness.studies.workers import RUN_DIR_ATTR
from harness.training.settings.fit_overrides import fit_typed
from harness.training.settings.fit_run import FitRun

if TYPE_CHECKING:  # Lightning is imported by the trials that train, not by a memory study's
    import lightning.pytorch as pl

REPORTED = (
    "dev_acc",
    "dev_pearson",
    "test_acc",
    "test_pearson",
    "peak_train_mem_mb",
    "train_time_s",
    "train_cpu_granted",  # what CPU the training epochs got: the trial's times are inflated
    "train_contended",  # when this is true (docs/training.md, efficiency columns)
    "train_load_avg_before",  # the load average around the epochs: the evidence behind it
    "train_load_avg_after",
)


def dev_metric(task: str) -> tuple[str, str]:
    """(``run_fit`` dev metric, Lightning monitor) of ``task``: accuracy, Pearson's r on SICK."""
    from datamodules import get_task

    kind = get_task(task).kind
    return ("dev_pearson", "val_pearson") if kind == "relatedness" else ("dev_acc", "val_acc")


def require_training(ctx: TuneContext) -> tuple[str, str, Path | None]:
    """(task, encoder, data_dir), or :func:`missing_for_training`'s lines raised."""
    missing = missing_for_training(ctx)
    if missing:
        raise ValueError("\n".join(missing))
    return str(ctx.task), str(ctx.encoder), ctx.data_dir


# a training study's data folder, in the words of every command's refusal of a missing one
DATA_DIR_REQUIRED = (
    "--data-dir is required unless --outputs-only (or the task is a task file) "
    '(the benchmarks\' folder: docs/data.md "Layouts")'
)


def missing_for_training(ctx: TuneContext) -> list[str]:
    """One line per option a training study needs and was not given, in the words of the
    other commands' refusals (``--task is required: ...``): the task, the encoder, and the
    data folder of a benchmark (a task file names its files; a misspelt benchmark, ``treec``,
    needs it as the one it stands for, said beside its name)."""
    from datamodules.tasks import canonical_name
    from harness.training.settings.fit_cli import REQUIRED_WHAT
    from harness.training.settings.task_configs import task_stand_in

    lines = [] if ctx.task else [f"--task is required: {REQUIRED_WHAT['data.task']}"]
    if not ctx.encoder:
        lines.append(f"--encoder is required: {REQUIRED_WHAT['model.encoder']}")
    task = (task_stand_in(ctx.task) or ctx.task) if ctx.task else ""
    if canonical_name(task) is not None and not ctx.data_dir:
        lines.append(DATA_DIR_REQUIRED)
    return lines


def trial_run_dir(ctx: TuneContext, trial: optuna.Trial) -> Path:
    """The trial's fit folder, by its absolute path: an interrupted one's (a trial that
    continues it goes on from its ``last.ckpt``), else ``OUT/trials/NNNN``. Until 2026-12-01
    it was recorded as ``--out`` was typed (``O/trials/0002``), and a worker of the same study
    started from another folder "continued" the trial in its own ``O``, from scratch (outside
    check 10y item 3)."""
    recorded = trial.user_attrs.get(RUN_DIR_ATTR)
    return Path(recorded) if recorded else (ctx.out / "trials" / f"{trial.number:04d}").absolute()


def fit_trial(
    ctx: TuneContext,
    trial: optuna.Trial,
    overrides: dict[str, Any],
    callbacks: list[pl.Callback] | None = None,
) -> dict[str, Any]:
    """Train the trial's configuration in this process; returns ``run_fit``'s metrics (its
    ``peak_train_mem_mb`` is the training steps' tensor peak, whatever ran before it)."""
    task, encoder, data_dir = require_training(ctx)
    run_dir = trial_run_dir(ctx, trial)
    trial.set_user_attr(RUN_DIR_ATTR, str(run_dir))
    run = FitRun(
        task=task,
        encoder=encoder,
        data_dir=data_dir,
        out_dir=run_dir,
        embeddings=ctx.embeddings,
        seed=ctx.seed,
        overrides={**ctx.overrides, **ctx.budget, **overrides},
    )
    from datamodules.datamodule import RandomVectorsWarning
    from harness.training.fit import run_fit

    with warnings.catch_warnings(), options_typed(unset_by_trial(overrides)):
        warnings.simplefilter("ignore", RandomVectorsWarning)  # the study's check said it once
        metrics = run_fit(run, callbacks=callbacks)
    for key in REPORTED:
        if metrics.get(key) is not None:
            trial.set_user_attr(key, metrics[key])
    record_environment(trial, metrics.get("versions") or {})
    for callback in callbacks or []:  # pruned (pruning.PruneUnpromising): what it measured is
        if getattr(callback, "pruned_at", None) is not None:  # kept above
            raise optuna.TrialPruned(f"pruned after epoch {callback.pruned_at}")
    return metrics


def unset_by_trial(overrides: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """The command's options as typed (``command_parser.typed_now``) but those setting a key a
    trial sets (``overrides``): a config file's ``dropout: 0.3`` is not the trial's 0.42, and
    fit's checks would judge the trial's value as that text ("0.3: expected a number")."""
    return {
        key: spelled
        for key, spelled in typed_now().items()
        if fit_typed({key: spelled}).keys().isdisjoint(overrides)
    }


def trial_trainer(ctx: TuneContext) -> dict[str, Any]:
    """The resolved ``trainer`` config a trial's fit runs with (the trials' budget included)."""
    return best_fit_run(ctx, ctx.budget).resolved()["trainer"]


def best_fit_run(ctx: TuneContext, overrides: dict[str, Any]) -> FitRun:
    """The fit that trains with the study's fit overrides and a trial's, without the trials'
    budget (``sanbench fit --config`` runs its YAML as is: the winner trained for real)."""
    task, encoder, data_dir = require_training(ctx)
    return FitRun(
        task=task,
        encoder=encoder,
        data_dir=data_dir,
        # one folder per study (its own folder's name): two studies' winners never collide
        out_dir=Path("runs") / "fit" / f"{ctx.out.name}-best",
        embeddings=ctx.embeddings,
        seed=ctx.seed,
        overrides={**ctx.overrides, **overrides},
    )
