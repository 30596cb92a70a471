"""``run_fit``: train, validate and test one (task, encoder, seed, fold) and write its folder.

Folder layout::

    out_dir/metrics.json        every final metric, efficiency columns, resolved config, versions
    out_dir/manifest.json       {"kind": "fit", ...}
    out_dir/logs/version_N/     Lightning CSV logs, one folder per (re)start
    out_dir/curve.csv           every validation with ``train_seconds`` (Bi-BloSAN Fig. 5)
    out_dir/test_predictions.csv  index, length(s), label, prediction per test example
    out_dir/checkpoints/        last.ckpt (resume) and the best-on-dev checkpoint
"""

from __future__ import annotations

import copy
import csv
import json
import math
import shlex
import sys
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

import lightning
import lightning.pytorch as pl
import torch
import torchmetrics
import yaml
from lightning.pytorch.callbacks import EarlyStopping, ModelCheckpoint, WeightAveraging
from lightning.pytorch.loggers import CSVLogger
from torch.optim.swa_utils import get_ema_avg_fn
from torch.utils.data import DataLoader

from encoders import build_encoder, builder_accepts
from encoders.layers.mblosa import block_length
from harness.environment import environment
from harness.studies.appendix_a import expected_max_length
from harness.training.efficiency import EfficiencyCallback, time_inference
from harness.training.module import TaskModule
from harness.training.predictions import FILE_NAME as PREDICTIONS_FILE
from harness.training.predictions import write_test_predictions

CONFIG_PACKAGE = "harness.training.configs"
MODULE_KEYS = (
    "optimizer",
    "lr",
    "weight_decay",
    "dropout",
    "head_hidden",
    "activation",
    "finetune_embeddings",
    "adadelta_rho",
    "eps",
)
TRAINER_KEYS = (
    "max_epochs",
    "max_steps",
    "limit_train_batches",
    "limit_val_batches",
    "limit_test_batches",
    "val_check_interval",
    "accelerator",
    "devices",
    "num_nodes",
    "strategy",
    "precision",
    "deterministic",
    "gradient_clip_val",
)
INFERENCE_BATCH = 128  # MTSA Table 1: dev inference time with batch size 128


def list_task_configs() -> list[str]:
    """Tasks that ship a YAML config."""
    files = resources.files(CONFIG_PACKAGE).iterdir()
    return sorted(f.name.removesuffix(".yaml") for f in files if f.name.endswith(".yaml"))


def load_task_config(task: str) -> dict[str, Any]:
    """The task's configuration (``harness/training/configs/<task>.yaml``) as a dict."""
    path = resources.files(CONFIG_PACKAGE) / f"{task}.yaml"
    if not path.is_file():
        raise KeyError(f"no training config for task {task!r}; known: {list_task_configs()}")
    return yaml.safe_load(path.read_text())


def resolve_config(
    task: str, encoder: str, overrides: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Task config, then the task's per-encoder values (e.g. DiSAN's batch 16), then overrides."""
    config = copy.deepcopy(load_task_config(task))
    per_encoder = config.pop("encoder_overrides", {}) or {}
    for source, values in (("encoder_overrides", per_encoder.get(encoder, {})), ("", overrides)):
        for key, value in (values or {}).items():
            if key not in config:
                where = f"{source}[{encoder}] of {task}.yaml" if source else "overrides"
                raise KeyError(f"{where}: unknown config key {key!r}; known keys: {sorted(config)}")
            config[key] = value
    return config


def _monitor(kind: str) -> str:
    return "val_pearson" if kind == "relatedness" else "val_acc"


def _callbacks(config: dict[str, Any], out_dir: Path, monitor: str) -> list[pl.Callback]:
    callbacks: list[pl.Callback] = [
        EfficiencyCallback(),
        ModelCheckpoint(
            dirpath=out_dir / "checkpoints",
            filename="best-{epoch}-{step}",
            monitor=monitor,
            mode="max",
            save_top_k=1,
            save_last=True,
        ),
    ]
    if config["early_stopping_patience"]:
        callbacks.append(
            EarlyStopping(
                monitor=monitor,
                mode="max",
                patience=config["early_stopping_patience"],
                # check after each validation only: a --max-steps budget shorter than an epoch
                # ends training before any validation has produced the metric
                check_on_train_epoch_end=False,
            )
        )
    if config["ema_decay"]:
        callbacks.append(WeightAveraging(avg_fn=get_ema_avg_fn(config["ema_decay"])))
    return callbacks


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


def write_curve(out_dir: Path) -> Path:
    """Merge the validation rows of every logs/version_N/metrics.csv into ``curve.csv``.

    One row per validation (epoch, step, train_seconds, val_*): the dev-metric-vs-training-time
    curve of Bi-BloSAN Fig. 5, continuous across resumes (a later attempt wins per step).
    """
    rows: dict[int, dict[str, str]] = {}
    logs = sorted((out_dir / "logs").glob("version_*/metrics.csv"), key=_version_number)
    for log in logs:
        with log.open(newline="") as handle:
            for row in csv.DictReader(handle):
                if row.get("train_seconds"):
                    rows[int(row["step"])] = row
    columns = ["epoch", "step", "train_seconds"]
    columns += sorted({k for r in rows.values() for k in r if k.startswith("val_")})
    path = out_dir / "curve.csv"
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows[step] for step in sorted(rows))
    return path


def _version_number(path: Path) -> int:
    return int(path.parent.name.removeprefix("version_"))


def build_module(
    config: dict[str, Any],
    encoder: str,
    embedding_matrix: torch.Tensor,
    kind: str,
    classes: int,
    length_stats: dict[str, float] | None = None,
) -> TaskModule:
    """The LightningModule for ``encoder``; ``hidden_dim: null`` keeps the builder's own size.

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
    enc = build_encoder(
        encoder, input_dim=int(embedding_matrix.shape[1]), dropout=config["dropout"], **options
    )
    return TaskModule(enc, embedding_matrix, kind, classes, **{k: config[k] for k in MODULE_KEYS})


