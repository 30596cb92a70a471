"""The suite's grid: tasks x encoders x (seeds or CV folds), and its split into shards.

Protocol (Bi-BloSAN Sec. 4.4, MTSA Sec. 4.3): CR, MPQA, SUBJ and MR have no standard split
and are scored by 10-fold cross validation (fold 0..9, one seed); every other task is the
mean over ``seeds`` runs with seeds 0..seeds-1.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from datamodules.tasks import get_task, list_tasks, task_name
from reports.contracts.fit_folder import replicate_label
from reports.contracts.suite_results import run_folder

# the tasks scored by cross validation, and their fold count, as their TaskSpecs declare
CV_TASKS = frozenset(name for name in list_tasks() if get_task(name).cv_folds)
(CV_FOLDS,) = {get_task(name).cv_folds for name in CV_TASKS}
CV_SEED = 0


@dataclass(frozen=True, order=True)
class RunSpec:
    """One training run of the grid: a task, an encoder and either a seed or a CV fold."""

    task: str
    encoder: str
    seed: int
    fold: int | None = None

    @property
    def replicate(self) -> str:
        """``fold3`` for a CV fold, ``seed3`` otherwise (the run's folder name)."""
        return replicate_label(self.seed, self.fold)

    @property
    def key(self) -> tuple[str, str, str]:
        """The run's identity in the results files (a task file's task by its ``name``)."""
        return (task_name(self.task), self.encoder, self.replicate)

    def run_dir(self, out_dir: Path) -> Path:
        return run_folder(out_dir, task_name(self.task), self.encoder, self.replicate)


MAX_RUNS = 10_000  # a suite's runs at most: the papers' whole grid is ~400 (8 tasks x 7 x 5-10)


def grid_size(tasks: Iterable[str], encoders: Iterable[str], seeds: int, folds: int) -> int:
    """How many runs :func:`expand_grid` would make, counted without making them."""
    encoder_count = len(dict.fromkeys(encoders))
    return sum(
        encoder_count * (min(folds, get_task(task).cv_folds) or seeds)
        for task in dict.fromkeys(tasks)
    )


def grid_problems(
    tasks: Sequence[str], encoders: Sequence[str], seeds: int, folds: int
) -> list[str]:
    """One line when the grid asks for more than :data:`MAX_RUNS` runs, saying how many."""
    runs = grid_size(tasks, encoders, seeds, folds)
    if runs <= MAX_RUNS:
        return []
    return [
        f"the grid asks for {runs:,} runs ({len(set(tasks))} task(s) x {len(set(encoders))} "
        f"encoder(s) x {seeds:,} seed(s), or up to {folds} fold(s) for a CV task); a suite "
        f"runs at most {MAX_RUNS:,} (the papers' whole grid is ~400): ask for fewer seeds, "
        "tasks or encoders"
    ]


def expand_grid(
    tasks: Iterable[str], encoders: Iterable[str], seeds: int, folds: int = CV_FOLDS
) -> list[RunSpec]:
    """Every run of the grid in the order given: task by task, encoder by encoder, then seeds
    (or folds) in order; a name listed twice runs once.

    ``folds`` keeps the first ``folds`` folds of the 10-fold CV (smoke runs); the folds are
    still those of a 10-fold split.
    """
    if seeds < 1:
        raise ValueError(f"--seeds must be at least 1, got {seeds}")
    if not 1 <= folds <= CV_FOLDS:
        raise ValueError(f"--folds must be between 1 and {CV_FOLDS}, got {folds}")
    runs: dict[RunSpec, None] = {}  # ordered, without repeats
    for task in tasks:
        task_folds = min(folds, get_task(task).cv_folds)  # a task file's own fold count too
        for encoder in encoders:
            if task_folds:
                runs.update(
                    dict.fromkeys(RunSpec(task, encoder, CV_SEED, f) for f in range(task_folds))
                )
            else:
                runs.update(dict.fromkeys(RunSpec(task, encoder, seed) for seed in range(seeds)))
    return list(runs)


def grid_order(run: RunSpec) -> tuple[str, str, int, int]:
    """The sorted grid's order, which the shards split (independent of the order given)."""
    return (run.task, run.encoder, run.seed, run.fold or 0)


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``: ``--shard K/N``."""

    index: int = 1
    count: int = 1

    def __post_init__(self) -> None:
        if not 1 <= self.index <= self.count:
            raise ValueError(f"shard {self.index}/{self.count}: need 1 <= K <= N")

    @classmethod
    def parse(cls, text: str) -> Shard:
        match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
        if not match:
            raise ValueError(f"--shard {text}: expected K/N such as 2/4 (1-based)")
        return cls(int(match.group(1)), int(match.group(2)))

    @property
    def label(self) -> str:
        return f"{self.index}-of-{self.count}"

    def select(self, runs: Sequence[RunSpec]) -> list[RunSpec]:
        """Round-robin over the sorted grid: every run lands in exactly one shard; returned in
        the order of ``runs`` (the order the user gave).

        The grid is sorted first, so which shard a run lands in does not depend on the order
        in which tasks and encoders were listed; each task's runs spread evenly over the shards.
        """
        mine = set(sorted(runs, key=grid_order)[self.index - 1 :: self.count])
        return [run for run in runs if run in mine]
