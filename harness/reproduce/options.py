"""``ReproduceOptions``: which preset, where, how parallel, and the fit options it changes."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from harness.command_parser import choice_problems, integer_problems
from harness.errors import InputError
from harness.reproduce.preset import PRESETS, THREADS_PER_RUN, WORKERS
from harness.training.shared_options import DataOptions, FitSections


@dataclass(frozen=True)
class ReproduceOptions:
    """Bi-BloSAN Table 6 / MTSA Table 5 on this machine: a preset's runs, resumable."""

    out: Path = Path("runs/reproduce")
    """results folder"""
    preset: str = "cpu"
    """cpu: a third of the papers' widths, 3 folds/seeds; paper: full width, 10 folds, 5 seeds"""
    workers: int = WORKERS
    """parallel runs"""
    threads: int = THREADS_PER_RUN
    """intra-op threads per run"""
    tables_only: bool = False
    """only rebuild the tables from the results"""
    inputs: DataOptions = field(default_factory=DataOptions)
    fit: FitSections = field(default_factory=FitSections)

    def __post_init__(self) -> None:
        problems = choice_problems("--preset", self.preset, sorted(PRESETS))
        problems += integer_problems(self, {"workers": 1, "threads": 1})
        if problems:
            raise InputError("\n".join(problems))
