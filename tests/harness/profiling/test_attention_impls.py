"""The naive vs chunked attention bench: rows, resume, quadratic skip prediction, bad input."""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import pytest

from harness.profiling import attention_impls
from harness.profiling.attention_impls import main, measure_length, variants

TINY = ["--batch-size", "2", "--dim", "8", "--repeats", "1", "--chunk-sizes", "2"]


def read(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def test_writes_a_row_per_variant_and_length_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "impls.csv"
    assert main(["--encoders", "disan", "--lengths", "4,6", *TINY, "--out", str(out)]) == 0
    rows = read(out)
    assert [(r["seq_len"], r["variant"]) for r in rows] == [
        ("4", "naive"),
        ("4", "chunked/2"),
        ("6", "naive"),
        ("6", "chunked/2"),
    ]
    assert all(r["status"] == "ok" and float(r["peak_mem_mb"]) > 0 for r in rows)
    assert all(float(r["time_s_median"]) > 0 and r["load_avg_1m"] for r in rows)
    assert {r["time_vs_naive"] for r in rows if r["variant"] == "naive"} == {"1.0"}
    for row in rows:  # the meta-tensor prediction is the measured tensor peak here
        assert abs(float(row["predicted_mem_mb"]) / float(row["peak_mem_mb"]) - 1) < 0.05
    assert main(["--encoders", "disan", "--lengths", "4,6", *TINY, "--out", str(out)]) == 0
    assert len(read(out)) == 4  # nothing measured twice


def test_a_variant_predicted_over_the_budget_is_skipped() -> None:
    args = argparse.Namespace(batch_size=2, dim=8, repeats=1, device="cpu")
    rows = measure_length("disan", 8, variants([2]), args, budget=1000)
    assert [row["status"].split(" ")[0] for row in rows] == ["skipped:"] * 2
    assert all("MB > budget" in row["status"] for row in rows)
    assert all(row["peak_mem_mb"] == "" for row in rows)


def test_unknown_encoder_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--encoders", "dissan", "--out", "unused.csv"]) == 2
    assert "unknown encoder 'dissan'" in capsys.readouterr().err


def test_bad_lengths_are_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        attention_impls.parse_args(["--lengths", "64,zero"])
    assert "--lengths" in capsys.readouterr().err
