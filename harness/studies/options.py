"""``StudyOptions``: one ``sanbench tune`` study, its trials' budget and fit options, its storage
and its workers; :meth:`StudyOptions.context` is what the study code reads."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from harness.command_parser import (
    COMMA_LIST,
    batch_size_problems,
    choice_problems,
    integer_problems,
)
from harness.errors import InputError
from harness.launch import LaunchOptions
from harness.profiling.grid import parse_lengths
from harness.studies.plans import BLOCK_LENGTH_MEMORY, STUDIES, TuneContext
from harness.studies.storage import HEARTBEAT_S, MAX_RETRY, storage_problems
from harness.training.settings.fit_overrides import (
    Budget,
    DataOptions,
    FitSections,
    clash_problems,
    fit_overrides,
    with_section_paths,
)
from harness.training.settings.fit_run import grid_key_problems

# block-length-memory's attentions (encoders.layers.tanh_attention.IMPLS, which imports torch)
ATTENTION_IMPLS = ("naive", "chunked")

MAX_TRIALS = 10_000  # a study's trials at most, as a suite's runs (suite.grid.MAX_RUNS)


def shown_task(task: str | None) -> str | None:
    """A task file's ``name`` (its file's stem while the file cannot be read), else ``task``."""
    from datamodules.task_file import TaskFileError, is_task_file

    if task is None or not is_task_file(task):
        return task
    from datamodules.tasks import task_name

    try:
        return task_name(task)
    except TaskFileError:
        return Path(task).stem


# the options only block-length-memory reads
BLOCK_LENGTH_MEMORY_OPTIONS = ("lengths", "batch_size", "dim", "device", "attention_impl")


@dataclass(frozen=True)
class StudyOptions:
    """An optuna study over the harness (block length, dropout, a search space, memory).

    The fit sections (``--model.*``, ``--trainer.*``, ``--data.*``) go to every trial and into
    the best configuration; the budget (``--max-steps``, ``--max-epochs``, ``--limit-*``) is
    the trials' only: the best configuration trains the winner with the task's own."""

    study: str | None = None
    """the study (required): block-length, block-length-memory, dropout or search"""
    space: Path | None = None
    """search space YAML of --study search (docs/studies.md)"""
    task: str | None = None
    """benchmark task (training studies)"""
    encoder: str | None = None
    """encoder (block-length: bi_blosan or an ablation)"""
    trials: int | None = None
    """how many finished trials, over all workers"""
    storage: str | None = None
    """SQLAlchemy URL shared by every worker of the study: sqlite:///PATH or
    postgresql://user:pass@host/db (pip install 'sanbench[postgres]'); default: OUT/optuna.db,
    so a new --out is a new study and the same --out continues it"""
    study_name: str | None = None
    """optuna study name (default from study/task/encoder)"""
    out: Path | None = None
    """study folder (default runs/studies/NAME)"""
    seed: int = 0
    """training seed of every trial"""
    prune: bool = True
    """single-objective studies: prune unpromising trials (--no-prune: never)"""
    max_retry: int = MAX_RETRY
    """re-runs of a dead worker's trial"""
    heartbeat: int = HEARTBEAT_S
    """RDB heartbeat seconds"""
    outputs_only: bool = False
    """only rewrite the outputs from the storage"""
    lengths: str = field(default=",".join(map(str, TuneContext.lengths)), metadata=COMMA_LIST)
    """block-length-memory: sequence lengths n (in a --config file also a list, [32, 64])"""
    batch_size: int = TuneContext.batch_size
    """block-length-memory: sentences per batch"""
    dim: int = TuneContext.dim
    """block-length-memory: encoder width"""
    device: str = TuneContext.device
    """block-length-memory: device"""
    attention_impl: str = TuneContext.attention_impl
    """block-length-memory: the tanh attention inside each block: naive (the [B, d, r, r]
    tensors Bi-BloSAN's Appendix A counts) or chunked (sanbench's exact tiled attention, the
    encoders' default)"""
    inputs: DataOptions = field(default_factory=DataOptions)
    budget: Budget = field(default_factory=Budget)
    fit: FitSections = field(default_factory=FitSections)
    launch: LaunchOptions = field(default_factory=LaunchOptions)

    @classmethod
    def not_printed(cls, values: Any) -> list[str]:
        """The options of block-length-memory at their defaults, left out of another study's
        printed config (``--print_config``, the copy beside its results): that study does not
        read them (one given is kept: the study's settings record it)."""
        if values.get("study") in (None, BLOCK_LENGTH_MEMORY):
            return []
        defaults = {f.name: f.default for f in fields(cls)}
        return [key for key in BLOCK_LENGTH_MEMORY_OPTIONS if values.get(key) == defaults[key]]

    def __post_init__(self) -> None:
        object.__setattr__(self, "inputs", with_section_paths(self.inputs, self.fit))
        problems = choice_problems("--study", self.study, STUDIES)
        problems += clash_problems(self.inputs, None, self.fit)  # the budget: the trials'
        task = ("--task", [self.task] if self.task else None)
        problems += grid_key_problems(
            self.fit.dotted(), task, ("--encoder", [self.encoder] if self.encoder else None)
        )
        problems += choice_problems("--attention-impl", self.attention_impl, ATTENTION_IMPLS)
        if self.study is None:
            problems.append("--study is required: one of " + ", ".join(STUDIES))
        least = {"trials": 1, "max_retry": 0, "heartbeat": 1, "batch_size": 1, "dim": 1}
        problems += integer_problems(self, least)
        problems += batch_size_problems("--batch-size", self.batch_size)
        if isinstance(self.trials, int) and self.trials > MAX_TRIALS:
            problems.append(
                f"--trials {self.trials}: a study runs at most {MAX_TRIALS:,} trials (each "
                "trial is a fit): ask for fewer"
            )
        # --storage, else $SANBENCH_STORAGE: the run's check connects to nothing, --print_config's
        problems += storage_problems(self.storage)  # too; the driver is the run's (tune.py)
        try:
            self.length_values  # noqa: B018 (parsed here, once: the study reads these values)
        except ValueError as error:
            problems.append(str(error))
        if problems:
            raise InputError("\n".join(problems))

    @property
    def name(self) -> str:
        """The optuna study's name: ``--study-name``, or one made of the study's settings."""
        if self.study_name:
            return self.study_name
        if self.study == BLOCK_LENGTH_MEMORY:
            lengths = "-".join(str(n) for n in self.length_values)
            impl = "" if self.attention_impl == "naive" else f"-{self.attention_impl}"
            return (
                f"block-length-memory{impl}-{self.device}-b{self.batch_size}-d{self.dim}-n{lengths}"
            )
        return f"{self.study}-{shown_task(self.task)}-{self.encoder}"

    @functools.cached_property
    def length_values(self) -> tuple[int, ...]:
        """``--lengths`` parsed (sorted, distinct), once: by the check in ``__post_init__``."""
        return tuple(parse_lengths(self.lengths))

    @functools.cached_property
    def space_read(self) -> tuple[dict[str, Any], list[str]]:
        """``--space``'s good entries and its problems (:func:`read_space`), read once."""
        from harness.studies.space import read_space

        return read_space(self.space) if self.space is not None else ({}, [])

    @property
    def space_problems(self) -> list[str]:
        """``--space``'s problems, said beside every other (none without ``--space``)."""
        return self.space_read[1]

    def context(self) -> TuneContext:
        """What the study code reads: the fit overrides apart from the trials' budget."""
        assert self.study is not None
        return TuneContext(
            study=self.study,
            task=self.task,
            encoder=self.encoder,
            data_dir=self.inputs.data_dir,
            embeddings=self.inputs.embeddings,
            out=self.out or Path("runs") / "studies" / self.name,
            seed=self.seed,
            overrides=fit_overrides(self.inputs, None, self.fit),
            budget=self.budget.trainer_keys(),
            space=self.space_read[0],
            space_file=self.space,
            prune=self.prune,
            lengths=self.length_values,
            batch_size=self.batch_size,
            dim=self.dim,
            device=self.device,
            attention_impl=self.attention_impl,
        )
