"""``profile --launcher local|slurm`` (harness.profiling.jobs): which jobs a resume launches.
In-process, with ``launch`` replaced by a recorder: no job and no torch worker starts."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from harness.launch import LaunchOptions
from harness.profiling import jobs
from harness.profiling.grid import EncoderSpec
from harness.profiling.sweep import make_row
from harness.profiling.sweep_config import SweepConfig
from reports.contracts.profile_run import ENVIRONMENT_COLUMNS, results_file
from tests.harness.fixtures.terminal import foreground

LABELS = ("test_linear", "test_quadratic")
CONFIG = SweepConfig(
    tuple(EncoderSpec(label) for label in LABELS),
    (8, 16),
    ("infer", "train"),
    2,
    8,
    "cpu",
    "fp32",
    3,
    None,
    "glibc",
    None,
    predict_lengths=(32,),
)

ENVIRONMENT = dict.fromkeys(ENVIRONMENT_COLUMNS, "recorded by the job")


def finish(out: Path, label: str, keep: int | None = None) -> None:
    """Write rows of ``label``'s points into its job folder (the first ``keep``, or all)."""
    points = jobs.one_encoder(CONFIG, label).points()
    results = results_file(jobs.job_folder(out, label))
    for point in points[:keep]:
        results.append(make_row(point, CONFIG, ENVIRONMENT, {"status": "ok"}, None))


def launched(out: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], str]:
    """The variants whose job ``run_as_jobs`` started, and what it printed."""
    started: list[str] = []

    def record(calls: list[Any], *args: Any, **kwargs: Any) -> list[Any]:
        started.extend(call.args[1] for call in calls)  # run_encoder(config, label, ...)
        return []

    monkeypatch.setattr(jobs, "launch", record)
    console = Console(record=True, width=200)
    jobs.run_as_jobs(CONFIG, out, LaunchOptions(launcher="local"), "sanbench profile", console, {})
    return started, console.export_text()


def test_a_resume_launches_only_the_encoders_with_points_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    finish(tmp_path, "test_linear")
    finish(tmp_path, "test_quadratic", keep=-1)  # its predicted-only point is missing
    assert launched(tmp_path, monkeypatch)[0] == ["test_quadratic"]


def test_a_resume_with_every_point_done_starts_no_job_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for label in LABELS:
        finish(tmp_path, label)
    started, said = launched(tmp_path, monkeypatch)
    assert started == []
    assert "no job to launch" in said


def test_a_first_run_launches_every_encoder(tmp_path: Path, monkeypatch) -> None:
    assert launched(tmp_path, monkeypatch)[0] == list(LABELS)


@pytest.mark.parametrize(("signum", "word"), [(2, "interrupted"), (15, "terminated")])
def test_stopped_jobs_say_the_signal_the_rows_kept_and_the_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, signum: int, word: str
) -> None:
    """Outside check 10y item 1: a SIGTERM to ``profile --launcher process`` said "interrupted:
    3 of 3 jobs stopped, their runs saved" with no row anywhere, and a resume command without
    ``--resume`` (refused as printed). The jobs' rows are merged, then the sweep's own line."""
    from harness.errors import RunInterruptedError

    def stopped(calls: list[Any], *args: Any, **kwargs: Any) -> list[Any]:
        finish(tmp_path, "test_linear", keep=1)  # one job had measured one point
        raise RunInterruptedError("interrupted: 2 of 2 jobs stopped, their runs saved", signum)

    monkeypatch.setattr(jobs, "launch", stopped)
    options = LaunchOptions(launcher="process")
    with pytest.raises(RunInterruptedError) as raised:
        jobs.run_as_jobs(CONFIG, tmp_path, options, "sanbench profile", Console(quiet=True), {})
    resume = f"Resume: cd {os.getcwd()} && sanbench profile --resume --out {tmp_path}"
    assert str(raised.value) == f"{word}; 1 finished row kept. {resume}"
    assert raised.value.signum == signum


SANBENCH = str(Path(sys.executable).with_name("sanbench"))
SMALL_SWEEP = ["--encoders", "multi_cnn,word_s2t", "--lengths", "8,16", "--batch-size", "4",
               "--dim", "32", "--repeats", "3", "--no-report", "--no-progress"]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_stopped_process_sweeps_printed_resume_runs_as_pasted(
    tmp_path: Path, signum: int
) -> None:
    """Issue 54: ``profile --launcher process`` stopped printed ``Resume: sanbench profile
    --resume --out runs/p2`` (relative, without its folder), refused when pasted: "holds
    another sweep ... device: 'auto' recorded, 'cpu' now", and each job printed a resume of
    its own folder. Now the command's line alone names a resume, and it finishes the sweep."""
    popen = {"cwd": tmp_path, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}
    command = [SANBENCH, "profile", *SMALL_SWEEP, "--launcher", "process", "--out", "runs/p"]
    sweep = foreground(command, **popen)
    try:
        deadline = time.monotonic() + 600
        while not list((tmp_path / "runs/p/jobs").glob("*/profile.csv")):
            assert sweep.poll() is None, sweep.communicate()
            assert time.monotonic() < deadline, "no job wrote a row"
            time.sleep(0.1)
        os.killpg(sweep.pid, signum)
        stdout, stderr = sweep.communicate(timeout=600)
    finally:
        if sweep.poll() is None:
            os.killpg(sweep.pid, signal.SIGKILL)  # the test failed: leave no process behind
    assert sweep.returncode == 128 + signum, stderr
    assert "Resume:" not in stdout, stdout  # the jobs' lines
    line = stderr.strip().splitlines()[-1]
    resume = line.partition("Resume: ")[2]
    assert resume == f"cd {tmp_path} && sanbench profile --resume --out runs/p", line
    pasted = resume.replace("sanbench", SANBENCH, 1)
    resumed = subprocess.run(pasted, shell=True, cwd="/", capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert len(results_file(tmp_path / "runs/p").rows()) == 2 * 2 * 2  # encoders, lengths, modes
