"""``--device`` is resolved where the sweep runs: in this process for a sweep run here, in each
job for ``--launcher local|slurm`` (on the job's node, not the submitting one). Checked on a
CPU machine: a job's ``cuda`` is a failed job of one line, and a submitting process that sees
CUDA (faked here) does not decide a job's device."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from harness.cli import main
from harness.errors import InputError
from harness.launch import JobOutcome, submitit_jobs
from harness.profiling.options import ProfileOptions
from harness.profiling.profile import run_encoder
from reports.profile.data import load_run

ROOT = Path(__file__).resolve().parents[3]
SWEEP = [
    "profile",
    "--import",
    "tests.harness.fixtures.profiling_workloads",
    *("--encoders", "test_linear", "--lengths", "8", "--modes", "infer"),
    *("--batch-size", "2", "--dim", "8", "--repeats", "3", "--no-progress", "--no-report"),
]


@pytest.fixture
def in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    """Jobs import the test workloads from the checkout."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))


@pytest.mark.parametrize("device", ["gpu", "cuda:x", "CPU", "cuda:"])
def test_a_misspelt_device_is_bad_input(device: str) -> None:
    with pytest.raises(InputError, match=f"--device '{device}': expected auto, cpu, cuda"):
        ProfileOptions(device=device)


def test_cuda_here_without_cuda_exits_2_and_creates_nothing(
    tmp_path: Path, in_repo: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """A sweep run in this process: the device is this machine's, checked before any work."""
    out = tmp_path / "run"
    assert main([*SWEEP, "--device", "cuda", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    (line,) = [line for line in err.splitlines() if "--device" in line]
    assert "--device cuda: " in line and "0 CUDA devices" in line and "Traceback" not in err
    assert not out.exists()


def test_slurm_jobs_get_the_device_as_asked_and_resolve_it_on_their_node(
    tmp_path: Path, in_repo: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """The documented command (docs/scaling.md), ``--device cuda --launcher slurm --slurm-gpus
    1``, from a login node without CUDA (this machine, with an ``sbatch`` on its PATH): each
    job gets the device as asked, its node's budget and cores (no threads imposed), and
    resolves the device where it runs; the fake executor runs the jobs here, where they fail,
    one line each."""
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "sbatch").write_text("#!/bin/sh\nexit 1\n")
    (folder / "sbatch").chmod(0o755)
    monkeypatch.setenv("PATH", os.pathsep.join([str(folder), os.environ["PATH"]]))
    submitted = []

    def run_here(calls, options, folder, name):  # SLURM's place, as launch calls it
        submitted.extend(calls)
        outcomes = []
        for number, call in enumerate(calls):
            try:
                outcomes.append(JobOutcome(str(number), result=call()))
            except Exception as error:
                outcomes.append(JobOutcome(str(number), error=f"{type(error).__name__}: {error}"))
        return outcomes

    monkeypatch.setattr(submitit_jobs, "launch_submitit", run_here)
    out = tmp_path / "run"
    slurm = ["--launcher", "slurm", "--slurm-gpus", "1"]
    assert main([*SWEEP, "--device", "cuda", *slurm, "--out", str(out)]) == 1
    (job,) = submitted
    assert job.func is run_encoder  # not wrapped to this machine's thread count
    assert job.args[0].device == "cuda" and job.args[0].max_memory_mb is None
    died = [line for line in capsys.readouterr().out.splitlines() if " died: " in line]
    assert len(died) == 1 and "InputError: --device cuda: " in died[0]


@pytest.mark.slow
def test_a_job_without_the_cuda_it_asks_for_fails_in_one_line(
    tmp_path: Path, in_repo: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 57.3: the submitting process refused --device cuda where it had no CUDA itself (a
    login node). Now the job decides, and says in one line that its node has none."""
    out = tmp_path / "run"
    assert main([*SWEEP, "--device", "cuda", "--launcher", "local", "--out", str(out)]) == 1
    captured = capsys.readouterr()
    died = [line for line in captured.out.splitlines() if " died: " in line]
    assert len(died) == 1 and "--device cuda: " in died[0] and "0 CUDA devices" in died[0]
    assert "Traceback" not in captured.err and "1 of 1 jobs died" in captured.err
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["device"] == "cuda"  # as asked; no job ran to record its own


@pytest.mark.slow
def test_a_job_resolves_auto_on_its_own_node(
    tmp_path: Path, in_repo: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 57.3: ``--device auto`` was resolved by the submitting process, so every job ran on
    that machine's device. Here the submitting process sees CUDA (faked) and the job's node has
    none: the job profiles on its CPU and the manifest records the job's device."""
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    out = tmp_path / "run"
    assert main([*SWEEP, "--device", "auto", "--launcher", "local", "--out", str(out)]) == 0
    rows = load_run(out).rows
    assert list(rows["status"]) == ["ok"] and list(rows["device"]) == ["cpu"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["device"] == "auto" and manifest["options"]["device"] == "auto"
    job = json.loads((out / "jobs" / "test_linear" / "manifest.json").read_text())
    assert job["config"]["device"] == "cpu" and job["environment"]["device"] == "cpu"
    assert manifest["environment"] == job["environment"]
