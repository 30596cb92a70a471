"""``run_fit``: train, validate and test one (task, encoder, seed, fold) and write its folder.

Folder layout::

    out_dir/fit_config.yaml     the run's complete configuration (``sanbench fit --config`` runs it)
    out_dir/metrics.json        every final metric, efficiency columns, resolved config, versions
    out_dir/manifest.json       {"kind": "fit", ...}
    out_dir/logs/version_N/     Lightning CSV logs, one folder per (re)start
    out_dir/tensorboard/        TensorBoard events (``logger: tensorboard``)
    out_dir/curve.csv           every validation with ``train_seconds`` (Bi-BloSAN Fig. 5)
    out_dir/test_predictions.csv  index, length(s), label, prediction per test example
    out_dir/checkpoints/        last.ckpt (resume; also mid-epoch) and the best-on-dev checkpoint
"""

from __future__ import annotations

import json
import math
import shlex
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import lightning
import lightning.pytorch as pl
import torch
import torchmetrics
from lightning.pytorch.callbacks import ModelCheckpoint
from lightning.pytorch.utilities import rank_zero_only
from torch.utils.data import DataLoader

from encoders import builder_accepts
from encoders.layers.mblosa import block_length
from harness.environment import environment
from harness.studies.appendix_a import expected_max_length
from harness.training.callbacks import make_callbacks, make_loggers, monitored_metric
from harness.training.config import MODULE_KEYS, TRAINER_KEYS, FitRun
from harness.training.curve import write_curve
from harness.training.efficiency import EfficiencyCallback, time_inference
from harness.training.epoch_lines import EpochLines, progress_bar_on
from harness.training.module import TaskModule, Vocabulary
from harness.training.predictions import FILE_NAME as PREDICTIONS_FILE
from harness.training.predictions import TestPredictionWriter
from harness.training.run_folder import prepare_run_folder

INFERENCE_BATCH = 128  # MTSA Table 1: dev inference time with batch size 128


def _renamed(metrics: dict[str, Any], old: str, new: str) -> dict[str, float]:
    return {
        new + k.removeprefix(old): float(v)
        for k, v in metrics.items()
        if k.startswith(old) and k != f"{old}loss_step"
    }


def _write_json(path: Path, payload: dict[str, Any]) -> None:
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(payload, indent=2, sort_keys=False, default=str) + "\n")
    tmp.replace(path)


def trainer_settings(config: dict[str, Any]) -> dict[str, Any]:
    """The config's Trainer arguments; "all batches" (1.0) is passed as Lightning's default
    (None), so that Lightning does not announce it on every run."""
    settings = {k: config[k] for k in TRAINER_KEYS}
    for key in (
        "limit_train_batches",
        "limit_val_batches",
        "limit_test_batches",
        "val_check_interval",
    ):
        if isinstance(settings[key], float) and settings[key] == 1.0:
            settings[key] = None
    return settings


def _plain(loader: DataLoader) -> DataLoader:
    """``loader``'s examples in order, batches of ``INFERENCE_BATCH`` (``Trainer.predict``
    needs a batch sampler it can wrap, which the datamodules' pre-sorted lists are not)."""
    return DataLoader(loader.dataset, batch_size=INFERENCE_BATCH, collate_fn=loader.collate_fn)


def build_module(
    config: dict[str, Any],
    encoder: str,
    embedding_matrix: torch.Tensor,
    kind: str,
    classes: int,
    labels: tuple[str, ...] = (),
    length_stats: dict[str, float] | None = None,
) -> TaskModule:
    """The LightningModule for ``encoder`` with ``embedding_matrix`` copied in;
    ``hidden_dim: null`` keeps the builder's own size.

    An encoder with a block length (Bi-BloSAN) gets Appendix A's r from the training lengths'
    ``length_stats`` (mean, std) and the batch size, unless ``encoder_options`` sets it.
    """
    options = dict(config["encoder_options"] or {})
    if config["hidden_dim"] is not None:
        options["hidden_dim"] = config["hidden_dim"]
    if length_stats is not None and builder_accepts(encoder, "block_len"):
        longest = expected_max_length(
            length_stats["mean"], length_stats["std"], config["batch_size"]
        )
        options.setdefault("block_len", block_length(longest))
    vocab_size, dim = embedding_matrix.shape
    module = TaskModule(
        encoder,
        kind,
        classes,
        int(vocab_size),
        int(dim),
        encoder_options=options,
        labels=labels,
        **{k: config[k] for k in MODULE_KEYS},
    )
    module.set_embeddings(torch.as_tensor(embedding_matrix).float())
    return module


def compile_encoder(
    module: TaskModule, batch: dict[str, torch.Tensor], device: torch.device
) -> float:
    """``torch.compile`` the encoder in place; returns the seconds of its first (compiling)
    forward and backward on ``batch``, so that step times exclude it."""
    module.encoder.compile()
    module.to(device).train()
    batch = {k: v.to(device) for k, v in batch.items()}
    start = time.perf_counter()
    module(batch).sum().backward()
    seconds = time.perf_counter() - start
    module.zero_grad(set_to_none=True)
    return seconds


