"""``SuiteOptions``: one suite's grid, files, budget, fit options and launcher."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from datamodules.paths import expanded
from datamodules.task_file import is_task_file
from harness.command_parser import COMMA_LIST, integer_problems, names
from harness.errors import InputError
from harness.launch import LaunchOptions
from harness.suite.grid import CV_FOLDS, Shard
from harness.training.settings.fit_overrides import (
    Budget,
    DataOptions,
    FitSections,
    clash_problems,
    with_section_paths,
)
from harness.training.settings.fit_run import grid_key_problems, typed_list

DEFAULT_TASKS = "cr,mpqa,subj,trec,sst1,sst2,sick,snli"
DEFAULT_ENCODERS = "disan,bi_blosan,mtsa,mpsan,bilstm,multi_cnn,multi_head"


def task_list(text: str, option: str) -> list[str]:
    """:func:`names` of ``text``, but commas that lie inside the path of an existing file keep
    that path whole (``--tasks 'trec,my, data/mine.yaml'``: trec and the task file), the
    longest such path first; else inside a path in an existing folder (``own,data/reviewz.yaml``
    in ``own,data/``: one missing file, not a task ``own``)."""
    pieces = text.split(",")
    kept: list[str] = []
    start = 0
    while start < len(pieces):
        spans = [",".join(pieces[start:end]).strip() for end in range(len(pieces), start, -1)]
        span = next((span for span in spans if expanded(span).is_file()), None)
        span = span or next((span for span in spans[:-1] if _path_in_a_folder(span)), spans[-1])
        kept.append(span)
        start += span.count(",") + 1
    if not any(kept):
        names(text, option)  # raises: what a list of names is
    return [name for name in kept if name]


def _path_in_a_folder(text: str) -> bool:
    """Whether ``text``, which holds a comma, reads as a file's path in a folder that exists (a
    folder whose name holds a comma among them): it names the folder (a /), and its file name
    holds no comma unless it ends as a task file's (``own,data/reviewz.yaml,sst2,own,data``
    is no path in ``own,data``: its name ``reviewz.yaml,sst2,own,data`` is a list's rest)."""
    path = expanded(text)
    named = "," not in path.name or is_task_file(path.name)
    return "/" in text and "," in text and named and path.parent.is_dir()


@dataclass(frozen=True)
class SuiteOptions:
    """A grid of tasks x encoders x seeds (or CV folds), run into ``out`` and aggregated."""

    out: Path
    """results folder (shared by shards)"""
    tasks: str = field(default=DEFAULT_TASKS, metadata=COMMA_LIST)
    """comma-separated tasks (a task file whose path holds a comma is taken whole; in a
    --config file also a list, [trec, mr])"""
    encoders: str = field(default=DEFAULT_ENCODERS, metadata=COMMA_LIST)
    """comma-separated encoders (in a --config file also a list)"""
    seeds: int = 5
    """how many runs (seeds 0..N-1) per non-CV task"""
    folds: int = CV_FOLDS
    """run only the first K of the 10 cross-validation folds of the CV tasks (CR, MPQA, SUBJ,
    MR; smoke runs)"""
    shard: str = "1/1"
    """K/N: run the K-th of N parts of the grid"""
    aggregate_only: bool = False
    """only rebuild the tables from the results"""
    inputs: DataOptions = field(default_factory=DataOptions)
    budget: Budget = field(default_factory=Budget)
    fit: FitSections = field(default_factory=FitSections)
    launch: LaunchOptions = field(default_factory=LaunchOptions)

    def __post_init__(self) -> None:
        object.__setattr__(self, "inputs", with_section_paths(self.inputs, self.fit))
        problems = integer_problems(self, {"seeds": 1, "folds": 1})
        problems += clash_problems(self.inputs, self.budget, self.fit)
        tasks, encoders = (
            ("--tasks", typed_list(self.tasks)),
            ("--encoders", typed_list(self.encoders)),
        )
        problems += grid_key_problems(self.fit.dotted(), tasks, encoders, "--folds")
        for listed, option in ((task_list, "--tasks"), (names, "--encoders")):
            try:
                listed(getattr(self, option.removeprefix("--")), option)
            except InputError as error:
                problems.append(str(error))
        try:
            if self.shard_of_grid.count != 1 and not self.launch.in_process:
                problems.append("--shard and --launcher exclude each other")
        except ValueError as error:
            problems.append(str(error))
        if problems:
            raise InputError("\n".join(problems))

    @property
    def task_names(self) -> list[str]:
        """The tasks, a task file by its absolute path (every job of the suite finds it)."""
        from datamodules.tasks import recorded_task

        return [recorded_task(task) for task in task_list(self.tasks, "--tasks")]

    @property
    def typed_task_names(self) -> list[str]:
        """The tasks as typed (a task file by the path given): what their problems name."""
        return task_list(self.tasks, "--tasks")

    @property
    def encoder_names(self) -> list[str]:
        return names(self.encoders, "--encoders")

    @property
    def shard_of_grid(self) -> Shard:
        return Shard.parse(self.shard)
