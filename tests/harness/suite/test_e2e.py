"""``sanbench suite`` end to end on the tiny fixture files: real training, tables, resume."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from harness.cli import main

FIXTURES = Path(__file__).resolve().parents[2] / "datamodules" / "fixtures"


def _rows(out: Path) -> list[dict[str, str]]:
    with (out / "results-1-of-1.csv").open(newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.slow
def test_tiny_suite_runs_writes_tables_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "suite"
    argv = [
        "suite",
        "--tasks",
        "sst2,cr,sick",
        "--encoders",
        "multi_cnn",
        "--seeds",
        "1",
        "--folds",
        "2",
        "--data-dir",
        str(FIXTURES),
        "--embeddings",
        str(FIXTURES / "vectors" / "tiny.glove.txt"),
        "--out",
        str(out),
        "--max-steps",
        "2",
        "--limit-train-batches",
        "2",
    ]
    assert main(argv) == 0
    rows = _rows(out)
    assert sorted((r["task"], r["replicate"], r["status"]) for r in rows) == [
        ("cr", "fold0", "ok"),
        ("cr", "fold1", "ok"),
        ("sick", "seed0", "ok"),
        ("sst2", "seed0", "ok"),
    ]
    assert all(int(r["steps"]) == 2 for r in rows), [r["error"] for r in rows]
    assert 0.0 <= float(next(r for r in rows if r["task"] == "sst2")["test_acc"]) <= 1.0
    for name in ("bi_blosan_table5", "bi_blosan_table6", "mtsa_table5", "params"):
        for suffix in ("csv", "md"):
            assert (out / "tables" / f"{name}.{suffix}").is_file()
    table6 = (out / "tables" / "bi_blosan_table6.md").read_text()
    assert "| multi_cnn |" in table6
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kind"] == "suite" and manifest["overrides"]["trainer.max_steps"] == 2
    assert (out / "runs" / "cr" / "multi_cnn" / "fold1" / "metrics.json").is_file()

    before = (out / "results-1-of-1.csv").read_text()
    assert main(argv) == 0  # resume: every run is done, nothing is repeated
    assert (out / "results-1-of-1.csv").read_text() == before
    assert main(["suite", "--out", str(out), "--aggregate-only"]) == 0


@pytest.mark.slow
def test_the_no_embeddings_warning_is_given_once_per_suite_that_trains(tmp_path: Path) -> None:
    """Issue 56.13: a 3-run suite without --embeddings warned 5 times (the check, every run);
    then its rerun, which trains nothing ('0 ran, 4 already done'), still warned once."""
    import warnings

    from datamodules.datamodule import RandomVectorsWarning

    argv = ["suite", "--tasks", "sst2", "--encoders", "multi_cnn,bilstm", "--seeds", "2",
            "--data-dir", str(FIXTURES), "--out", str(tmp_path / "suite"), "--max-steps", "1",
            "--limit-train-batches", "1", "--model.hidden_dim", "4"]  # fmt: skip
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main(argv) == 0
        random = [w for w in caught if issubclass(w.category, RandomVectorsWarning)]
        assert len(random) == 1, [str(w.message) for w in random]
        caught.clear()
        assert main(argv) == 0  # every run done
    assert not [w for w in caught if issubclass(w.category, RandomVectorsWarning)]
