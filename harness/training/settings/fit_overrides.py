"""Options every command that trains runs takes (suite, tune, reproduce), spelled alike.

The data files and their reading, the training budget, and ``--model.*``/``--trainer.*``/
``--data.*`` fit options as ``sanbench fit`` takes them; together they are the fit overrides of
every run (:func:`fit_overrides`). The checks that need no file run when an object is made.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import yaml

from datamodules.text import known_encoding
from harness.command_parser import (
    CLASS_KEYS,
    CLASS_PATH_OPTION,
    TRAINER_CLASS_LISTS,
    as_typed,
    integer_problems,
    typed_now,
)
from harness.errors import FilesProblem, InputError, UsageError


@dataclass(frozen=True)
class DataOptions:
    """Where the benchmark files are and how they are read."""

    data_dir: Path | None = None
    """folder holding the benchmark files (e.g. ../shared/datasets)"""
    embeddings: Path | None = None
    """GloVe text file (random vectors if unset; the papers start from GloVe)"""
    encoding: str | None = None
    """decode every data file with this encoding (default: UTF-8; MR, SUBJ and TREC train as
    released by their authors are read as Windows-1252, with a warning)"""
    max_length: int | None = None
    """refuse sentences longer than this many tokens, naming their lines (default 512; the
    longest real benchmark sentence has 120)"""

    def __post_init__(self) -> None:
        problems = []
        object.__setattr__(self, "encoding", known_encoding(self.encoding, problems))
        if self.max_length is not None and self.max_length < 1:
            option, text = as_typed("max_length", self.max_length)
            problems.append(f"{option} {text}: expected a positive number of tokens")
        if problems:
            raise InputError("\n".join(problems))

    @classmethod
    def paths_given(cls, namespace: Any) -> DataOptions:
        """The paths of a parsed ``namespace`` alone (its encoding and length left out): the
        stand-in judged beside a refused ``--max-length`` or ``--encoding``, whose part is then
        not built, so that no false "--data-dir is required" is said and a typed
        ``--embeddings`` is."""
        paths = {key: getattr(namespace, key, None) for key in ("data_dir", "embeddings")}
        return cls(**{key: Path(value) for key, value in paths.items() if value is not None})

    stand_in = paths_given  # what build judges the whole's check with when this part is refused

    def file_problems(self, needed_by: str, folder_needed: bool = True) -> list[str]:
        """What is wrong with the folder and the vectors file; ``needed_by`` says when
        ``--data-dir`` may be left out (also when not ``folder_needed``: task files only)."""
        problems = []
        if self.data_dir is None and folder_needed:
            where = 'the benchmarks\' folder: docs/data.md "Layouts"'
            problems.append(f"--data-dir is required {needed_by} ({where})")
        elif self.data_dir is not None:
            problems += path_problems(given_as("data_dir"), self.data_dir, folder=True)
        if self.embeddings is not None:
            problems += path_problems(given_as("embeddings"), self.embeddings, folder=False)
        return problems


def given_as(name: str) -> str:
    """The option that gave the path ``name``: fit's data section's (``--data.data_dir``, a
    config file's ``data: {data_dir: ...}``) when only it was typed (:func:`with_section_paths`),
    else its own flag (``--data-dir``)."""
    typed = typed_now()
    if name not in typed and f"data.{name}" in typed:
        return f"--data.{name}"
    return f"--{name.replace('_', '-')}"


def path_problems(option: str, path: Path, folder: bool) -> list[str]:
    """``option``'s ``path`` when it is not the ``folder`` (or file) expected: missing, or the
    other kind: a :class:`FilesProblem`, which alone points to no help."""
    if path.is_dir() if folder else path.is_file():
        return []
    wanted, other = ("folder", "file") if folder else ("file", "folder")
    if path.exists():
        return [FilesProblem(f"{option} {path}: is a {other}, expected a {wanted}")]
    return [FilesProblem(f"{option} {path}: no such {wanted}")]


# Lightning's trainer values that train nothing (``Trainer.fit`` returns before its first
# step): the fit would then validate and test the untrained model and record its scores as a
# result. What each key expects instead.
UNTRAINED_EXPECTED = {
    "max_steps": "a positive number of steps",
    "max_epochs": "a positive number of epochs",
    "limit_train_batches": "a positive number of batches or a fraction in (0, 1]",
    "max_time": "a positive duration (DD:HH:MM:SS, or e.g. {minutes: 30})",
}


def duration(value: Any) -> timedelta | None:
    """``max_time`` as Lightning's ``Timer`` reads it (``DD:HH:MM:SS``, a mapping of
    ``timedelta`` keywords, a ``timedelta``); None when it is none of these (Lightning says why)."""
    if isinstance(value, timedelta):
        return value
    if isinstance(value, Mapping):
        try:
            return timedelta(**value)
        except TypeError:
            return None
    parts = str(value).split(":")
    if len(parts) == 4 and all(part.isdigit() for part in parts):
        days, hours, minutes, seconds = map(int, parts)
        return timedelta(days=days, hours=hours, minutes=minutes, seconds=seconds)
    return None


def _nothing(key: str, value: Any) -> bool:
    """Whether the trainer value ``key: value`` leaves no training step (bools are not counts)."""
    if value is None or isinstance(value, bool) or key not in UNTRAINED_EXPECTED:
        return False
    if key == "max_time":
        length = duration(value)
        return length is not None and length <= timedelta(0)
    return isinstance(value, int | float) and value == 0


# budget values that mean "no limit" to Lightning (the loop runs until another limit)
NO_LIMIT = {"max_steps": -1, "max_epochs": -1}


def _refused(key: str, value: Any) -> bool:
    """Whether Lightning refuses the budget value ``key: value`` when it builds the trainer
    (after the data is read): a negative count other than -1 (no limit)."""
    if key not in UNTRAINED_EXPECTED or key == "max_time" or isinstance(value, bool):
        return False
    return isinstance(value, int | float) and value < 0 and value != NO_LIMIT.get(key)


# Lightning's evaluation limits whose 0 (or 0.0) runs no pass: what a fit then lacks (its
# validation or test after training returned nothing: "list index out of range", exit 2, after
# the training, its run folder left)
NO_PASS = {
    "limit_val_batches": "runs no validation: no dev score and no best checkpoint",
    "limit_test_batches": "runs no test: no test score",
}


def _no_pass(key: str, value: Any) -> bool:
    """Whether the trainer value ``key: value`` runs no validation or no test (:data:`NO_PASS`)."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return key in NO_PASS and number and value == 0