def fit_datamodule(
    datamodule: pl.LightningDataModule,
    module: TaskModule,
    config: dict[str, Any],
    out_dir: Path,
    extra_callbacks: list[pl.Callback] | None = None,
) -> tuple[dict[str, Any], pl.Trainer]:
    """Fit (resuming from ``last.ckpt``), then validate and test the best-on-dev weights.

    ``extra_callbacks`` join the trainer's own (e.g. optuna's pruning callback).
    """
    kind = datamodule.task.kind
    monitor = _monitor(kind)
    callbacks = _callbacks(config, out_dir, monitor) + list(extra_callbacks or [])
    trainer = pl.Trainer(
        default_root_dir=out_dir,
        logger=CSVLogger(out_dir, name="logs"),  # logs/version_N: one folder per (re)start
        callbacks=callbacks,
        enable_progress_bar=config["progress_bar"],
        enable_model_summary=False,
        num_sanity_val_steps=0,
        # the datamodule shards its own bucketed training batches and evaluates unsharded
        use_distributed_sampler=False,
        log_every_n_steps=config["log_every_n_steps"],
        **{k: config[k] for k in TRAINER_KEYS},
    )
    last = out_dir / "checkpoints" / "last.ckpt"
    trainer.fit(module, datamodule=datamodule, ckpt_path=last if last.exists() else None)
    train = _renamed(trainer.callback_metrics, "train_", "train_")
    write_curve(out_dir)
    # read before validate/test: restoring the best checkpoint also restores callback state
    efficiency = next(c for c in callbacks if isinstance(c, EfficiencyCallback)).summary()
    epochs, steps = trainer.current_epoch, trainer.global_step
    checkpoint = next(c for c in callbacks if isinstance(c, ModelCheckpoint))
    best = checkpoint.best_model_path or None
    dev = trainer.validate(module, datamodule=datamodule, ckpt_path=best, verbose=False)[0]
    test = trainer.test(module, datamodule=datamodule, ckpt_path=best, verbose=False)[0]
    if trainer.is_global_zero:  # the best-on-dev weights, as tested (DiSAN accuracy vs length)
        write_test_predictions(
            module,
            datamodule.test_dataloader(),
            trainer.strategy.root_device,
            out_dir / PREDICTIONS_FILE,
        )
    val_loader = datamodule.val_dataloader()
    infer_loader = DataLoader(
        val_loader.dataset, batch_size=INFERENCE_BATCH, collate_fn=val_loader.collate_fn
    )
    metrics = {
        "params": module.parameter_count(),
        **efficiency,
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
    task: str,
    encoder: str,
    data_dir: Path,
    embeddings: Path | None,
    out_dir: Path,
    seed: int = 0,
    fold: int | None = None,
    overrides: dict[str, Any] | None = None,
    callbacks: list[pl.Callback] | None = None,
) -> dict[str, Any]:
    """Train, validate and test one model; write ``out_dir/metrics.json`` and return it.

    ``callbacks`` are added to the trainer's own (optuna pruning in ``sanbench tune``).

    A folder with ``metrics.json`` is finished and its metrics are returned unchanged; a folder
    with only ``checkpoints/last.ckpt`` resumes from it.
    """
    from datamodules import build_datamodule

    out_dir = Path(out_dir)
    done = out_dir / "metrics.json"
    if done.exists():
        return json.loads(done.read_text())
    out_dir.mkdir(parents=True, exist_ok=True)
    config = resolve_config(task, encoder, overrides)
    pl.seed_everything(seed, workers=True)
    extra = {"fold": fold} if fold is not None else {}
    datamodule = build_datamodule(
        task,
        data_dir=Path(data_dir),
        embeddings=Path(embeddings) if embeddings else None,
        batch_size=config["batch_size"],
        seed=seed,
        **extra,
    )
    datamodule.setup("fit")
    spec = datamodule.task
    module = build_module(
        config,
        encoder,
        torch.as_tensor(datamodule.embedding_matrix),
        spec.kind,
        spec.num_classes,
        datamodule.length_stats,
    )
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
                    "metrics": "metrics.json",
                    "curve": "curve.csv",
                    "logs": "logs/version_*/metrics.csv",
                    "checkpoints": "checkpoints",
                },
            },
        )
        _write_json(done, metrics)
    return metrics
