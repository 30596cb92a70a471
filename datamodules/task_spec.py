"""What a task is: its kind, classes and splits (:class:`TaskSpec`), and for a user's task
where its files and columns are (:class:`TableSource`). Imported by the readers and the task
registry alike (it imports neither)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, get_args

# a task's kind: one sentence, a sentence pair with a class, a pair with a relatedness score
Kind = Literal["single", "pair", "relatedness"]
KINDS: tuple[Kind, ...] = get_args(Kind)
# the benchmark whose training settings (harness/training/configs/<like>.yaml) a task file of
# each kind borrows unless it names its own ``like``
LIKE: dict[Kind, str] = {"single": "sst2", "pair": "snli", "relatedness": "sick"}
# the splits a task is trained, validated and tested on
SPLITS = ("train", "dev", "test")


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
class Release:
    """A built-in task's files in one packaging (``datamodules.readers.layouts``): each source
    split's file names, under ``folder`` of the layout's root (SentEval's
    ``data/downstream/<folder>``), and how a line of them reads where a layout writes tasks
    differently (SentEval: ``lines``). A reader finds a task by this, never by its name."""

    layout: str
    files: tuple[tuple[str, tuple[str, ...]], ...]  # (source split, its file names)
    folder: str = ""
    lines: str = ""


@dataclass(frozen=True)
class TaskSpec:
    """One benchmark task.

    ``dev_source`` / ``test_source`` name the file split used for validation / test;
    ``None`` for dev means "carved from train (seeded, stratified)", ``None`` for test
    means "stratified ``cv_folds``-fold cross-validation over the single split ``all``".
    ``title`` is the name the papers' tables print (``SST-1``). ``releases`` say where a
    benchmark's files are in each packaging it is published in; ``table`` is set for a user's
    task (a task file, :mod:`datamodules.task_file`): its files and columns.
    """

    name: str
    kind: Kind
    num_classes: int
    labels: tuple[str, ...] = ()
    source_splits: tuple[str, ...] = SPLITS
    dev_source: str | None = "dev"
    test_source: str | None = "test"
    cv_folds: int = 0
    aliases: tuple[str, ...] = field(default=())
    title: str = ""
    releases: tuple[Release, ...] = field(default=(), compare=False, repr=False)
    table: TableSource | None = field(default=None, compare=False, repr=False)

    def release(self, layout: str) -> Release | None:
        """This task's files in ``layout``, None when that packaging lacks the task."""
        return next((r for r in self.releases if r.layout == layout), None)

    def release_files(self, layout: str, root: Path) -> dict[str, tuple[Path, ...]] | None:
        """Each source split's files in ``layout`` under ``root`` (they may not exist): the
        release's folder when ``root`` holds it, else ``root`` itself (the task's own folder
        given); None when that packaging lacks the task."""
        release = self.release(layout)
        if release is None:
            return None
        folder = root / release.folder
        base = folder if release.folder and folder.is_dir() else root
        return {split: tuple(base / name for name in names) for split, names in release.files}
