"""A suite through ``--launcher local`` (submitit jobs) and ``process``: same tables as
in-process, and a killed job's cells re-run on resume while no finished cell runs twice."""

from __future__ import annotations

import csv
import os
import signal
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from harness.errors import RunFailedError
from harness.launch import LaunchOptions
from harness.suite import pending_shards, run_as_jobs
from harness.suite.grid import expand_grid
from harness.suite.runner import all_results_files
from harness.training.settings.fit_run import FitRun

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "datamodules" / "fixtures"
VICTIM = ("sst2", "mtsa", "seed1")
ACCURACY_COLUMNS = ("task", "encoder", "runs", "train_acc", "dev_acc", "test_acc", "params")


@pytest.fixture(autouse=True)
def _importable_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    """Jobs unpickle ``fit_killed_once`` from this module: they must import ``tests``."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))


def fit_killed_once(run: FitRun) -> dict[str, Any]:
    """Fake ``run_fit``: notes each execution; the first run of ``VICTIM`` kills its job."""
    run_dir: Path = run.out_dir
    out = run_dir.parents[3]  # OUT/runs/<task>/<encoder>/<replicate>
    with (out / "executions.log").open("a") as handle:
        handle.write(" ".join(run_dir.parts[-3:]) + "\n")
    if run_dir.parts[-3:] == VICTIM and not (out / "killed").exists():
        (out / "killed").touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return {"params": 10, "test_acc": 0.5 + 0.1 * run.seed}


def _ok_keys(out: Path) -> list[tuple[str, ...]]:
    rows = []
    for path in all_results_files(out):
        with path.open(newline="") as handle:
            rows += [r for r in csv.DictReader(handle) if r["status"] == "ok"]
    return [(r["task"], r["encoder"], r["replicate"]) for r in rows]


@pytest.mark.slow
@pytest.mark.parametrize("launcher", ["local", "process"])
def test_killed_job_cells_rerun_on_resume_none_twice(tmp_path: Path, launcher: str) -> None:
    out = tmp_path / "suite"
    runs = expand_grid(["sst1", "sst2"], ["bilstm", "mtsa"], seeds=2)
    options = LaunchOptions(launcher, jobs=2, slurm_time=5)
    common = dict(
        out_dir=out, fit=fit_killed_once, data_dir=tmp_path, embeddings=None, overrides={}
    )
    launched, failed = run_as_jobs(runs, options, **common)
    assert launched == ["1-of-2", "2-of-2"]
    assert isinstance(failed, RunFailedError) and "1 of 2 jobs died" in str(failed)  # the victim's
    assert VICTIM not in _ok_keys(out)
    assert len(pending_shards(runs, 2, out)) == 1

    assert run_as_jobs(runs, options, **common)[1] is None  # only the killed job's shard
    assert sorted(_ok_keys(out)) == sorted(run.key for run in runs)  # each cell once
    executions = Counter((out / "executions.log").read_text().splitlines())
    assert executions.pop(" ".join(VICTIM)) == 2  # killed, then re-run
    assert set(executions.values()) == {1}  # no finished cell ran twice
    assert pending_shards(runs, 2, out) == []


def _suite(out: Path, *launcher: str) -> int:
    # one seed: 4 real fits in 2 jobs (two seeds made it 8, 16 fits with the in-process suite)
    argv = ["suite", "--tasks", "sst2,sst1", "--encoders", "multi_cnn,bilstm", "--seeds", "1"]
    argv += [
        "--data-dir",
        str(FIXTURES),
        "--embeddings",
        str(FIXTURES / "vectors" / "tiny.glove.txt"),
    ]
    argv += ["--out", str(out), "--max-steps", "2", "--limit-train-batches", "2"]
    return main([*argv, *launcher])


def _accuracy_table(out: Path) -> list[dict[str, str]]:
    with (out / "tables" / "suite_summary.csv").open(newline="") as handle:
        return [{k: row[k] for k in ACCURACY_COLUMNS} for row in csv.DictReader(handle)]


@pytest.mark.slow
def test_local_launcher_gives_the_in_process_tables(tmp_path: Path) -> None:
    here, jobs = tmp_path / "here", tmp_path / "jobs"
    assert _suite(here) == 0
    assert _suite(jobs, "--launcher", "local", "--jobs", "2") == 0
    assert len(_ok_keys(jobs)) == 4 and len(all_results_files(jobs)) == 2
    assert _accuracy_table(jobs) == _accuracy_table(here)
    for name in ("bi_blosan_table6.csv", "mtsa_table5.csv", "params.csv"):
        assert (jobs / "tables" / name).read_text() == (here / "tables" / name).read_text()
    assert _suite(jobs, "--launcher", "local", "--jobs", "2") == 0  # resume: nothing to submit
    assert len(_ok_keys(jobs)) == 4


def test_a_resumed_job_computes_on_the_threads_of_the_first_launch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A resume launches only the jobs left: each must still get the threads of the first
    launch, which shared the cores among every job of the plan; a machine of other cores
    shares its own and says so in one warning."""
    from harness.launch import processes
    from harness.launch.threads import ThreadsChangedWarning
    from harness.suite import suite

    threads: list[str] = []

    def launched(calls: list, folder: Path, name: str, environment: dict, *more: Any) -> list:
        threads.extend(environment["OMP_NUM_THREADS"] for _ in calls)
        return []

    monkeypatch.setattr(processes, "launch_processes", launched)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    runs, out = expand_grid(["sst1"], ["bilstm", "mtsa"], seeds=1), tmp_path / "suite"
    arguments = {"out_dir": out, "fit": None, "data_dir": None, "embeddings": None}
    run = lambda: run_as_jobs(runs, LaunchOptions("process"), **arguments, overrides={})  # noqa: E731
    run()  # two jobs on 4 cores
    last_job = pending_shards(runs, 2, out)[-1:]
    monkeypatch.setattr(suite, "pending_shards", lambda runs, jobs, out_dir: last_job)
    run()  # the resume: one job left
    assert threads == ["2", "2", "2"]
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)))
    with pytest.warns(ThreadsChangedWarning, match=r"2 threads each \(2 jobs, 4 cores\); now 4"):
        run()
    assert threads[-1] == "4"
    # pinned to one core (taskset -c 0) on the same machine: the cores it may use decide
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    with pytest.warns(ThreadsChangedWarning, match=r"now 1 \(2 jobs, 1 cores\)"):
        run()
    assert threads[-1] == "1"


