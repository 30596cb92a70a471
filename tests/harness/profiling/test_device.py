"""``--device`` is resolved where the sweep runs: in this process for a sweep run here, in each
job for ``--launcher local|slurm`` (on the job's node, not the submitting one). Checked on a
CPU machine: a job's ``cuda`` is a failed job of one line, and a submitting process that sees
CUDA (faked here) does not decide a job's device."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from rich.console import Console

from harness.cli import main
from harness.errors import InputError
from harness.launch import JobOutcome, submitit_jobs
from harness.measurement.profiled_step import Point
from harness.measurement.tensor_memory import MB
from harness.memory_prediction.step import Prediction
from harness.profiling.grid import EncoderSpec
from harness.profiling.jobs import run_encoder
from harness.profiling.options import ProfileOptions
from harness.profiling.sweep import Sweep, make_row
from harness.profiling.sweep_config import SweepConfig
from reports.contracts.profile_run import ENVIRONMENT_COLUMNS
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
    with pytest.raises(InputError, match=f"--device {re.escape(device)}: expected auto, cpu, cuda"):
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


def sweep_config(device: str, budget: float | None, compile_model: bool = False) -> SweepConfig:
    encoders = (EncoderSpec("test_linear"),)
    return SweepConfig(
        encoders, (8,), ("train",), 2, 8, device, "fp32", 3, budget, "glibc", None,
        imports=("tests.harness.fixtures.profiling_workloads",), compile=compile_model,
    )  # fmt: skip


@pytest.mark.parametrize("compile_model", [False, True])
def test_a_measured_row_states_the_predictions_error(compile_model: bool) -> None:
    """Issue 57.5: each row says how far the prediction is from what was measured (the eager
    step's peak when compiled, which is what is predicted); a predicted-only row has none."""
    config = sweep_config("cuda", None, compile_model)
    env = dict.fromkeys(ENVIRONMENT_COLUMNS, "x")
    point = Point("test_linear", 8, "train", 2, 8)
    prediction = Prediction(100 * MB, 10, 5, 1.0)
    reply = {"status": "ok", "peak_mem_mb": 125.0, "time_ms_median": 1.0}
    if compile_model:
        reply = {**reply, "peak_mem_mb": 90.0, "eager_peak_mem_mb": 125.0}
    row = make_row(point, config, env, reply, prediction)
    assert row["predicted_error_pct"] == -20.0
    predicted = make_row(point, config, env, {"status": "predicted"}, prediction)
    assert predicted["predicted_error_pct"] == ""


def test_a_cuda_point_is_not_skipped_for_its_cpu_prediction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 57.5: the prediction models the CPU's kernels; on CUDA a point predicted over the
    budget is measured (the budget caps the caching allocator there), on CPU it is skipped."""
    measured = []
    prediction = Prediction(2048 * MB, 10, 5, 1.0)
    point = Point("test_linear", 8, "train", 2, 8)
    for device in ("cuda", "cpu"):
        sweep = Sweep(sweep_config(device, 1024.0), tmp_path / device, {}, Console())
        monkeypatch.setattr(sweep, "_request", lambda point: measured.append(point) or {
            "status": "ok"})  # fmt: skip
        reply = sweep.measure_or_skip(point, prediction)
        assert reply["status"] == ("ok" if device == "cuda" else "skipped_oom")
    assert measured == [point]


def test_the_warm_up_runs_in_the_measured_dtype(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 57.5: the warm-up ran fp32 whatever the sweep's dtype, so the first bf16/fp16
    kernels (their compiled variants, cuBLAS's half-precision algorithms) were made inside the
    measured step."""
    from harness.profiling import worker

    seen: list[torch.dtype | None] = []

    class Recording(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.proj = torch.nn.Linear(8, 8)

        def forward(self, x: torch.Tensor, mask: torch.Tensor) -> SimpleNamespace:
            y = self.proj(x)
            seen.append(y.dtype)
            return SimpleNamespace(pooled=y.mean(1))

    monkeypatch.setattr(worker, "build_encoder", lambda name, **options: Recording())
    models = worker.Models(torch.device("cpu"), compile_model=False)
    models.get(Point("disan", 16, "infer", 2, 8), "bf16")  # a registered name in any order
    assert seen == [torch.bfloat16]


def test_the_cuda_budget_is_beyond_the_workers_start_up_as_on_cpu(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 57.9: ``--max-memory-mb`` on CUDA capped the whole caching allocator at the budget
    (start-up included), on CPU the memory beyond start-up. Now both: the allocator may hold
    what it held after start-up plus the budget."""
    from harness.profiling import worker

    calls = []
    total = 16 * 1024 * MB
    monkeypatch.setattr(torch.cuda, "empty_cache", lambda: calls.append("empty"))
    monkeypatch.setattr(torch.cuda, "memory_reserved", lambda device: 512 * MB)
    monkeypatch.setattr(torch.cuda, "get_device_properties",
                        lambda device: SimpleNamespace(total_memory=total))  # fmt: skip
    monkeypatch.setattr(torch.cuda, "set_per_process_memory_fraction",
                        lambda fraction, device: calls.append(fraction))  # fmt: skip
    baseline = worker.apply_memory_limit(torch.device("cuda", 0), 1024.0)
    assert baseline == 512.0 and calls == ["empty", (512 + 1024) * MB / total]
