"""``StatsOptions``: what ``sanbench data stats`` reads, checked before any data file is."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from datamodules.readers.layouts import LAYOUTS
from datamodules.task_file import is_task_file
from datamodules.tasks import canonical_name
from datamodules.text import known_encoding
from harness.errors import refusal
from harness.training.settings.fit_overrides import path_problems
from harness.training.settings.task_configs import task_option_problems

ACTIONS = ("stats",)  # the words after ``sanbench data``; messages name the command with one


@dataclass(frozen=True)
class StatsOptions:
    """Per-split counts, labels, drops, lengths and vector coverage of one task's files."""

    action: str = field(metadata={"positional": True, "choices": ACTIONS})
    """stats: per-split statistics of a task's files"""
    task: str
    """the task: its name, an alias, or a task file (NAME.yaml, docs/data.md "Your own data")"""
    data_dir: Path | None = None
    """data folder (not for a task file, which names its files)"""
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
        problems = task_option_problems("--task", [self.task])  # fit's rule and words
        if not problems and not is_task_file(self.task):
            object.__setattr__(self, "task", canonical_name(self.task))
        if self.data_dir is None and not is_task_file(self.task) and not problems:
            problems.append(f"--data-dir is required for a benchmark task ({self.task})")
        elif self.data_dir is not None:
            problems += path_problems("--data-dir", Path(self.data_dir).expanduser(), folder=True)
        if self.embeddings is not None:
            problems += path_problems("--embeddings", Path(self.embeddings).expanduser(), False)
        if self.layout is not None and self.layout not in LAYOUTS:
            problems.append(
                f"--layout {self.layout}: invalid choice; expected one of {', '.join(LAYOUTS)}"
            )
        object.__setattr__(self, "encoding", known_encoding(self.encoding, problems))
        if problems:
            raise refusal(problems)  # no pointer to the help for the files' alone
