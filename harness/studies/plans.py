"""What a study is: its objective(s), sampler, pruner and summary, built from the CLI context."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import optuna

from harness.studies.workers import Objective

# the block lengths r both block-length studies search
R_RANGE = (2, 32)
# the studies (``--study``), each planned by its module (``harness.studies.registry``)
BLOCK_LENGTH = "block-length"
BLOCK_LENGTH_MEMORY = "block-length-memory"
DROPOUT = "dropout"
DROPOUT_KEY = "model.dropout"  # the fit key each dropout trial sets, 1 - keep_prob
SEARCH = "search"
STUDIES = (BLOCK_LENGTH, BLOCK_LENGTH_MEMORY, DROPOUT, SEARCH)


@dataclass(frozen=True)
class TuneContext:
    """Options shared by every study (``sanbench tune``)."""

    study: str
    task: str | None
    encoder: str | None
    data_dir: Path | None
    embeddings: Path | None
    out: Path
    seed: int = 0
    overrides: dict[str, Any] = field(default_factory=dict)  # fit overrides: trials, best config
    budget: dict[str, Any] = field(default_factory=dict)  # trials' trainer budget only
    space: dict[str, Any] = field(default_factory=dict)  # --space FILE (harness.studies.space)
    space_file: Path | None = None  # that FILE: its values are named by it
    prune: bool = True
    lengths: tuple[int, ...] = (32, 64, 128)  # block-length-memory
    batch_size: int = 64  # block-length-memory
    dim: int = 300  # block-length-memory
    device: str = "cpu"  # block-length-memory
    attention_impl: str = "naive"  # block-length-memory: the blocks' tanh attention


@dataclass
class StudyPlan:
    """One study: objectives (names and directions), search, pruning and extra results.

    ``fit_overrides`` maps a trial to the ``sanbench fit`` overrides that reproduce it (None
    for studies that do not train); ``summarize`` returns study-specific results (e.g. the
    Appendix A block length) for the summary page and ``summary.json``; ``best_per`` names the
    parameter whose every value has a best trial of its own (Appendix A's r per length n),
    where one best across its values would compare incomparable trials.
    """

    name: str
    metric_names: list[str]
    directions: list[str]
    objective: Objective
    default_trials: int
    sampler: optuna.samplers.BaseSampler | None = None
    pruner: optuna.pruners.BasePruner | None = None
    fit_overrides: Callable[[optuna.trial.FrozenTrial], dict[str, Any]] | None = None
    summarize: Callable[[optuna.Study], dict[str, Any]] = lambda study: {}
    notes: list[str] = field(default_factory=list)
    best_per: str | None = None

    @property
    def multi_objective(self) -> bool:
        return len(self.directions) > 1
