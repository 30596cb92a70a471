"""The reproduction preset: Bi-BloSAN Table 6's tasks x the encoders it and MTSA Table 5 report.

Protocol (Bi-BloSAN Sec. 4.4, MTSA Sec. 4.3) with a reduced budget so the whole grid fits in
three hours on a 2-core CPU (estimate and probes: ``docs/results.md``): CR, MPQA and SUBJ are
scored on folds 0-2 of their 10-fold CV, TREC, SST-1 and SST-2 on seeds 0-2; every run uses
the task's config with a smaller width and an epoch cap.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness.suite.grid import RunSpec, expand_grid

# Bi-BloSAN Table 6's column order
TASKS = ("cr", "mpqa", "subj", "trec", "sst1", "sst2")
# the rows of Bi-BloSAN Table 6 / MTSA Table 5 we register, plus Kim's Multi-CNN
ENCODERS = ("bilstm", "multi_cnn", "multi_head", "disan", "bi_blosan", "mtsa")
RUNS_PER_CELL = 3
HIDDEN_DIM = 100  # the papers' 300 (Multi-CNN 200 filters per width, MTSA 600) cut to a third
MAX_EPOCHS = 15  # probes: worst case (no early stop) 2.3 h on 2 workers, docs/results.md
EARLY_STOPPING_PATIENCE = 3
WORKERS = 2  # parallel runs
THREADS_PER_RUN = 1


@dataclass(frozen=True)
class Preset:
    """A reproduction grid: tasks x encoders x ``runs`` seeds or CV folds, one budget."""

    tasks: tuple[str, ...] = TASKS
    encoders: tuple[str, ...] = ENCODERS
    runs: int = RUNS_PER_CELL
    overrides: dict[str, Any] = field(
        default_factory=lambda: {
            "model.hidden_dim": HIDDEN_DIM,
            "trainer.max_epochs": MAX_EPOCHS,
            "run.early_stopping_patience": EARLY_STOPPING_PATIENCE,
        }
    )

    def grid(self) -> list[RunSpec]:
        """Every run: the first ``runs`` folds of CV tasks, seeds 0..runs-1 of the others."""
        return expand_grid(self.tasks, self.encoders, seeds=self.runs, folds=self.runs)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (the worker's ``--preset`` and the manifest's ``preset``)."""
        return {
            "tasks": list(self.tasks),
            "encoders": list(self.encoders),
            "runs": self.runs,
            "overrides": dict(self.overrides),
        }

    @classmethod
    def from_dict(cls, fields: dict[str, Any]) -> Preset:
        return cls(
            tasks=tuple(fields["tasks"]),
            encoders=tuple(fields["encoders"]),
            runs=int(fields["runs"]),
            overrides=dict(fields["overrides"]),
        )


PAPER_PRESET = Preset()
