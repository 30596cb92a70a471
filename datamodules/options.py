"""``StatsOptions``: what ``sanbench data stats`` reads, checked before any data file is."""

from __future__ import annotations

import codecs
from dataclasses import dataclass, field
from pathlib import Path

from datamodules.readers.layouts import LAYOUTS
from datamodules.tasks import get_task


@dataclass(frozen=True)
class StatsOptions:
    """Per-split counts, labels, drops, lengths and vector coverage of one task's files."""

    action: str = field(metadata={"positional": True, "choices": ("stats",)})
    """stats: per-split statistics of a task's files"""
    task: str
    """the task (its name or an alias)"""
    data_dir: Path
    """data folder"""
    embeddings: Path | None = None
    """GloVe/word2vec text file"""
    layout: str | None = None
    """skip layout detection: one of the layouts of docs/data.md"""
    lowercase: bool = False
    """lowercase before lookup"""
    cache_dir: Path | None = None
    """parsed-vectors cache folder"""
    encoding: str | None = None
    """decode every data file with this encoding (default: UTF-8; MR, SUBJ and TREC train as
    released by their authors are read as Windows-1252, with a warning)"""
    json: bool = False
    """print JSON instead of a table"""

    def __post_init__(self) -> None:
        """Every problem at once (``ValueError``, one line each): exit status 2."""
        problems = []
        try:
            object.__setattr__(self, "task", get_task(self.task).name)
        except KeyError as error:
            problems.append(f"--task {self.task}: {error.args[0]}")
        if not Path(self.data_dir).expanduser().is_dir():
            problems.append(f"--data-dir {self.data_dir}: no such folder")
        if self.embeddings is not None and not Path(self.embeddings).expanduser().is_file():
            problems.append(f"--embeddings {self.embeddings}: no such file")
        if self.layout is not None and self.layout not in LAYOUTS:
            problems.append(
                f"--layout {self.layout}: invalid choice; expected one of {', '.join(LAYOUTS)}"
            )
        if self.encoding is not None:
            try:
                object.__setattr__(self, "encoding", codecs.lookup(self.encoding).name)
            except LookupError:
                problems.append(
                    f"--encoding {self.encoding}: unknown encoding; e.g. utf-8, cp1252, latin-1"
                )
        if problems:
            raise ValueError("\n".join(problems))
