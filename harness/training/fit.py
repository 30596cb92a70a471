"""``run_fit``: train, validate and test one (task, encoder, seed, fold) and write its folder
(the files of ``reports.contracts.fit_folder``)."""

from __future__ import annotations

import contextlib
import math
import os
import sys
import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import lightning
import lightning.pytorch as pl
import torch
import torchmetrics
import yaml
from lightning.pytorch.callbacks import ModelCheckpoint
from lightning.pytorch.utilities import rank_zero_only
from torch.utils.data import DataLoader, Subset

from harness.command_parser import refusal_as_written
from harness.errors import InputError, RunFailedError, SanbenchError, failure_line
from harness.launch.job_run import note_run
from harness.measurement.cpu_usage import usage_record
from harness.measurement.environment import environment
from harness.measurement.latency import Stopwatch
from harness.outdir import one_writer, removed_if_left_empty
from harness.redaction import recorded_command
from harness.training.callbacks.efficiency_callback import EfficiencyCallback, time_inference
from harness.training.callbacks.prediction_writers import TestPredictionWriter
from harness.training.callbacks.stop_on_signal import (
    StopOnSignal,
    stop_on_signals,
)
from harness.training.callbacks.train_metrics import TrainMetrics
from harness.training.checkpoint_file import check_readable
from harness.training.checkpoint_position import at_last_batch
from harness.training.checkpoints import WEIGHTS_ONLY, refused_if_unsafe
from harness.training.curve import write_curve
from harness.training.module import TaskModule
from harness.training.run_folder import (
    check_run_folder,
    discard_started_run,
    finished_with,
    prepare_run_folder,
    resumes,
    starts_afresh,
)
from harness.training.scored_share import (
    PartialSplitWarning,
    partial_split_message,
    scored_positions,
    scored_share,
)
from harness.training.settings.fit_cli import SHORT_FORMS, FitCLI
from harness.training.settings.fit_run import FitRun
from harness.training.settings.task_model import users_run_error
from harness.training.warm_up import (
    compiled_kernel_files,
    kernel_folder,
    waited_for_build,
    warm_up_line,
    warm_up_tiles,
)
from reports.contracts.fit_folder import FitRunFolder
from reports.contracts.manifest import write_manifest

INFERENCE_BATCH = 128  # MTSA Table 1: dev inference time with batch size 128


def _renamed(metrics: dict[str, Any], old: str, new: str) -> dict[str, float]:
    return {
        new + k.removeprefix(old): float(v)
        for k, v in metrics.items()
        if k.startswith(old) and k != f"{old}loss_step"
    }


def _plain(loader: DataLoader, positions: list[int] | None = None) -> DataLoader:
    """``loader``'s examples in order (those at ``positions`` only, when given), batches of
    ``INFERENCE_BATCH`` (``Trainer.predict`` needs a batch sampler it can wrap, which the
    datamodules' pre-sorted lists are not)."""
    dataset = loader.dataset if positions is None else Subset(loader.dataset, positions)
    return DataLoader(dataset, batch_size=INFERENCE_BATCH, collate_fn=loader.collate_fn)


def compile_encoder(
    module: TaskModule, batch: dict[str, torch.Tensor], device: torch.device
) -> float:
    """``torch.compile`` the encoder in place; returns the seconds of its first (compiling)
    forward and backward on ``batch``, so that step times exclude it."""
    module.encoder.compile()
    module.to(device).train()
    batch = {k: v.to(device) for k, v in batch.items()}
    seconds, _ = Stopwatch.timed(lambda: module(batch).sum().backward(), device)
    module.zero_grad(set_to_none=True)
    return seconds


class RunWriteError(RuntimeError):
    """A run's own file not written after its checks passed (a checkpoint, the predictions):
    an internal error, exit status 1 with or without ``--debug``; an ``OSError`` alone is bad
    input (exit 2), which until 2026-12-01 it was said to be."""


