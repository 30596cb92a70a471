"""``FitRun``: one fit of ``fit``, of a ``suite`` run or of a ``tune`` trial, as the values that
differ from its task's config; resolved into a complete fit config by ``FitCLI`` (imported only
when resolving, so grids are built and checked without torch or Lightning)."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from harness.command_parser import as_typed
from harness.training.settings.task_configs import nested, seed_message_hidden

Given = tuple[str, Sequence[Any] | None]  # an option and the values it gives (None: none)


def typed_list(text: str) -> list[str]:
    """A comma list as typed (``--tasks trec, sst2``), its entries stripped."""
    return [entry.strip() for entry in str(text).split(",")]


def grid_key_problems(
    sections: Mapping[str, Any], tasks: Given, encoders: Given, folds: str | None = None
) -> list[str]:
    """One line per key a grid gives each run (:meth:`FitRun.args`: its task, encoder and, by
    the option ``folds``, fold) that fit's ``sections`` (dotted) give too: every run would
    train the section's value, recorded as the grid's (until 2026-12-01 ``suite --encoders
    bilstm --model '{encoder: mtsa}'`` trained mtsa in bilstm's folder and row). A section's
    value is taken only as its option's one value."""
    grid = {"data.task": tasks, "model.encoder": encoders}
    grid |= {"data.fold": (folds, None)} if folds else {}
    problems = []
    for key, (option, values) in grid.items():
        given = sections.get(key)  # a null: not given (said by the options' own check)
        if given is not None and (values is None or list(values) != [given]):
            section, _, leaf = key.partition(".")
            problems.append(
                f"{' '.join(as_typed(key, given))}: each run's {leaf} is given by "
                f"{option}, not by fit's {section} section"
            )
    return problems


@dataclass(frozen=True)
class FitRun:
    """One fit of ``fit``, of a ``suite`` or of a ``tune`` trial: what to train, where, and the
    values that differ from ``configs/<task>.yaml``, as dotted keys like the command line's
    (``{"trainer.max_steps": 50, "model.dropout": 0.3}``)."""

    task: str
    encoder: str
    data_dir: Path | None  # None: a task file's task (it names its files)
    out_dir: Path
    embeddings: Path | None = None
    seed: int = 0
    fold: int | None = None
    overrides: dict[str, Any] = field(default_factory=dict)

    def args(self) -> dict[str, Any]:
        """The nested config LightningCLI parses (``harness.training.settings.fit_cli.FitCLI``),
        a copy: the parser types a list's entries in place (a callback as its ``Namespace``),
        which the overrides, shared by every run and written to a suite's manifest, must not
        take."""
        values = {
            "seed_everything": self.seed,
            "out": str(self.out_dir),
            "data.task": self.task,
            "data.data_dir": None if self.data_dir is None else str(self.data_dir),
            "data.embeddings": None if self.embeddings is None else str(self.embeddings),
            "model.encoder": self.encoder,
            **({} if self.fold is None else {"data.fold": self.fold}),
        }
        return copy.deepcopy(nested(values | self.overrides))

    def to_yaml(self) -> str:
        """A file that ``sanbench fit --config FILE`` runs as is (parsed, and its values checked
        as ``FitCLI.check_values`` does: a suite refuses a bad one before its first run)."""
        from harness.training.settings.fit_cli import FitCLI

        with seed_message_hidden():
            cli = FitCLI(self.args())
        cli.check_values()
        return cli.config_yaml()

    def resolved(self) -> dict[str, Any]:
        """The complete nested config (task config, per-encoder values, overrides, defaults)."""
        return yaml.safe_load(self.to_yaml())
