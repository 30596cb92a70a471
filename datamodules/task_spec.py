"""What a task is: its kind, classes and splits (:class:`TaskSpec`), and for a user's task
where its files and columns are (:class:`TableSource`). Imported by the readers and the task
registry alike (it imports neither)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

Kind = Literal["single", "pair", "relatedness"]


@dataclass(frozen=True)
class TableSource:
    """Where a user's task reads its examples: files (by source split) and columns."""

    task_file: Path
    format: str
    text: str
    text_pair: str | None
    label: str
    files: tuple[tuple[str, str], ...]  # (source split, path relative to the task file)
    like: str

    @property
    def folder(self) -> Path:
        return self.task_file.parent

    def path(self, split: str) -> Path:
        return self.folder / dict(self.files)[split]


@dataclass(frozen=True)
class TaskSpec:
    """One benchmark task.

    ``dev_source`` / ``test_source`` name the file split used for validation / test;
    ``None`` for dev means "carved from train (seeded, stratified)", ``None`` for test
    means "stratified ``cv_folds``-fold cross-validation over the single split ``all``".
    ``title`` is the name the papers' tables print (``SST-1``). ``table`` is set for a user's
    task (a task file, :mod:`datamodules.task_file`): its files and columns.
    """

    name: str
    kind: Kind
    num_classes: int
    labels: tuple[str, ...] = ()
    source_splits: tuple[str, ...] = ("train", "dev", "test")
    dev_source: str | None = "dev"
    test_source: str | None = "test"
    cv_folds: int = 0
    aliases: tuple[str, ...] = field(default=())
    title: str = ""
    table: TableSource | None = field(default=None, compare=False, repr=False)