def own_write_failed(error: BaseException, out_dir: Path) -> bool:
    """True for an ``OSError`` of the run's own files: one naming a file in ``out_dir`` (by
    name, as ``os.path.abspath`` names both: the path written, ``tempfile``'s too) or none
    (a full disk); a file elsewhere (a data file) is the user's input."""
    if not isinstance(error, OSError) or isinstance(error, SanbenchError):
        return False
    named = error.filename
    return named is None or Path(os.path.abspath(named)).is_relative_to(os.path.abspath(out_dir))


def fit_datamodule(
    datamodule: pl.LightningDataModule,
    module: TaskModule,
    trainer: pl.Trainer,
    out_dir: Path,
    compile: bool = False,
) -> dict[str, Any]:
    """Fit (resuming from ``last.ckpt``), then validate, test and predict the test split with
    the best-on-dev weights; ``trainer`` carries ``trainer_arguments``' callbacks."""
    callbacks = trainer.callbacks
    device = trainer.strategy.root_device
    compile_seconds = None
    if compile:
        compile_seconds = compile_encoder(module, next(iter(datamodule.train_dataloader())), device)
    module.to(device)
    files, waited = compiled_kernel_files(device), waited_for_build(device)  # an earlier run's
    tiles = warm_up_tiles(module.encoder, device, trainer.precision_plugin.forward_context)
    if tiles is not None:
        compile_seconds = (compile_seconds or 0.0) + tiles
        if trainer.is_global_zero:
            new_files = compiled_kernel_files(device) - files
            waited = waited_for_build(device) and not waited
            line = warm_up_line(tiles, new_files, kernel_folder(device), waited)
            print(line, file=sys.stderr)
    last = FitRunFolder(out_dir).last_checkpoint
    resume = last if last.exists() else None
    if resume:
        check_readable(last, "delete it to restart this run from scratch, or choose another --out")
    stopper = next(c for c in callbacks if isinstance(c, StopOnSignal))
    # a signal after training stops at once: the trained weights are in last.ckpt
    with stop_on_signals(stopper) as training_ended:
        with refused_if_unsafe(resume):
            trainer.fit(module, datamodule=datamodule, ckpt_path=resume, weights_only=WEIGHTS_ONLY)
        training_ended()
        if trainer.global_step == 0:  # e.g. a datamodule of no training batch: nothing to score
            raise RunFailedError(UNTRAINED)
        # the last epoch's, also when this process trained none (resumed after it: TrainMetrics)
        last_train = next(c for c in callbacks if isinstance(c, TrainMetrics))
        train = last_train.metrics
        if trainer.is_global_zero:
            write_curve(out_dir)
        # read before validate/test: restoring the best checkpoint also restores callback state
        efficiency = next(c for c in callbacks if isinstance(c, EfficiencyCallback)).summary()
        epochs, steps = last_train.epochs, trainer.global_step
        if epochs is None:  # resumed from a checkpoint made before TrainMetrics counted them
            epochs = completed_epochs(trainer)
        best_callback = next(c for c in callbacks if isinstance(c, ModelCheckpoint) and c.monitor)
        best = best_callback.best_model_path or None
        if best is None and steps:
            said = NO_VALIDATION.format(steps=steps, epochs=epochs, when=first_validation(trainer))
            warnings.warn(NoValidationWarning(said), stacklevel=1)
        # the best weights' dev metrics go to metrics.json only: logged, they would add a point
        # after the last one of the training-time validations (curves, TensorBoard)
        evaluated = {"datamodule": datamodule, "ckpt_path": best, "weights_only": WEIGHTS_ONLY}
        with refused_if_unsafe(best):
            loggers, trainer.loggers = trainer.loggers, []
            try:
                dev = trainer.validate(module, **evaluated, verbose=False)[0]
            finally:
                trainer.loggers = loggers
            # the share scored, read before the next pass replaces the loaders
            shares = {"dev": scored_share(trainer.num_val_batches, trainer.val_dataloaders)}
            test = trainer.test(module, **evaluated, verbose=False)[0]
            shares["test"] = scored_share(trainer.num_test_batches, trainer.test_dataloaders)
            # the sentences tested only (a limited pass: test_acc's), so the file agrees with it
            tested = scored_positions(trainer.num_test_batches, trainer.test_dataloaders)
            # the best-on-dev weights, as tested, at the run's precision (DiSAN accuracy vs length)
            trainer.callbacks.append(TestPredictionWriter(FitRunFolder(out_dir).predictions))
            trainer.predict(
                module,
                dataloaders=_plain(datamodule.test_dataloader(), tested),
                ckpt_path=best,
                weights_only=WEIGHTS_ONLY,
            )
            infer_loader = _plain(datamodule.val_dataloader())
            device = trainer.strategy.root_device
            infer_seconds, infer_cpu = time_inference(module, infer_loader, device)
    limits = {"limit_val_batches": trainer.limit_val_batches}
    limits["limit_test_batches"] = trainer.limit_test_batches
    partial = partial_split_message(shares, limits, pairs=module.kind != "single")
    if partial:
        warnings.warn(PartialSplitWarning(partial), stacklevel=1)
    return {
        "params": module.parameter_count(),
        **efficiency,
        "compile": compile,
        "compile_s": compile_seconds,
        "dev_infer_time_s": infer_seconds,
        **usage_record(infer_cpu, "dev_infer_"),
        "epochs": epochs,
        "steps": steps,
        **{k: v for k, v in train.items() if k not in ("train_loss", "train_seconds")},
        **_renamed(dev, "val_", "dev_"),
        **_renamed(test, "test_", "test_"),
        **{f"{split}_scored_share": share for split, share in shares.items()},
        # the checkpoint whose weights were scored: the best on dev, else (no validation ran)
        # last.ckpt, the last weights, so that checkpoints/<best_checkpoint> always loads
        "best_checkpoint": Path(best).name if best else (last.name if last.is_file() else ""),
    }