def fit_datamodule(
    datamodule: pl.LightningDataModule,
    module: TaskModule,
    config: dict[str, Any],
    out_dir: Path,
    extra_callbacks: list[pl.Callback] | None = None,
) -> tuple[dict[str, Any], pl.Trainer]:
    """Fit (resuming from ``last.ckpt``), then validate, test and predict the test split with
    the best-on-dev weights.

    ``extra_callbacks`` join the trainer's own (e.g. optuna's pruning callback).
    """
    monitor = monitored_metric(datamodule.task.kind)
    callbacks = make_callbacks(config, out_dir, monitor) + list(extra_callbacks or [])
    progress = progress_bar_on(config["progress_bar"])
    if not progress:
        callbacks.append(EpochLines())
    trainer = pl.Trainer(
        default_root_dir=out_dir,
        logger=make_loggers(config, out_dir),  # logs/version_N: one folder per (re)start
        callbacks=callbacks,
        enable_progress_bar=progress,
        enable_model_summary=False,
        num_sanity_val_steps=0,
        # the datamodule shards its own bucketed training batches and evaluates unsharded
        use_distributed_sampler=False,
        log_every_n_steps=config["log_every_n_steps"],
        **trainer_settings(config),
    )
    compile_seconds = None
    if config["compile"]:
        compile_seconds = compile_encoder(
            module, next(iter(datamodule.train_dataloader())), trainer.strategy.root_device
        )
    last = out_dir / "checkpoints" / "last.ckpt"
    trainer.fit(module, datamodule=datamodule, ckpt_path=last if last.exists() else None)
    train = _renamed(trainer.callback_metrics, "train_", "train_")
    if trainer.is_global_zero:
        write_curve(out_dir)
    # read before validate/test: restoring the best checkpoint also restores callback state
    efficiency = next(c for c in callbacks if isinstance(c, EfficiencyCallback)).summary()
    epochs, steps = trainer.current_epoch, trainer.global_step
    best_callback = next(c for c in callbacks if isinstance(c, ModelCheckpoint) and c.monitor)
    best = best_callback.best_model_path or None
    dev = trainer.validate(module, datamodule=datamodule, ckpt_path=best, verbose=False)[0]
    test = trainer.test(module, datamodule=datamodule, ckpt_path=best, verbose=False)[0]
    # the best-on-dev weights, as tested, at the run's precision (DiSAN accuracy vs length)
    trainer.callbacks.append(TestPredictionWriter(out_dir / PREDICTIONS_FILE))
    trainer.predict(module, dataloaders=_plain(datamodule.test_dataloader()), ckpt_path=best)
    infer_loader = _plain(datamodule.val_dataloader())
    metrics = {
        "params": module.parameter_count(),
        **efficiency,
        "compile": bool(config["compile"]),
        "compile_s": compile_seconds,
        "dev_infer_time_s": time_inference(module, infer_loader, trainer.strategy.root_device),
        "epochs": epochs,
        "steps": steps,
        **{k: v for k, v in train.items() if k not in ("train_loss", "train_seconds")},
        **_renamed(dev, "val_", "dev_"),
        **_renamed(test, "test_", "test_"),
        "best_checkpoint": Path(best).name if best else "",
    }
    return metrics, trainer


def run_fit(
    run: FitRun, callbacks: list[pl.Callback] | None = None, overwrite: bool = False
) -> dict[str, Any]:
    """Train, validate and test one model; write ``run.out_dir/metrics.json`` and return it.

    ``callbacks`` are added to the trainer's own (optuna pruning in ``sanbench tune``).

    ``run.out_dir`` is resumed only by the same configuration (``fit_config.yaml``): a
    finished folder returns its metrics unchanged, one with ``checkpoints/last.ckpt`` resumes
    from it. Another configuration raises :class:`RunFolderError` unless ``overwrite``.
    """
    from datamodules import build_datamodule

    config = run.config()
    prepare_run_folder(run, overwrite, writer=rank_zero_only.rank == 0)
    out_dir, task, encoder, seed, fold = (
        Path(run.out_dir),
        run.task,
        run.encoder,
        run.seed,
        run.fold,
    )
    done = out_dir / "metrics.json"
    if done.exists():
        return json.loads(done.read_text())
    pl.seed_everything(seed, workers=True)
    extra = {"fold": fold} if fold is not None else {}
    datamodule = build_datamodule(
        task,
        data_dir=Path(run.data_dir),
        embeddings=Path(run.embeddings) if run.embeddings else None,
        batch_size=config["batch_size"],
        seed=seed,
        **extra,
    )
    datamodule.setup("fit")
    spec = datamodule.task
    module = build_module(
        config,
        encoder,
        datamodule.embedding_matrix,
        spec.kind,
        spec.num_classes,
        spec.labels,
        datamodule.length_stats,
    )
    module.vocabulary = Vocabulary(itos=datamodule.vocab.itos, lowercase=datamodule.lowercase)
    measured, trainer = fit_datamodule(datamodule, module, config, out_dir, callbacks)
    metrics = {"task": task, "encoder": encoder, "seed": seed, "fold": fold, **measured}
    metrics = {
        k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in metrics.items()
    }
    metrics["config"] = config
    metrics["versions"] = {
        **environment(trainer.strategy.root_device),
        "lightning": lightning.__version__,
        "torchmetrics": torchmetrics.__version__,
        "world_size": str(trainer.world_size),
    }
    if trainer.is_global_zero:
        _write_json(
            out_dir / "manifest.json",
            {
                "kind": "fit",
                "command": shlex.join(["sanbench", *sys.argv[1:]]),
                "task": task,
                "encoder": encoder,
                "seed": seed,
                "fold": fold,
                "finished": datetime.now(UTC).isoformat(timespec="seconds"),
                "files": {
                    "config": "fit_config.yaml",
                    "metrics": "metrics.json",
                    "curve": "curve.csv",
                    "logs": "logs/version_*/metrics.csv",
                    "checkpoints": "checkpoints",
                    "predictions": PREDICTIONS_FILE,
                },
            },
        )
        _write_json(done, metrics)
    return metrics