def budget_problems(
    trainer: Mapping[str, Any], spelled: Callable[[str, Any], tuple[str, str]]
) -> list[str]:
    """One line per value of ``trainer`` (Lightning's ``Trainer`` keys) that trains nothing
    (``max_steps 0``, ``max_epochs 0``, ``limit_train_batches 0`` or ``0.0``, ``max_time`` of
    no time), that runs no validation or no test (``limit_val_batches 0``,
    ``limit_test_batches 0.0``: :data:`NO_PASS`) or that Lightning would refuse only after the
    data is read (``max_steps -5``). ``spelled(key, value)`` is the option and its value as the
    user gave them (``--trainer.max_steps``, ``0``; ``--config z.yaml: trainer.max_time``,
    ``{seconds: 0}``)."""
    problems = []
    for key, value in trainer.items():
        option, text = spelled(key, value)
        if _no_pass(key, value):
            problems.append(
                f"{option} {text}: {NO_PASS[key]}; drop it or give a fraction > 0 or a number "
                "of batches"
            )
        elif _nothing(key, value):
            problems.append(
                f"{option} {text}: trains nothing (the untrained model would be tested "
                f"and its scores recorded as a result); expected {UNTRAINED_EXPECTED[key]}"
            )
        elif _refused(key, value):
            no_limit = " (or -1: no limit)" if key in NO_LIMIT else ""
            problems.append(f"{option} {text}: expected {UNTRAINED_EXPECTED[key]}{no_limit}")
    return problems