def completed_epochs(trainer: pl.Trainer) -> int:
    """The training epochs run to their last batch. Lightning's ``current_epoch`` after a fit
    also counts the last epoch when a step budget, early stopping inside an epoch or a stop
    ended it before its last batch (15 steps of 10-batch epochs: 2); ``steps`` holds those."""
    return max(trainer.current_epoch - int(not at_last_batch(trainer)), 0)


UNTRAINED = (
    "training ended before its first step (no training batch, or a budget or callback that "
    "stopped it at once): no result is recorded for a model that was not trained"
)
NO_VALIDATION = (
    "training ended after {steps} step(s) in {epochs} whole epoch(s), before its first "
    "validation ({when}): the dev and test scores are those of the last weights, not the best "
    "on dev"
)


def first_validation(trainer: pl.Trainer) -> str:
    """When the fit's first validation was due, for :data:`NO_VALIDATION`: the options that
    moved it from Lightning's default, the first epoch's end (a budget of 2 epochs with
    ``--trainer.check_val_every_n_epoch 5`` validates never: not "inside the first epoch")."""
    every, interval = trainer.check_val_every_n_epoch, trainer.val_check_interval
    default = isinstance(interval, float) and interval == 1.0  # an int 1: every batch
    given = [] if default else [f"--trainer.val_check_interval {interval}"]
    said = "null" if every is None else every  # as typed: YAML's null, not Python's None
    given += [] if every == 1 else [f"--trainer.check_val_every_n_epoch {said}"]
    return f"as {' and '.join(given)} set it" if given else "due at the first epoch's end"


class NoValidationWarning(UserWarning):
    """A fit whose budget ended before any validation: no best-on-dev checkpoint exists. Said
    once per command (harness.quiet): every run of a suite or trial of a study has the budget."""

    ONCE_PER_COMMAND = True


