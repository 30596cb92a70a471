"""The ``sanbench data`` command: its options' parser and its run function."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import TYPE_CHECKING

from jsonargparse import Namespace

from harness.command_parser import CommandParser, build, said_as_written
from harness.console import console
from harness.data.options import StatsOptions, files_beside, task_files_beside
from harness.errors import refusal

if TYPE_CHECKING:
    from pathlib import Path

    from datamodules.vectors import Vectors

__all__ = ["add_arguments", "data"]


def add_arguments(parser: CommandParser) -> None:
    parser.add_options(StatsOptions)


def data(config: Namespace) -> int:
    """sanbench data stats: per-split counts, labels, drops, lengths and vector coverage.

        sanbench data stats --task trec --data-dir ../shared/datasets
        sanbench data stats --task sst2 --data-dir D --embeddings glove.txt --json
        sanbench data stats --task examples/own-data/reviews.yaml

    Arguments are checked (task, folders, files, encoding) before numpy, torch or any data file
    is loaded; bad data files: one line per problem and exit status 2 (sanbench --debug
    shows the traceback).
    """
    # bad or missing files raise (sanbench reports them); the options are checked before numpy
    # or torch is imported
    options = build(StatsOptions, config, beside=files_beside)
    if task_files_beside(asdict(options)):  # alone too, the vectors' lines beside: led by
        raise refusal(said_as_written(files_beside(asdict(options))))  # their options
    from datamodules.stats import dataset_stats
    from datamodules.stats_table import stats_table
    from datamodules.tasks import get_task
    from reports.numbers import MISSING, MISSING_LEGEND

    task = get_task(options.task)
    vectors = _vectors(options.embeddings, options.cache_dir) if options.embeddings else None
    layout, root, splits = dataset_stats(
        task, options.data_dir, options.layout, vectors, options.lowercase, options.encoding
    )
    if options.json:
        report = {"task": task.name, "layout": layout, "folder": str(root)}
        print(json.dumps(report | {"splits": [asdict(s) for s in splits]}, indent=2))
        return 0
    title = f"{task.name} ({task.kind}, {task.num_classes} classes) — {layout} layout in {root}"
    table = stats_table(title, splits, MISSING, MISSING_LEGEND)
    console().print(table)  # in a pipe or a file, rows never wrapped
    return 0


def _vectors(path: Path, cache: Path | None) -> Vectors:
    """The vectors of ``path``; its bad lines refused led by the option or key that named the
    file, as written (``--config c.yaml: embeddings v.txt: line 2: ...``), as fit's check
    says them, not by the path read (``/abs/v.txt:2: ...``)."""
    from datamodules.errors import DataFormatError
    from datamodules.vectors import load_vectors
    from harness.training.read_refusal import read_refusal

    try:
        return load_vectors(path, cache)
    except DataFormatError as error:
        raise refusal(read_refusal(error, path)) from error