@dataclass(frozen=True)
class Budget:
    """Each run's training budget, for every run (the task's own when unset). Its values are
    judged by :meth:`problems`, beside every other problem of the command (a budget that trains
    nothing was refused alone, before them)."""

    max_steps: int | None = None
    """training steps per run (trainer.max_steps)"""
    max_epochs: int | None = None
    """epochs per run (trainer.max_epochs)"""
    limit_train_batches: int | float | None = None
    """training batches per epoch: an integer counts batches, a number with a point in (0, 1]
    is a fraction of the epoch"""
    limit_val_batches: int | float | None = None
    """validation batches per epoch, as --limit-train-batches"""

    def problems(self) -> list[str]:
        """One line per value that trains nothing or validates nothing (in fit's words:
        :func:`budget_problems`) or is no count: every value is judged."""
        nothing = {
            name: value
            for name, value in vars(self).items()
            if (_nothing(name, value) and name in UNTRAINED_EXPECTED) or _no_pass(name, value)
        }
        problems = budget_problems(nothing, as_typed)
        least = {name: 1 for name in ("max_steps", "max_epochs") if name not in nothing}
        problems += integer_problems(self, least)
        for name in ("limit_train_batches", "limit_val_batches"):
            value = getattr(self, name)
            if value is None or name in nothing:
                continue
            counts = isinstance(value, int) and value >= 1
            fraction = isinstance(value, float) and 0 < value <= 1
            if not (counts or fraction):
                option, text = as_typed(name, value)
                problems.append(
                    f"{option} {text}: expected a positive number of batches or a fraction in "
                    "(0, 1]"
                )
        return problems

    def trainer_keys(self) -> dict[str, Any]:
        """The budget set, as fit's ``trainer.*`` keys."""
        return {f"trainer.{name}": value for name, value in vars(self).items() if value is not None}


@dataclass(frozen=True)
class FitSections:
    """Fit options every run takes, as ``sanbench fit`` takes them (``--model.dropout 0.3``,
    ``--trainer.gradient_clip_val 5``, ``--data.batch_size 16``); each run's
    ``fit_config.yaml`` holds them. Their keys are checked against fit's before any run."""

    model: dict[str, Any] = field(default_factory=dict)
    """fit's model options for every run (--model.KEY VALUE)"""
    trainer: dict[str, Any] = field(default_factory=dict, metadata=TRAINER_CLASS_LISTS)
    """fit's trainer options for every run (--trainer.KEY VALUE; --trainer.callbacks CLASS
    --trainer.callbacks.KEY VALUE, --trainer.callbacks+=CLASS, as fit takes them)"""
    data: dict[str, Any] = field(default_factory=dict)
    """fit's data options for every run (--data.KEY VALUE)"""
    run: dict[str, Any] = field(default_factory=dict)
    """fit's run options for every run (--run.early_stopping_patience 0, --run.ema_decay ...)"""
    optimizer: dict[str, Any] = field(default_factory=dict, metadata=CLASS_PATH_OPTION)
    """an optimizer by class path for every run, as fit takes it (--optimizer torch.optim.SGD
    --optimizer.lr 0.05); default: each task config's, the papers'"""
    lr_scheduler: dict[str, Any] = field(default_factory=dict, metadata=CLASS_PATH_OPTION)
    """a learning-rate scheduler by class path for every run, as fit takes it (--lr_scheduler
    torch.optim.lr_scheduler.StepLR --lr_scheduler.step_size 1)"""

    def __post_init__(self) -> None:
        for section in SECTIONS:
            entries = getattr(self, section) or {}  # a class section's null: not given
            typed = {key: _yaml_leaves(value) for key, value in entries.items()}
            if section in CLASS_SECTIONS and typed:
                typed = _class_config(typed)
            object.__setattr__(self, section, typed)

    def problems(self) -> list[str]:
        """One line per trainer value that trains nothing (:func:`budget_problems`), judged
        beside every other problem of the command, as :meth:`Budget.problems`."""
        return budget_problems(self.trainer, lambda key, value: as_typed(f"trainer.{key}", value))

    def beside_whole(self, values: Mapping[str, Any]) -> FitSections:
        """These sections as the stand-ins beside a refused whole judge them (``build``'s
        ``beside``): without each key that another of the whole's ``values`` gives another value
        (``data.data_dir`` beside ``--data-dir``), a clash the whole's check says
        (:func:`clash_problems`); the runs' configs are judged with the option's value (either
        folder: it changes no model's check), not left unsaid until the clash is fixed."""
        data, budget = values.get("inputs") or DataOptions(), values.get("budget")
        clashing = _clashing_keys(data, budget, self)
        return replace(
            self,
            **{
                section: {k: v for k, v in getattr(self, section).items() if k not in keys}
                for section, keys in _by_section(clashing).items()
            },
        )

    def dotted(self) -> dict[str, Any]:
        """``{"model.dropout": 0.3, "optimizer.class_path": "torch.optim.SGD", ...}``."""
        return {
            f"{section}.{key}": value
            for section in SECTIONS
            for key, value in getattr(self, section).items()
        }


