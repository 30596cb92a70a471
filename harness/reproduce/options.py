"""``ReproduceOptions``: which preset, which part of its grid, where, how it is launched, and
the fit options it changes."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from harness.command_parser import (
    CLASS_PATH_OPTION,
    COMMA_LIST,
    as_typed,
    choice_problems,
    integer_problems,
    names,
)
from harness.errors import FilesError, FilesProblem, InputError
from harness.launch import LaunchOptions
from harness.outdir import out_folder_problems
from harness.reproduce.preset import ENCODERS, PRESETS, TASKS, THREADS_PER_RUN, WORKERS, Preset
from harness.training.settings.fit_overrides import (
    DataOptions,
    FitSections,
    clash_problems,
    with_section_paths,
)
from harness.training.settings.fit_run import grid_key_problems, typed_list

# a part of the grid given with --tables-only, which would tabulate every run in --out anyway
NOT_WITH_TABLES_ONLY = (
    "not taken with --tables-only, which rebuilds the tables of every run in --out; leave it out"
)

# the advice of an --out that --tables-only cannot read: not "a new or empty folder" (refused:
# it holds no runs), but the folder of a reproduction
NEW_FOLDER_ADVICE = ". Give a new or empty folder"
TABLES_ONLY_ADVICE = (
    ". Give the --out of a reproduction: --tables-only rebuilds the tables of the runs it holds"
)


def tables_only_out_problems(out: Path) -> list[str]:
    """What stops ``--tables-only`` from writing into ``--out out``, each a
    :class:`FilesProblem`, with the advice that fits it (a folder ``sanbench reproduce``
    made), not a new or empty folder's, which it refuses too ("run first")."""
    lines = out_folder_problems(out, "reproduce")
    return [
        FilesProblem(line.partition(NEW_FOLDER_ADVICE)[0] + TABLES_ONLY_ADVICE)
        if NEW_FOLDER_ADVICE in line
        else FilesProblem(line)
        for line in lines
    ]


def grid_names(text: str, option: str) -> list[str]:
    """The names of the list ``text`` of ``option``, a task's alias as the task it stands for
    (``sst5``: sst1), as every command reads it (:func:`datamodules.tasks.canonical_name`)."""
    from datamodules.tasks import canonical_name

    listed = names(text, option)
    return [canonical_name(name) or name for name in listed] if option == "--tasks" else listed


@dataclass(frozen=True)
class ReproduceOptions:
    """Bi-BloSAN Table 6 / MTSA Table 5 on this machine: a preset's runs, resumable."""

    out: Path = Path("runs/reproduce")
    """results folder"""
    preset: str = "cpu"
    """cpu: a third of the papers' widths, 3 folds/seeds; paper: full width, 10 folds, 5 seeds"""
    tasks: str = field(default=",".join(TASKS), metadata=COMMA_LIST)
    """comma-separated tasks (in a --config file also a list): run this part of the preset's
    grid"""
    encoders: str = field(default=",".join(ENCODERS), metadata=COMMA_LIST)
    """comma-separated encoders (in a --config file also a list): run this part of the
    preset's grid"""
    threads: int = THREADS_PER_RUN
    """intra-op threads per run"""
    tables_only: bool = False
    """only rebuild the tables from the results, of every run in --out and the preset its
    manifest records (not with the runs' options: --tasks, --encoders, --preset, --threads,
    --launcher, --jobs, --data-dir, --embeddings, --max-length, --encoding, --trainer.*,
    --optimizer and fit's other sections)"""
    inputs: DataOptions = field(default_factory=DataOptions)
    fit: FitSections = field(default_factory=FitSections)
    launch: LaunchOptions = field(default_factory=LaunchOptions)

    def __post_init__(self) -> None:
        object.__setattr__(self, "inputs", with_section_paths(self.inputs, self.fit))
        problems = self.fit.problems()  # a trainer budget that trains nothing (--trainer.*)
        if not self.tables_only:  # else not taken, whatever it names (one line)
            problems += choice_problems("--preset", self.preset, sorted(PRESETS))
            problems += integer_problems(self, {"threads": 1})
            problems += clash_problems(self.inputs, None, self.fit)
            tasks, encoders = (
                ("--tasks", typed_list(self.tasks)),
                ("--encoders", typed_list(self.encoders)),
            )
            problems += grid_key_problems(self.fit.dotted(), tasks, encoders, "--preset")
        for text, option, known in (
            (self.tasks, "--tasks", TASKS),
            (self.encoders, "--encoders", ENCODERS),
        ):
            try:
                given = grid_names(text, option)
            except InputError as error:
                problems.append(str(error))
                continue
            unknown = [name for name in given if name not in known]
            named = as_typed(option.removeprefix("--"), text)[0]  # a config file's key so
            for name in unknown:  # the reproduction's grid: the papers' tables
                problems += choice_problems(named, name, known)
            if self.tables_only and not unknown and set(given) != set(known):
                problems.append(f"{named} {text}: {NOT_WITH_TABLES_ONLY}")
        if self.tables_only:
            problems += self._not_with_tables_only()
        if problems:
            raise InputError("\n".join(problems))  # --out's: said beside them
        if self.tables_only and (out_lines := tables_only_out_problems(self.out)):
            raise FilesError("\n".join(out_lines))  # alone: no pointer to the help

    def _not_with_tables_only(self) -> list[str]:
        """A line for each run option given with --tables-only (``--preset paper``, ``--jobs
        3``, ``--trainer.max_steps 7``, ``--optimizer sgd.yaml``): the tables are rebuilt from
        the runs in --out, of the preset its manifest records, so they would do nothing."""
        given: list[tuple[str, object]] = [
            (name, getattr(self, name))
            for name in ("preset", "threads")
            if getattr(self, name) != getattr(ReproduceOptions, name)
        ]
        given += [
            (f.name, getattr(self.launch, f.name))
            for f in dataclasses.fields(LaunchOptions)
            if getattr(self.launch, f.name) != getattr(LaunchOptions(), f.name)
        ]
        given += [
            (f.name, getattr(self.inputs, f.name))
            for f in dataclasses.fields(DataOptions)
            if getattr(self.inputs, f.name) is not None  # --data-dir, --embeddings, ...
        ]
        for section in dataclasses.fields(FitSections):
            entries = getattr(self.fit, section.name) or {}
            if section.metadata == CLASS_PATH_OPTION and entries.get("class_path"):
                given.append((section.name, entries["class_path"]))
                continue
            if section.metadata == CLASS_PATH_OPTION:  # its arguments alone, each as typed
                arguments = entries.get("init_args") or {}
                entries = {k: v for k, v in entries.items() if k != "init_args"} | arguments
            given += [(f"{section.name}.{key}", value) for key, value in entries.items()]
        lines = []
        for key, value in given:
            option, text = as_typed(key, value)
            lines.append(f"{option} {text}: {NOT_WITH_TABLES_ONLY}")
        return lines

    @property
    def part(self) -> Preset:
        """The preset's grid cut to ``--tasks`` x ``--encoders`` (in the preset's order)."""
        tasks, encoders = grid_names(self.tasks, "--tasks"), names(self.encoders, "--encoders")
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
