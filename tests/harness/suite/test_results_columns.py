"""What a suite's results row copies from each run's metrics (issue 56: the CPU share and load
averages behind a contended time stayed in ``metrics.json``; the suite page read the rows and
showed ``– -> –``), and a results file begun by an older sanbench still resumes."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from harness.suite.grid import Shard, expand_grid
from harness.suite.runner import COLUMNS, results_path, run_shard
from harness.training.settings.fit_run import FitRun

EVIDENCE = {
    "train_cpu_granted": 0.31,
    "train_contended": True,
    "train_load_avg_before": 13.21,
    "train_load_avg_after": 12.5,
    "dev_infer_cpu_granted": 0.2026,
    "dev_infer_contended": True,
    "dev_infer_load_avg_before": 11.0,
    "dev_infer_load_avg_after": 10.25,
}


def fit(run: FitRun) -> dict[str, Any]:
    """What ``run_fit`` returns for a run whose timings were contended
    (harness.measurement.cpu_usage)."""
    return {"params": 10, "test_acc": 0.5, "train_time_per_epoch_s": 2.0, **EVIDENCE}


def run(out: Path, seeds: int) -> None:
    run_shard(
        expand_grid(["trec"], ["mtsa"], seeds, folds=1),
        shard=Shard(),
        out_dir=out,
        fit=fit,
        data_dir=Path("data"),
        embeddings=None,
        overrides={},
        log=lambda _: None,
    )


def rows(out: Path) -> list[dict[str, str]]:
    with results_path(out, Shard()).open(newline="") as handle:
        return list(csv.DictReader(handle))


def test_a_row_keeps_the_evidence_behind_a_contended_time(tmp_path: Path) -> None:
    run(tmp_path, seeds=1)
    (row,) = rows(tmp_path)
    assert {key: row.get(key) for key in EVIDENCE} == {
        "train_cpu_granted": "0.31",
        "train_contended": "1",
        "train_load_avg_before": "13.21",
        "train_load_avg_after": "12.5",
        "dev_infer_cpu_granted": "0.2026",
        "dev_infer_contended": "1",
        "dev_infer_load_avg_before": "11.0",
        "dev_infer_load_avg_after": "10.25",
    }


def test_a_results_file_of_an_older_sanbench_resumes_with_the_new_columns(tmp_path: Path) -> None:
    run(tmp_path, seeds=1)
    path = results_path(tmp_path, Shard())
    old = [c for c in COLUMNS if c not in EVIDENCE or c.endswith(("_granted", "_contended"))]
    old.remove("dev_infer_cpu_granted")
    (first,) = rows(tmp_path)
    with path.open("w", newline="") as handle:  # the row as a suite before issue 56 wrote it
        writer = csv.DictWriter(handle, fieldnames=old, extrasaction="ignore")
        writer.writeheader()
        writer.writerow(first)
    run(tmp_path, seeds=2)  # seed0 done, seed1 runs and appends
    found = rows(tmp_path)
    assert [r["replicate"] for r in found] == ["seed0", "seed1"]
    assert found[0]["train_load_avg_before"] == "" and found[0]["test_acc"] == "0.5"
    assert found[1]["train_load_avg_before"] == "13.21"
    assert found[1]["dev_infer_cpu_granted"] == "0.2026"