CLASS_SECTIONS = ("optimizer", "lr_scheduler")  # fit's sections that name a class
SECTIONS = ("model", "trainer", "data", "run", *CLASS_SECTIONS)  # FitSections' fields


def _class_config(given: dict[str, Any]) -> dict[str, Any]:
    """A class option as fit's config holds it: ``{"class_path": ..., "init_args": {...}}``,
    whether its arguments came under ``init_args`` or beside ``class_path``; those beside win
    (flags after a config file's mapping: the parser keeps a flag's argument beside a file's
    ``init_args``, and a later mapping replaces both). Without a class given, none is named
    (fit's check then says which option the arguments need)."""
    beside = {key: value for key, value in given.items() if key not in CLASS_KEYS}
    init_args = (given.get("init_args") or {}) | beside
    named = {"class_path": given["class_path"]} if given.get("class_path") is not None else {}
    return {**named, "init_args": init_args}


def _yaml_leaves(value: Any) -> Any:
    """A mapping's (or list's) string leaves read as YAML, as fit reads
    ``--model.encoder_options.block_len 4`` (or ``--trainer.callbacks.patience 2``): jsonargparse
    types a section's first level (``--model.dropout 0.3``), not deeper."""
    if isinstance(value, dict):
        return {key: _yaml_leaf(leaf) for key, leaf in value.items()}
    if isinstance(value, list):  # a list of classes (``trainer.callbacks``)
        return [_yaml_leaf(leaf) for leaf in value]
    return value


def _yaml_leaf(value: Any) -> Any:
    """A string read as YAML; a mapping's or list's leaves so (:func:`_yaml_leaves`)."""
    return yaml.safe_load(value) if isinstance(value, str) else _yaml_leaves(value)


def budget_problems_of(budget: Budget | None, fit: FitSections) -> list[str]:
    """What is wrong with a command's budget, its own (``--max-steps``) and its trainer keys'
    (``--trainer.max_epochs``): the lines its other problems are said beside."""
    return (budget.problems() if budget is not None else []) + fit.problems()


