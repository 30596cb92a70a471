"""The suite page's "Contended timings" table shows the evidence every run recorded (issue 56:
on 023e32f it read ``– -> –`` as the load average of every row and ``–`` as the CPU granted to
dev inference, because ``results-*.csv`` never copied them from ``metrics.json``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd

from reports.contracts.suite_results import COLUMNS, finished_rows
from reports.site.training_data import load_suite_results
from reports.site.training_page import contended_rows

SUITE = Path(__file__).resolve().parents[1] / "fixtures" / "suite-tiny"
EVIDENCE = {
    "train_contended": True,
    "train_cpu_granted": 0.31,
    "train_load_avg_before": 13.21,
    "train_load_avg_after": 12.5,
    "dev_infer_contended": True,
    "dev_infer_cpu_granted": 0.2026,
    "dev_infer_load_avg_before": 11.0,
    "dev_infer_load_avg_after": 10.25,
}


def contended_suite(tmp_path: Path) -> Path:
    """The fixture suite, every run contended in training and dev inference: its rows say so
    (as a suite run before issue 56 wrote them: flags only), its metrics.json has the rest."""
    suite = tmp_path / "suite"
    shutil.copytree(SUITE, suite)
    for metrics_file in suite.glob("runs/*/*/*/metrics.json"):
        metrics = json.loads(metrics_file.read_text())
        metrics.update(EVIDENCE)
        metrics_file.write_text(json.dumps(metrics))
    results = suite / "results-1-of-1.csv"
    rows = pd.read_csv(results)
    rows["train_contended"] = 1
    rows["dev_infer_contended"] = 1
    rows.to_csv(results, index=False)
    return suite


def test_every_contended_row_shows_the_cpu_and_load_its_run_recorded(tmp_path: Path) -> None:
    rows = contended_rows(load_suite_results(contended_suite(tmp_path)))
    assert len(rows) == 8  # four runs, each contended in training and in dev inference
    by_timing = {row["timed"]: row for row in rows}
    assert by_timing["training epochs"]["granted"] == "31.0"
    assert by_timing["training epochs"]["load"] == "13.21 → 12.50"
    assert by_timing["dev inference"]["granted"] == "20.3"
    assert by_timing["dev inference"]["load"] == "11.00 → 10.25"
    assert all("–" not in value for row in rows for value in row.values())


def test_a_suite_row_carries_the_evidence_columns() -> None:
    for prefix in ("train_", "dev_infer_"):
        for name in ("cpu_granted", "contended", "load_avg_before", "load_avg_after"):
            assert prefix + name in COLUMNS


def test_evidence_a_run_never_recorded_is_a_dash_not_a_dash_arrow_dash(tmp_path: Path) -> None:
    suite = contended_suite(tmp_path)
    for metrics_file in suite.glob("runs/*/*/*/metrics.json"):
        metrics = json.loads(metrics_file.read_text())
        for key in ("train_load_avg_before", "train_load_avg_after"):
            metrics.pop(key)
        metrics_file.write_text(json.dumps(metrics))
    rows = contended_rows(load_suite_results(suite))
    assert {row["load"] for row in rows if row["timed"] == "training epochs"} == {"–"}
    assert finished_rows(suite).shape[0] == 4  # the rows themselves are not changed
