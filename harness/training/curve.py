"""``curve.csv``: every validation of a run with its training time (Bi-BloSAN Fig. 5)."""

from __future__ import annotations

import csv
from pathlib import Path


def _version_number(path: Path) -> int:
    return int(path.parent.name.removeprefix("version_"))


def write_curve(out_dir: Path) -> Path:
    """Merge the validation rows of every logs/version_N/metrics.csv into ``curve.csv``.

    One row per validation (epoch, step, train_seconds, val_*): the dev-metric-vs-training-time
    curve of Bi-BloSAN Fig. 5, continuous across resumes (a later attempt wins per step).
    """
    rows: dict[int, dict[str, str]] = {}
    logs = sorted((out_dir / "logs").glob("version_*/metrics.csv"), key=_version_number)
    for log in logs:
        with log.open(newline="") as handle:
            for row in csv.DictReader(handle):
                if row.get("train_seconds"):
                    rows[int(row["step"])] = row
    columns = ["epoch", "step", "train_seconds"]
    columns += sorted({k for r in rows.values() for k in r if k.startswith("val_")})
    path = out_dir / "curve.csv"
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows[step] for step in sorted(rows))
    return path
