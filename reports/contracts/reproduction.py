"""A reproduction's tables (``sanbench reproduce --out``), under ``reproduction/``::

cells.csv        task x encoder: ours mean/std/n, paper mean/std, gap, ranks
taus.csv         per task: its title, Kendall's τ (ours vs paper ranking), protocol
pairs.csv        per task and encoder pair: paired test, paper spread check
encoders.csv     per encoder: mean/min/max gap over tasks
runs.csv         the raw per-run rows the tables come from
reproduction.md  everything above as markdown, with the footnote and facts
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from reports.contracts.atomic import write_text_atomic

if TYPE_CHECKING:  # pandas loads only when a reader runs (commands' arguments stay light)
    import pandas as pd

FOLDER = "reproduction"
CELLS = "cells.csv"
TAUS = "taus.csv"
PAIRS = "pairs.csv"
ENCODERS = "encoders.csv"
RUNS = "runs.csv"
MARKDOWN = "reproduction.md"
FILES = (CELLS, TAUS, PAIRS, ENCODERS, RUNS, MARKDOWN)
RUN_COLUMNS = ["task", "encoder", "replicate", "seed", "fold", "test_acc", "dev_acc", "epochs"]
RUN_COLUMNS += ["steps", "train_time_per_epoch_s", "train_epochs_timed", "wall_s"]
RUN_COLUMNS += ["device_name", "torch", "commit"]


def table_path(out_dir: Path, name: str) -> Path:
    return Path(out_dir) / FOLDER / name


def write_tables(out_dir: Path, texts: dict[str, str]) -> list[Path]:
    """Each of :data:`FILES` from its text, atomically; returns the paths."""
    unknown = sorted(set(texts) - set(FILES))
    if unknown:
        raise ValueError(f"not reproduction files: {unknown}")
    return [write_text_atomic(table_path(out_dir, name), text) for name, text in texts.items()]


def read_table(out_dir: Path, name: str) -> pd.DataFrame:
    """One table; ``FileNotFoundError`` naming the command that rebuilds it."""
    import pandas as pd

    path = table_path(out_dir, name)
    if not path.is_file() or not path.read_bytes().strip():
        raise FileNotFoundError(
            f"{path} not found: rebuild it with "
            f"`{shlex.join(['sanbench', 'reproduce', '--out', str(out_dir), '--tables-only'])}`"
        )
    return pd.read_csv(path)