def fit_at_once(run: FitRun) -> dict[str, Any]:
    """Fake ``run_fit``: a finished run's metrics."""
    return {"params": 10, "test_acc": 0.5}


def test_a_resumes_jobs_are_counted_as_the_jobs_it_launched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Outside check 5y, job labels: a rerun that launched 1 job of a 3-job plan said its
    progress lines as ``[3-of-3 1/1]`` and its job as ``sanbench-suite-1-of-1``. Each line now
    counts the jobs this command launched (the results file stays its shard's)."""
    import torch

    from harness.launch import JobOutcome, processes
    from harness.launch.threads import THREAD_VARIABLES

    def inline(calls: list, folder: Path, name: str, environment: dict, *more: Any) -> list:
        n = len(calls)
        return [JobOutcome(f"{name}-{k}-of-{n}", call()) for k, call in enumerate(calls, 1)]

    for variable in THREAD_VARIABLES:  # the jobs' thread settings, undone after the test
        monkeypatch.setenv(variable, os.environ.get(variable, "1"))
    monkeypatch.setattr(torch, "set_num_threads", lambda threads: None)
    monkeypatch.setattr(processes, "launch_processes", inline)
    runs, out = expand_grid(["sst1"], ["bilstm", "mtsa", "multi_cnn"], seeds=1), tmp_path / "s"
    arguments = {"out_dir": out, "fit": fit_at_once, "data_dir": None, "embeddings": None}
    run_as_jobs(runs, LaunchOptions("process", jobs=3), **arguments, overrides={})
    (out / "results-3-of-3.csv").unlink()
    capsys.readouterr()
    assert run_as_jobs(runs, LaunchOptions("process", jobs=3), **arguments, overrides={}) == (
        ["3-of-3"],
        None,
    )  # recorded by the suite's manifest as {"jobs": {"launched": 1, "shards": ["3-of-3"]}}
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "[1-of-1 1/1] sst1 multi_cnn seed0", lines
    assert lines[-1].startswith("job sanbench-suite-1-of-1: 1 ran"), lines
    assert (out / "results-3-of-3.csv").is_file()
