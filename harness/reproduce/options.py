"""``ReproduceOptions``: which preset, which part of its grid, where, how it is launched, and
the fit options it changes."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from harness.command_parser import as_typed, choice_problems, integer_problems, names
from harness.errors import InputError
from harness.launch import LaunchOptions
from harness.reproduce.preset import ENCODERS, PRESETS, TASKS, THREADS_PER_RUN, WORKERS, Preset
from harness.training.settings.fit_overrides import DataOptions, FitSections

# a part of the grid given with --tables-only, which would tabulate every run in --out anyway
NOT_WITH_TABLES_ONLY = (
    "not taken with --tables-only, which rebuilds the tables of every run in --out; leave it out"
)


@dataclass(frozen=True)
class ReproduceOptions:
    """Bi-BloSAN Table 6 / MTSA Table 5 on this machine: a preset's runs, resumable."""

    out: Path = Path("runs/reproduce")
    """results folder"""
    preset: str = "cpu"
    """cpu: a third of the papers' widths, 3 folds/seeds; paper: full width, 10 folds, 5 seeds"""
    tasks: str = ",".join(TASKS)
    """comma-separated tasks: run this part of the preset's grid"""
    encoders: str = ",".join(ENCODERS)
    """comma-separated encoders: run this part of the preset's grid"""
    threads: int = THREADS_PER_RUN
    """intra-op threads per run"""
    tables_only: bool = False
    """only rebuild the tables from the results, of every run in --out (not with --tasks or
    --encoders: they choose runs to train)"""
    inputs: DataOptions = field(default_factory=DataOptions)
    fit: FitSections = field(default_factory=FitSections)
    launch: LaunchOptions = field(default_factory=LaunchOptions)

    def __post_init__(self) -> None:
        problems = self.fit.problems()  # a trainer budget that trains nothing (--trainer.*)
        problems += choice_problems("--preset", self.preset, sorted(PRESETS))
        problems += integer_problems(self, {"threads": 1})
        for text, option, known in (
            (self.tasks, "--tasks", TASKS),
            (self.encoders, "--encoders", ENCODERS),
        ):
            try:
                unknown = [name for name in names(text, option) if name not in known]
            except InputError as error:
                problems.append(str(error))
                continue
            named = as_typed(option.removeprefix("--"), text)[0]  # a config file's key so
            for name in unknown:  # the reproduction's grid: the papers' tables
                problems += choice_problems(named, name, known)
            if self.tables_only and not unknown and set(names(text, option)) != set(known):
                problems.append(f"{named} {text}: {NOT_WITH_TABLES_ONLY}")
        if problems:
            raise InputError("\n".join(problems))

    @property
    def part(self) -> Preset:
        """The preset's grid cut to ``--tasks`` x ``--encoders`` (in the preset's order)."""
        tasks, encoders = names(self.tasks, "--tasks"), names(self.encoders, "--encoders")
        preset = PRESETS[self.preset]
        return dataclasses.replace(
            preset,
            tasks=tuple(task for task in preset.tasks if task in tasks),
            encoders=tuple(encoder for encoder in preset.encoders if encoder in encoders),
        )

    @property
    def launcher(self) -> LaunchOptions:
        """``--launcher`` and ``--jobs``, by default ``WORKERS`` forked processes."""
        return dataclasses.replace(
            self.launch,
            launcher=self.launch.launcher or "process",
            jobs=self.launch.jobs or WORKERS,
        )