def without_budget(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """``overrides`` without the trainer keys of a budget (:data:`UNTRAINED_EXPECTED`'s,
    :data:`NO_PASS`'s, the :class:`Budget`'s): each run's config is checked so once the
    budget's problems were said."""
    budget = {f"trainer.{key}" for key in (*UNTRAINED_EXPECTED, *NO_PASS)}
    budget |= {f"trainer.{field.name}" for field in fields(Budget)}
    return {key: value for key, value in overrides.items() if key not in budget}


def fit_typed(typed: Mapping[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """The options of a command that runs fits, as typed (``command_parser.typed_now``), by the
    fit keys they set, for fit's checks of each run's config to quote them so: ``--max-steps``
    sets ``trainer.max_steps``, ``--encoding`` ``data.encoding``, ``--optimizer.lr`` (or a
    config file's ``optimizer: {lr: ...}``) ``optimizer.init_args.lr``; other options are
    not fit's."""
    renamed = {budget.name: f"trainer.{budget.name}" for budget in fields(Budget)}
    renamed |= {name: f"data.{name}" for name in ("encoding", "max_length")}
    keys: dict[str, tuple[str, str]] = {}
    for key, spelled in typed.items():
        section, _, rest = key.partition(".")
        if key in renamed:
            keys[renamed[key]] = spelled
        elif section in CLASS_SECTIONS and rest and rest.partition(".")[0] not in CLASS_KEYS:
            keys[f"{section}.init_args.{rest}"] = spelled
        elif section in SECTIONS and rest:
            keys[key] = spelled
    return keys


def with_section_paths(data: DataOptions, fit: FitSections) -> DataOptions:
    """``data`` with the folder and vectors file of fit's ``data`` section (a config file's
    ``data: {data_dir: D}``, ``--data.data_dir D``) where ``--data-dir`` or ``--embeddings`` is
    not given: that section holds fit's data options, and fit takes its folder so (until
    2026-12-01 the suite said "--data-dir is required" of them)."""
    taken = {
        name: Path(fit.data[name])
        for name in ("data_dir", "embeddings")
        if getattr(data, name) is None and fit.data.get(name) is not None
    }
    return replace(data, **taken) if taken else data


def _same_value(given: Any, section: Any) -> bool:
    """A data option's value and its fit key's the same (a path: the same file, as the kernel
    finds it: ``L/../k`` and ``k``, a link and its target, are one folder)."""
    if isinstance(given, Path):
        return section is not None and given.resolve() == Path(section).resolve()
    return given == section


def fit_overrides(data: DataOptions, budget: Budget | None, fit: FitSections) -> dict[str, Any]:
    """Every run's fit overrides: the sections, then the budget and the data-reading options
    (which are fit keys under other names); one key given two values is refused, the folder and
    vectors file too (each run's own, not overrides: a section's ``data_dir`` beside another
    ``--data-dir`` was every run's until 2026-12-01, the checks judging the flag's)."""
    if clashes := clash_problems(data, budget, fit):
        raise UsageError("\n".join(clashes))  # of the words: the help pointed to
    return {**fit.dotted(), **_named_keys(data, budget)}


def clash_problems(data: DataOptions, budget: Budget | None, fit: FitSections) -> list[str]:
    """One line per fit key given two values, by its own option and by fit's section
    (``--data-dir A and --config c.yaml: data.data_dir B: give one``): judged by the options'
    own check, beside every other problem (until 2026-12-01 a clash hid them, and they it)."""
    given, sections = _given_keys(data, budget), fit.dotted()
    return [
        f"{' '.join(as_typed(key.partition('.')[2], given[key]))} and "  # --max-steps, --data-dir
        f"{' '.join(as_typed(key, sections[key]))}: give one"
        for key in _clashing_keys(data, budget, fit)
    ]


def _clashing_keys(data: DataOptions, budget: Budget | None, fit: FitSections) -> list[str]:
    """The fit keys that the data options or the budget and fit's sections give two values."""
    given, sections = _given_keys(data, budget), fit.dotted()
    return [
        key
        for key in sorted(given.keys() & sections.keys())
        if not _same_value(given[key], sections[key])
    ]


def _by_section(keys: list[str]) -> dict[str, set[str]]:
    """Dotted ``keys`` (``data.data_dir``) by their section: ``{"data": {"data_dir"}}``."""
    sections: dict[str, set[str]] = {}
    for key in keys:
        section, _, leaf = key.partition(".")
        sections.setdefault(section, set()).add(leaf)
    return sections


def _given_keys(data: DataOptions, budget: Budget | None) -> dict[str, Any]:
    """The fit keys the data options and the budget give (:func:`_named_keys`, and the folder
    and vectors file given)."""
    paths = {f"data.{name}": getattr(data, name) for name in ("data_dir", "embeddings")}
    return {**_named_keys(data, budget), **{k: p for k, p in paths.items() if p is not None}}


def _named_keys(data: DataOptions, budget: Budget | None) -> dict[str, Any]:
    """The fit keys the budget and the data-reading options set (``trainer.max_steps``,
    ``data.max_length``)."""
    named = {} if budget is None else budget.trainer_keys()
    for name in ("encoding", "max_length"):
        if getattr(data, name) is not None:
            named[f"data.{name}"] = getattr(data, name)
    return named
