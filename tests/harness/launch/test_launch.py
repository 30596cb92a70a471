"""``harness.launch`` through submitit's local executor: results back, errors reported."""

from __future__ import annotations

import argparse
import functools
import os
from pathlib import Path

import pytest

from harness.launch import LaunchOptions, add_launcher_arguments, launch

ROOT = Path(__file__).resolve().parents[3]


def square_and_note(x: int, log: Path) -> int:
    with log.open("a") as handle:
        handle.write(f"{x} {os.getpid()}\n")
    if x < 0:
        raise ValueError(f"negative input {x}")
    return x * x


@pytest.fixture(autouse=True)
def _importable_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    """Jobs unpickle calls defined in this module: the job processes must import ``tests``."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))


@pytest.mark.slow
def test_each_call_is_one_job_and_errors_are_reported(tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    calls = [functools.partial(square_and_note, x, log) for x in (3, -1, 4)]
    outcomes = launch(calls, LaunchOptions(time_min=5), folder=tmp_path / "jobs", name="t")
    assert [o.ok for o in outcomes] == [True, False, True]
    assert [outcomes[0].result, outcomes[2].result] == [9, 16]
    assert "negative input -1" in outcomes[1].error
    assert outcomes[1].stderr is not None and outcomes[1].stderr.is_file()
    pids = {line.split()[1] for line in log.read_text().splitlines()}
    assert len(pids) == 3 and str(os.getpid()) not in pids  # three job processes, not this one


def test_command_line_options() -> None:
    parser = argparse.ArgumentParser()
    add_launcher_arguments(parser, "jobs")
    assert LaunchOptions.from_args(parser.parse_args([])) is None  # in-process
    argv = ["--launcher", "slurm", "--jobs", "4", "--slurm-partition", "gpu", "--slurm-gpus", "1"]
    options = LaunchOptions.from_args(parser.parse_args([*argv, "--slurm-time", "30"]))
    assert options == LaunchOptions("slurm", 4, "gpu", time_min=30, gpus=1)
    parameters = options.executor_parameters("suite")
    assert parameters["slurm_partition"] == "gpu" and parameters["gpus_per_node"] == 1
    assert parameters["timeout_min"] == 30 and "mem_gb" not in parameters
    with pytest.raises(ValueError, match="--jobs must be a positive integer"):
        LaunchOptions(jobs=0)


def test_slurm_without_sbatch_is_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    with pytest.raises(ValueError, match="sbatch not found on PATH"):
        LaunchOptions("slurm").check_available()
    LaunchOptions("local").check_available()