def run_fit(
    run: FitRun | FitCLI, callbacks: list[pl.Callback] | None = None, overwrite: bool = False
) -> dict[str, Any]:
    """Train, validate and test one model; write ``out/metrics.json`` and return it.

    ``run`` is a :class:`FitRun` or a parsed ``FitCLI`` (``sanbench fit``); ``callbacks`` are
    added to the trainer's own (optuna pruning in ``sanbench tune``).

    The run folder is resumed only by the same configuration (``fit_config.yaml``): a finished
    folder returns its metrics unchanged, one with ``checkpoints/last.ckpt`` resumes from it.
    Another configuration raises :class:`RunFolderError` unless ``overwrite``. One process
    writes a folder: a second one raises :class:`harness.outdir.FolderBusyError`.
    """
    cli = FitCLI(run.args()) if isinstance(run, FitRun) else run
    cli.check()
    # --out before any data is read (docs/training.md), and before the lock: touch nothing
    try:
        check_run_folder(cli.out_dir, cli.config_yaml(), overwrite)
    except InputError as error:  # a config file's out named as written, not --out
        raise refusal_as_written(error, cli.typed, SHORT_FORMS) from None
    if not overwrite and finished_with(cli.out_dir, cli.config_yaml()):
        return FitRunFolder(cli.out_dir).read_metrics()  # nothing to train: no file read
    cli.build(callbacks)  # reads and checks every input file: bad ones leave --out untouched
    writer = rank_zero_only.rank == 0
    # a failed start leaves nothing that blocks a re-run: no folder it made, no file it wrote
    with (
        removed_if_left_empty(cli.out_dir if writer else None),
        one_writer(cli.out_dir) if writer else contextlib.nullcontext(),
    ):
        note_run(cli.out_dir)  # a job's command, should it kill the job, says what it left
        return _run_fit(cli, overwrite, writer)


def _run_fit(cli: FitCLI, overwrite: bool, writer: bool) -> dict[str, Any]:
    out_dir = cli.out_dir
    config_text = cli.config_yaml()
    new_run = overwrite or starts_afresh(out_dir)
    prepare_run_folder(out_dir, config_text, overwrite, writer=writer)
    folder = FitRunFolder(out_dir)
    if folder.finished():
        return folder.read_metrics()
    datamodule, trainer, config = cli.datamodule, cli.trainer, cli.config
    try:
        measured = fit_datamodule(datamodule, cli.model, trainer, out_dir, config["run"]["compile"])
    except BaseException as error:
        discarded = writer and new_run and not folder.last_checkpoint.exists()
        if discarded:
            discard_started_run(out_dir)  # nothing to resume: no result, no config
        users = users_run_error(datamodule, error, out_dir, kept=not discarded)
        if users is not None:  # their --data class raised it (Lightning called it)
            raise users from error
        if own_write_failed(error, out_dir):
            raise RunWriteError(f"{out_dir}: {failure_line(error)}") from error
        raise
    task, encoder, seed = (
        datamodule.task.name,  # a task file's name, not its path (in the config)
        config["model"]["encoder"],
        config["seed_everything"],
    )
    fold = config["data"]["fold"] if datamodule.task.cv_folds else None
    # the class ids' names (test_predictions.csv holds ids): a task file's string labels
    labels = list(datamodule.task.labels) if datamodule.task.kind != "relatedness" else None
    metrics = {"task": task, "encoder": encoder, "seed": seed, "fold": fold, "labels": labels}
    metrics |= measured
    metrics = {
        k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in metrics.items()
    }
    # what ran: the config the run started with (a resume may change a NOT_COMPARED key)
    metrics["config"] = yaml.safe_load(config_text if new_run else folder.config.read_text())
    metrics["resumes"] = resumes(out_dir)
    metrics["versions"] = {
        **environment(trainer.strategy.root_device),
        "lightning": lightning.__version__,
        "torchmetrics": torchmetrics.__version__,
        "world_size": str(trainer.world_size),
    }
    if trainer.is_global_zero:
        write_manifest(
            out_dir,
            {
                "kind": "fit",
                # as typed; the folder's fit_config.yaml reruns it too (the report's fit page)
                "command": recorded_command(),
                "task": task,
                "encoder": encoder,
                "seed": seed,
                "fold": fold,
                "finished": datetime.now(UTC).isoformat(timespec="seconds"),
                "files": folder.files(),
            },
        )
        folder.write_metrics(metrics)
    return metrics
