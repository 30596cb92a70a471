"""``StatsOptions``: what ``sanbench data stats`` reads, checked before any data file is."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from datamodules.errors import nearest
from datamodules.paths import expanded
from datamodules.readers.layouts import LAYOUTS
from datamodules.task_file import is_task_file
from datamodules.tasks import canonical_name
from datamodules.text import known_encoding
from harness.command_actions import COMMAND_ACTIONS
from harness.errors import FilesProblem, refusal
from harness.training.settings.fit_overrides import path_problems
from harness.training.settings.task_configs import task_option_problems, task_stand_in

ACTIONS = COMMAND_ACTIONS["data"]  # the words after ``sanbench data``


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
            problems += path_problems("--data-dir", expanded(self.data_dir), folder=True)
        if self.embeddings is not None:
            problems += path_problems("--embeddings", expanded(self.embeddings), False)
        problems += layout_problems(self.layout)
        object.__setattr__(self, "encoding", known_encoding(self.encoding, problems))
        if problems:
            raise refusal(problems)  # no pointer to the help for the files' alone


def layout_problems(layout: str | None) -> list[str]:
    """``[]`` for a known layout (or unset), else the problem with the nearest layout, also
    a typed start of one (``kimm``: kim2014), which a whole name's likeness misses."""
    if layout is None or layout in LAYOUTS:
        return []
    starts: dict[str, str] = {}
    for name in LAYOUTS:
        starts.setdefault(name[: len(layout)], name)
    close = nearest(layout, LAYOUTS) or starts.get(nearest(layout, starts) or "")
    hint = f" (did you mean {close}?)" if close else ""
    return [f"--layout {layout}: expected one of {', '.join(LAYOUTS)}{hint}"]


def task_files_beside(values: dict[str, Any]) -> list[str]:
    """A ``--data-dir`` holding none of the task's files (``--data-dir glove``), in the words
    the data's read says it, reading no data: said beside the other problems (``--encoding
    utf-99``, a misspelt ``--task``: its nearest stands in), not once they are fixed (``build``'s
    ``beside``)."""
    from datamodules.readers.layouts import data_dir_problem
    from datamodules.tasks import get_task

    task, data_dir, layout = (values.get(key) for key in ("task", "data_dir", "layout"))
    if task is None or data_dir is None or not expanded(data_dir).is_dir():
        return []  # no folder, or a missing one: said by the options
    if task_option_problems("--task", [task]):  # a misspelt name: said itself, and the
        task = task_stand_in(task)  # folder judged as of its nearest (``treec``: trec)
    if task is None:  # no near name, or a task file's problem: said itself
        return []
    try:
        spec = get_task(task)
    except (LookupError, ValueError, OSError):  # a misspelt name or task file: said itself
        return []
    known = layout if layout in LAYOUTS else None  # an unknown layout: said itself
    problem = data_dir_problem([spec], expanded(data_dir), known)
    return [FilesProblem(problem)] if problem else []


def files_beside(values: dict[str, Any]) -> list[str]:
    """:func:`task_files_beside` and each bad line of the ``--embeddings`` file, led by its
    option as fit's check says it (``--embeddings v.txt: line 2: expected ...``): said beside
    the other problems (a config file's unknown key) and beside a folder's, none lost."""
    given = values.get("embeddings")
    if given is None or not Path(given).is_file():  # its path's check says it; numpy loads
        return task_files_beside(values)  # with the vectors' reader: not for a refusal without
    from datamodules.vectors import vectors_problems

    vectors = vectors_problems(values["embeddings"])
    return task_files_beside(values) + [FilesProblem(line) for line in vectors]
