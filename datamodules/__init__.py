"""Benchmark files -> LightningDataModules of token ids and masks.

from datamodules import build_datamodule, list_tasks
dm = build_datamodule("trec", data_dir=path, embeddings=glove_or_None, batch_size=50, seed=0)
dm.setup("fit"); batch = next(iter(dm.train_dataloader()))  # tokens, mask, label
"""

from datamodules.datamodule import BenchmarkDataModule, build_datamodule
from datamodules.errors import DataFormatError, MissingSplitError
from datamodules.tasks import TaskSpec, get_task, list_tasks

__all__ = [
    "BenchmarkDataModule",
    "DataFormatError",
    "MissingSplitError",
    "TaskSpec",
    "build_datamodule",
    "get_task",
    "list_tasks",
]
