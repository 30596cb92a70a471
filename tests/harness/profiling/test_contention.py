"""Contention caught point by point: a tiny sweep beside CPU-burning processes of the test's
own is flagged ``contended`` (and refused by ``--strict``); the same sweep without them is not.

One test, quiet sweep first, so that under ``pytest -n 2`` its burners never overlap its own
quiet sweep. ``--threads 1``: the quiet sweep then asks for one core of two, and stays above
the rule's 50% even beside another test worker busy on two threads (it gets about 2/3);
beside 3 burners per core it gets about 2/7. The workload is sized so that a timed region
lasts about 0.1 s: a region of a millisecond or two, right after the worker wakes, runs on the
scheduler's credit for sleepers and can be uncontended even beside the burners.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from harness.cli import main
from reports.profile.data import load_run

pytestmark = [pytest.mark.slow, pytest.mark.quiet]  # its quiet half needs both cores idle
ROOT = Path(__file__).resolve().parents[3]
SWEEP = [
    "profile",
    "--import",
    "tests.harness.fixtures.profiling_workloads",
    "--encoders",
    "test_linear",
    "--lengths",
    "64,128",
    "--modes",
    "train",
    "--batch-size",
    "32",
    "--dim",
    "256",
    "--repeats",
    "5",
    "--threads",
    "1",
    "--no-progress",
    "--no-report",
]
# Each burner spins for at most this long, so none outlives a killed test run by much.
BURN = "import time\nend = time.time() + 300\nwhile time.time() < end:\n    pass"


@contextmanager
def burners(count: int) -> Iterator[None]:
    processes = [subprocess.Popen([sys.executable, "-c", BURN]) for _ in range(count)]
    try:
        yield
    finally:
        for process in processes:
            process.kill()
            process.wait()


def test_contended_points_are_flagged_and_quiet_ones_are_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)  # workers import the test workloads with `python -m`
    assert main([*SWEEP, "--out", str(tmp_path / "quiet")]) == 0
    quiet = load_run(tmp_path / "quiet").rows
    assert set(quiet["status"]) == {"ok"} and (quiet["threads"] == 1).all()
    manifest = json.loads((tmp_path / "quiet" / "manifest.json").read_text())
    assert manifest["config"]["threads"] == 1 and manifest["environment"]["threads"] == "1"
    assert not quiet["contended"].any(), quiet[["seq_len", "cpu_granted", "load_avg_before"]]
    assert (quiet["cpu_granted"] > 0.5).all() and (quiet["cpu_share"] > 0).all()
    printed = capsys.readouterr().out  # (the tmp path holds the test's name, so not "contended")
    assert "CONTENDED" not in printed and "were contended" not in printed

    # six spinning processes per core: a worker's share ~1/7 of a core, far below the 0.5 that
    # flags a point (with three, ~2/7, one short timed region once got more than half: CI)
    with burners(6 * (os.cpu_count() or 1)):
        assert main([*SWEEP, "--out", str(tmp_path / "loaded")]) == 0
        printed = capsys.readouterr().out
        assert main([*SWEEP, "--lengths", "64", "--strict", "--out", str(tmp_path / "strict")]) == 1
    strict_printed = capsys.readouterr()
    loaded = load_run(tmp_path / "loaded").rows
    assert set(loaded["status"]) == {"ok"} and loaded["contended"].all()
    assert (loaded["cpu_granted"] < 0.5).all() and (loaded["load_avg_after"] > 0).all()
    assert printed.count("CONTENDED") == 2 and "2 of 2 timed points were contended" in printed
    strict = load_run(tmp_path / "strict").rows.iloc[0]
    assert strict["status"] == "contended" and "contended in 4 measurements" in strict["message"]
    assert "--strict refused 1 contended point; profile it on a quiet machine" in strict_printed.err
    assert "1 of 1 timed points was contended" in strict_printed.out
    assert "add --strict" not in strict_printed.out  # it was given (outside check of #56, 16)


def test_a_strict_sweeps_contention_note_says_it_refused_the_points() -> None:
    """Outside check of #56, item 16: ``profile ... --strict`` ended "(add --strict to re-measure
    contended points ...)" though --strict was given, and "1 of 1 timed points were"."""
    from harness.profiling.sweep import contention_summary

    refused = [{"status": "contended", "contended": "True", "threads": "2"}]
    note = contention_summary(refused, strict=True)
    assert note and note.startswith("1 of 1 timed points was contended")
    assert "add --strict" not in note
    assert "--strict re-measured each up to 3 more times and refused those" in note
    assert "add --strict" in contention_summary(refused * 2)
    assert contention_summary(refused * 2).startswith("2 of 2 timed points were contended")


def test_the_contention_note_asks_for_fewer_threads_only_where_there_can_be_fewer() -> None:
    """``--threads 1`` runs were told to "use fewer --threads than free cores" (issue 56)."""
    from harness.profiling.sweep import contention_summary

    def rows(threads: str) -> list[dict[str, str]]:
        return [{"status": "ok", "contended": "True", "threads": threads}] * 2

    assert "fewer --threads" not in contention_summary(rows("1"))
    assert "Stop what else runs" in contention_summary(rows("1"))
    assert "use fewer --threads than free cores" in contention_summary(rows("2"))
