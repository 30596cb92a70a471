"""Fit configurations: the packaged per-task YAMLs, their resolution, and validation.

Light on purpose (yaml and the standard library only): ``sanbench fit --help`` and argument
errors must not wait for torch or Lightning.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

CONFIG_PACKAGE = "harness.training.configs"
# the keys of a fit config file that say *what* to train; every other key is a task-config value
RUN_KEYS = ("task", "encoder", "data_dir", "embeddings", "seed", "fold")
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
POSITIVE_KEYS = ("batch_size", "head_hidden", "hidden_dim", "checkpoint_every_n_steps")
LOGGERS = ("csv", "tensorboard")


class ConfigError(ValueError):
    """A fit configuration that cannot run; the message says what to change."""


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


def check_config(config: dict[str, Any]) -> None:
    """Reject values that would only fail after the data has been loaded."""
    problems = [
        f"{key} must be a positive integer, got {config[key]!r}"
        for key in POSITIVE_KEYS
        if config.get(key) is not None
        and (isinstance(config[key], bool) or not isinstance(config[key], int) or config[key] < 1)
    ]
    minutes = config.get("checkpoint_every_minutes")
    if minutes is not None and (not isinstance(minutes, int | float) or minutes <= 0):
        problems.append(f"checkpoint_every_minutes must be a positive number, got {minutes!r}")
    if config.get("logger") not in LOGGERS:
        problems.append(f"logger must be one of {LOGGERS}, got {config.get('logger')!r}")
    if problems:
        raise ConfigError("; ".join(problems))


@dataclass(frozen=True)
class FitRun:
    """One fit: what to train (task, encoder, data, seed, fold), where, and the task-config
    values that differ from ``configs/<task>.yaml``. ``fit``, every run of a ``suite`` and
    every trial of ``tune`` is one of these."""

    task: str
    encoder: str
    data_dir: Path
    out_dir: Path
    embeddings: Path | None = None
    seed: int = 0
    fold: int | None = None
    overrides: dict[str, Any] = field(default_factory=dict)

    def config(self) -> dict[str, Any]:
        """The resolved task config (task YAML, per-encoder values, overrides), checked."""
        config = resolve_config(self.task, self.encoder, self.overrides)
        check_config(config)
        return config

    def to_yaml(self) -> str:
        """A file that ``sanbench fit --config FILE --out DIR`` runs as is."""
        head = {
            "task": self.task,
            "encoder": self.encoder,
            "data_dir": str(self.data_dir),
            "embeddings": None if self.embeddings is None else str(self.embeddings),
            "seed": self.seed,
            "fold": self.fold,
        }
        return yaml.safe_dump(head | self.config(), sort_keys=False, default_flow_style=False)
