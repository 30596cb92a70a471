"""``sanbench data stats``: per-split counts, labels, drops, lengths and vector coverage."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

from rich.console import Console
from rich.table import Table

from datamodules.errors import DataFormatError
from datamodules.readers.layouts import LAYOUTS
from datamodules.stats import SplitStats, dataset_stats
from datamodules.tasks import get_task, list_tasks
from datamodules.vectors import load_vectors


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="data_command", required=True, metavar="ACTION")
    stats = sub.add_parser("stats", help="per-split statistics of a task's files")
    stats.add_argument("--task", required=True, help=f"one of {', '.join(list_tasks())}")
    stats.add_argument("--data-dir", required=True, type=Path, help="folder with the files")
    stats.add_argument("--embeddings", type=Path, help="GloVe/word2vec text file (coverage)")
    stats.add_argument("--layout", choices=list(LAYOUTS), help="skip layout detection")
    stats.add_argument("--lowercase", action="store_true", help="lowercase before lookup")
    stats.add_argument("--cache-dir", type=Path, help="parsed-vectors cache folder")
    stats.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{name}: {count}" for name, count in counts.items()) or "-"


def _table(title: str, splits: list[SplitStats]) -> Table:
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
    """Print the statistics; bad or missing files: the error message and exit status 2."""
    try:
        task = get_task(args.task)
        vectors = load_vectors(args.embeddings, args.cache_dir) if args.embeddings else None
        found = dataset_stats(task, args.data_dir, args.layout, vectors, args.lowercase)
    except (DataFormatError, FileNotFoundError, KeyError) as error:
        print(f"sanbench data stats: {error}", file=sys.stderr)
        return 2
    layout, root, splits = found
    if args.json:
        report = {"task": task.name, "layout": layout, "folder": str(root)}
        print(json.dumps(report | {"splits": [asdict(s) for s in splits]}, indent=2))
        return 0
    title = f"{task.name} ({task.kind}, {task.num_classes} classes) — {layout} layout in {root}"
    Console(width=160).print(_table(title, splits))
    return 0
