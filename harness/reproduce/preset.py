"""The reproduction presets: Bi-BloSAN Table 6's tasks x the encoders it and MTSA Table 5 report.

Protocol (Bi-BloSAN Sec. 4.4, MTSA Sec. 4.3): CR, MPQA and SUBJ are scored by 10-fold CV, TREC,
SST-1 and SST-2 over seeds; every run uses its task's config with its encoder's own paper
settings (``harness/training/configs``: Bi-BloSAN §4.4 for Table 6's rows, MTSA Appendix B for
MTSA) and ends by early stopping on dev accuracy; budgets are epochs, never optimizer steps.

- ``cpu`` (default): the papers' protocol cut to a 2-core CPU: every encoder at a third of its
  paper width (one ratio for all, ``model.width_scale``), folds 0-2 and seeds 0-2, early
  stopping with patience 3 and a 30-epoch safety bound (the tables count the runs it stopped).
- ``paper``: the papers' own scale: full width, 10 folds, 5 seeds, patience 5, 100 epochs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness.suite.grid import CV_FOLDS, RunSpec, expand_grid
from reports.paper_numbers import TABLE_6_TASKS

TASKS = TABLE_6_TASKS  # Bi-BloSAN Table 6's tasks, in its column order
# the rows of Bi-BloSAN Table 6 / MTSA Table 5 we register, plus Kim's Multi-CNN
ENCODERS = ("bilstm", "multi_cnn", "multi_head", "disan", "bi_blosan", "mtsa")
WORKERS = 2  # parallel runs
THREADS_PER_RUN = 1


@dataclass(frozen=True)
class Preset:
    """A reproduction grid: tasks x encoders x ``seeds`` seeds (or the first ``folds`` CV
    folds), one set of config overrides for every run."""

    tasks: tuple[str, ...] = TASKS
    encoders: tuple[str, ...] = ENCODERS
    seeds: int = 3
    folds: int = 3
    overrides: dict[str, Any] = field(default_factory=dict)

    def grid(self) -> list[RunSpec]:
        """Every run: the first ``folds`` folds of CV tasks, seeds 0..seeds-1 of the others."""
        return expand_grid(self.tasks, self.encoders, seeds=self.seeds, folds=self.folds)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (the worker's ``--preset`` and the manifest's ``preset``)."""
        return {
            "tasks": list(self.tasks),
            "encoders": list(self.encoders),
            "seeds": self.seeds,
            "folds": self.folds,
            "overrides": dict(self.overrides),
        }

    @classmethod
    def from_dict(cls, fields: dict[str, Any]) -> Preset:
        """From :meth:`to_dict`; a manifest written before 2026-11-25 has one ``runs`` count
        for both seeds and folds."""
        runs = fields.get("runs")
        return cls(
            tasks=tuple(fields["tasks"]),
            encoders=tuple(fields["encoders"]),
            seeds=int(fields.get("seeds", runs)),
            folds=int(fields.get("folds", runs)),
            overrides=dict(fields["overrides"]),
        )


CPU_PRESET = Preset(
    seeds=3,
    folds=3,
    overrides={
        "model.width_scale": 1 / 3,
        "trainer.max_epochs": 30,
        "run.early_stopping_patience": 3,
    },
)
PAPER_PRESET = Preset(
    seeds=5,
    folds=CV_FOLDS,
    overrides={"trainer.max_epochs": 100, "run.early_stopping_patience": 5},
)
PRESETS = {"cpu": CPU_PRESET, "paper": PAPER_PRESET}
