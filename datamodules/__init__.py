"""Benchmark files -> LightningDataModules of token ids and masks.

from datamodules import build_datamodule, list_tasks
dm = build_datamodule("trec", data_dir=path, embeddings=glove_or_None, batch_size=50, seed=0)
dm.setup("fit"); batch = next(iter(dm.train_dataloader()))  # tokens, mask, label

The names below are imported on first use, so that ``datamodules.tasks`` or
``datamodules.errors`` (what argument checking needs) load without torch and Lightning.
"""

from __future__ import annotations

import importlib
from typing import Any

_HOME = {
    "BenchmarkDataModule": "datamodules.datamodule",
    "build_datamodule": "datamodules.datamodule",
    "DataFormatError": "datamodules.errors",
    "MissingSplitError": "datamodules.errors",
    "TaskSpec": "datamodules.tasks",
    "get_task": "datamodules.tasks",
    "list_tasks": "datamodules.tasks",
}
__all__ = sorted(_HOME)


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module 'datamodules' has no attribute {name!r}")
    return getattr(importlib.import_module(_HOME[name]), name)
