"""``sanbench data stats``: per-split counts, labels, drops, lengths and vector coverage.

Arguments are checked (task, folders, files, encoding) before numpy, torch or any data file
is loaded; bad data files: one line per problem and exit status 2 (``sanbench --debug``
shows the traceback).
"""

from __future__ import annotations

import argparse
import codecs
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from datamodules.readers.layouts import LAYOUTS
from datamodules.tasks import get_task, list_tasks

if TYPE_CHECKING:
    from rich.table import Table

    from datamodules.stats import SplitStats


def task_name(value: str) -> str:
    """An argparse type: a known task name or alias."""
    try:
        return get_task(value).name
    except KeyError as error:
        raise argparse.ArgumentTypeError(error.args[0]) from None


def existing_folder(value: str) -> Path:
    """An argparse type: a folder that exists."""
    path = Path(value).expanduser()
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{value}: no such folder")
    return path


def existing_file(value: str) -> Path:
    """An argparse type: a file that exists."""
    path = Path(value).expanduser()
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"{value}: no such file")
    return path


def encoding_name(value: str) -> str:
    """An argparse type: a text encoding Python knows (utf-8, cp1252, latin-1, ...)."""
    try:
        return codecs.lookup(value).name
    except LookupError:
        raise argparse.ArgumentTypeError(
            f"unknown encoding {value!r}; e.g. utf-8, cp1252, latin-1"
        ) from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "action", choices=["stats"], help="stats: per-split statistics of a task's files"
    )
    stats = parser
    tasks = ", ".join(list_tasks())
    stats.add_argument("--task", required=True, type=task_name, help=f"one of {tasks}")
    stats.add_argument("--data-dir", required=True, type=existing_folder, help="data folder")
    stats.add_argument("--embeddings", type=existing_file, help="GloVe/word2vec text file")
    stats.add_argument("--layout", choices=list(LAYOUTS), help="skip layout detection")
    stats.add_argument("--lowercase", action="store_true", help="lowercase before lookup")
    stats.add_argument("--cache-dir", type=Path, help="parsed-vectors cache folder")
    stats.add_argument(
        "--encoding",
        type=encoding_name,
        help="decode every data file with this encoding (default: UTF-8; MR, SUBJ and TREC "
        "train as released by their authors are read as Windows-1252, with a warning)",
    )
    stats.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{name}: {count}" for name, count in counts.items()) or "-"


def _table(title: str, splits: list[SplitStats]) -> Table:
    from rich.table import Table

    table = Table(title=title)
    columns = ("split", "examples", "labels", "dropped", "empty", "len mean±std")
    for column in (*columns, "p50/p90/p95/p99/max", "coverage"):
        table.add_column(column, justify="left" if column in ("split", "labels") else "right")
    for s in splits:
        if s.missing:
            table.add_row(s.split, "missing", f"looked for {', '.join(s.files)}")
            continue
        n = s.length
        table.add_row(
            s.split,
            str(s.examples),
            _counts(s.labels),
            _counts(s.dropped),
            str(s.empty_sentences),
            f"{n['mean']:.2f}±{n['std']:.2f}",
            "/".join(f"{n[k]:g}" for k in ("p50", "p90", "p95", "p99", "max")),
            "-" if s.coverage is None else f"{s.coverage:.2%}",
        )
    return table


def run(args: argparse.Namespace) -> int:
    """Print the statistics (bad or missing files raise; ``sanbench`` reports them)."""
    from rich.console import Console

    from datamodules.stats import dataset_stats
    from datamodules.vectors import load_vectors

    task = get_task(args.task)
    vectors = load_vectors(args.embeddings, args.cache_dir) if args.embeddings else None
    layout, root, splits = dataset_stats(
        task, args.data_dir, args.layout, vectors, args.lowercase, args.encoding
    )
    if args.json:
        report = {"task": task.name, "layout": layout, "folder": str(root)}
        print(json.dumps(report | {"splits": [asdict(s) for s in splits]}, indent=2))
        return 0
    title = f"{task.name} ({task.kind}, {task.num_classes} classes) — {layout} layout in {root}"
    # a terminal's width there; in a pipe or a file, rows as long as they are (never wrapped)
    wide = {} if sys.stdout.isatty() else {"width": 1_000_000, "soft_wrap": True}
    Console(**wide).print(_table(title, splits))
    return 0
