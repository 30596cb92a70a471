"""``curve.csv``: every validation of a run with its training time (Bi-BloSAN Fig. 5)."""

from __future__ import annotations

import csv
from pathlib import Path

from reports.contracts.fit_folder import LOG_GLOB, FitRunFolder


def _version_number(path: Path) -> int:
    return int(path.parent.name.removeprefix("version_"))


def write_curve(out_dir: Path) -> Path:
    """Merge the validation rows of every logs/version_N/metrics.csv into ``curve.csv``.

    One row per validation (epoch, step, train_seconds, val_*): the dev-metric-vs-training-time
    curve of Bi-BloSAN Fig. 5, continuous across resumes (a later attempt wins per step).
    ``step`` is the count of training steps done, as the console prints it: Lightning logs a
    validation of a fit at the index of its last step, one fewer (its step counter is raised
    after the validation that follows a step).
    """
    folder = FitRunFolder(out_dir)
    rows: dict[int, dict[str, str]] = {}
    for log in sorted(folder.logs.glob(LOG_GLOB), key=_version_number):
        with log.open(newline="") as handle:
            for row in csv.DictReader(handle):
                if row.get("train_seconds"):
                    done = int(row["step"]) + 1
                    rows[done] = {**row, "step": str(done)}
    return folder.write_curve(rows[step] for step in sorted(rows))
