"""ResultsFile: readers never change a file, the writer repairs only its own torn tail, and
shards writing one folder while another process aggregates lose nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from harness.suite.grid import Shard, expand_grid
from harness.suite.runner import finished_keys, results_path, run_shard
from harness.suite.summary_tables import load_results
from reports.contracts.results_file import ResultsFile
from tests.harness.fixtures import results_shard_worker as worker

KEYS = ("name",)
WORKER = worker.__file__
ROOT = Path(__file__).resolve().parents[2]
RUN_ARGS: dict[str, Any] = {"data_dir": Path("data"), "embeddings": None, "overrides": {}}


def _write_rows(path: Path, names: list[str]) -> None:
    results = ResultsFile(path, KEYS)
    for name in names:
        results.append({"name": name, "value": len(name)})


def test_readers_leave_a_row_being_written_alone(tmp_path: Path) -> None:
    path = tmp_path / "results-1-of-2.csv"
    _write_rows(path, ["a", "b"])
    in_flight = b"c,1\r\n"
    with path.open("ab") as handle:  # the writer has flushed half of its next row
        handle.write(in_flight[:2])
    before = path.read_bytes()

    reader = ResultsFile(path, KEYS)
    assert [row["name"] for row in reader.rows()] == ["a", "b"]
    assert reader.done_keys() == {("a",), ("b",)}
    assert path.read_bytes() == before

    with path.open("ab") as handle:  # ... and finishes it
        handle.write(in_flight[2:])
    assert [row["name"] for row in ResultsFile(path, KEYS).rows()] == ["a", "b", "c"]


def test_suite_readers_leave_a_row_being_written_alone(tmp_path: Path) -> None:
    path = results_path(tmp_path, Shard(1, 2))
    runs = expand_grid(["trec"], ["mtsa"], 2)
    run_shard(runs, shard=Shard(1, 2), out_dir=tmp_path, fit=worker.fake_fit, **RUN_ARGS, log=print)
    with path.open("ab") as handle:
        handle.write(b"trec,mtsa,seed")
    before = path.read_bytes()
    assert finished_keys(tmp_path) == {("trec", "mtsa", "seed0")}
    assert list(load_results(tmp_path)["replicate"]) == ["seed0"]
    assert path.read_bytes() == before


def test_the_writer_drops_its_own_torn_tail_before_appending(tmp_path: Path) -> None:
    path = tmp_path / "profile.csv"
    _write_rows(path, ["a"])
    with path.open("ab") as handle:  # an earlier run of ours died mid-row
        handle.write(b"tor")
    _write_rows(path, ["b"])
    assert [row["name"] for row in ResultsFile(path, KEYS).rows()] == ["a", "b"]
    assert path.read_bytes().count(b"tor") == 0


def test_a_torn_header_is_rewritten_by_the_writer(tmp_path: Path) -> None:
    path = tmp_path / "profile.csv"
    path.write_bytes(b"na")
    assert ResultsFile(path, KEYS).rows() == []
    _write_rows(path, ["a"])
    assert ResultsFile(path, KEYS).rows() == [{"name": "a", "value": "1"}]


def _keys(results: pd.DataFrame) -> set[tuple[str, ...]]:
    return set(map(tuple, results[["task", "encoder", "replicate"]].to_numpy()))


@pytest.mark.slow
def test_two_shards_and_an_aggregator_lose_nothing(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, WORKER, str(tmp_path)]
    shards = [subprocess.Popen([*command, i], env=env, cwd=ROOT) for i in "12"]
    snapshots = []
    while any(process.poll() is None for process in shards):
        snapshots.append(_keys(load_results(tmp_path)))
        assert finished_keys(tmp_path) >= snapshots[-1]
    assert [process.wait() for process in shards] == [0, 0]

    every_run = {run.key for run in expand_grid(worker.TASKS, worker.ENCODERS, worker.SEEDS)}
    for index in (1, 2):
        rows = ResultsFile(results_path(tmp_path, Shard(index, 2)), ()).rows()
        keys = [(row["task"], row["encoder"], row["replicate"]) for row in rows]
        assert len(keys) == len(set(keys)) == len(every_run) // 2
        assert {row["status"] for row in rows} == {"ok"}
        assert results_path(tmp_path, Shard(index, 2)).read_bytes().endswith(b"\n")
    final = load_results(tmp_path)
    assert _keys(final) == every_run
    assert finished_keys(tmp_path) == every_run
    assert snapshots and all(snapshot <= every_run for snapshot in snapshots)
