"""``FitRun``: one fit of ``fit``, of a ``suite`` run or of a ``tune`` trial, as the values that
differ from its task's config; resolved into a complete fit config by ``FitCLI`` (imported only
when resolving, so grids are built and checked without torch or Lightning)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from harness.training.settings.task_configs import nested, seed_message_hidden


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
