"""``--launcher process|local|slurm`` and the SLURM resources of its jobs, for every command."""

from __future__ import annotations

import os
import shlex
import shutil
from dataclasses import dataclass
from typing import Any

from harness.command_parser import as_typed, integer_problems
from harness.errors import InputError

LAUNCHERS = ("process", "local", "slurm")


@dataclass(frozen=True)
class LaunchOptions:
    """Where jobs run and what each SLURM job asks for (``local`` uses only the time limit)."""

    launcher: str | None = None
    """run the work as jobs: processes on this console, forked from one server (process),
    submitit jobs on this machine (local) or on SLURM (slurm); default: in this process
    (reproduce: process)"""
    jobs: int | None = None
    """jobs: suite, parts of the grid (default one per cell); reproduce, parts of the grid
    (default 2); tune, workers sharing the study (default 1); profile, always one per encoder
    variant"""
    slurm_partition: str | None = None
    """SLURM partition (default: the cluster's)"""
    slurm_time: int = 60
    """minutes per job"""
    slurm_gpus: int = 0
    """GPUs per job"""
    slurm_cpus: int = 2
    """CPUs per job"""
    slurm_mem_gb: float | None = None
    """memory per job in GB"""
    slurm_parallelism: int = 64
    """jobs of the array running at once"""

    def __post_init__(self) -> None:
        problems = []
        if self.launcher is not None and self.launcher not in LAUNCHERS:
            problems.append(f"--launcher {self.launcher!r}: expected one of {', '.join(LAUNCHERS)}")
        least = {"jobs": 1, "slurm_time": 1, "slurm_gpus": 0, "slurm_cpus": 1}
        problems += integer_problems(self, {**least, "slurm_parallelism": 1})
        if self.slurm_mem_gb is not None and not self.slurm_mem_gb > 0:
            option, text = as_typed("slurm_mem_gb", self.slurm_mem_gb)
            problems.append(f"{option} {text}: expected a positive number")
        if problems:
            raise InputError("\n".join(problems))

    @property
    def in_process(self) -> bool:
        """No ``--launcher``: the work runs in this process, not as jobs."""
        return self.launcher is None

    @property
    def cluster(self) -> str:
        """submitit's cluster: ``slurm`` when asked for, else ``local``."""
        return "slurm" if self.launcher == "slurm" else "local"

    def problems(self) -> list[str]:
        """Why these jobs cannot be submitted from here: ``slurm`` without ``sbatch`` on PATH."""
        if self.launcher == "slurm" and shutil.which("sbatch") is None:
            return [
                "--launcher slurm: sbatch not found on PATH; submit from a SLURM login node "
                "(or try it with --launcher local)"
            ]
        return []

    def check_available(self) -> None:
        """Raise :class:`InputError` naming :meth:`problems`, if any."""
        problems = self.problems()
        if problems:
            raise InputError("\n".join(problems))

    def executor_parameters(self, name: str) -> dict[str, Any]:
        """Keyword arguments of ``submitit.AutoExecutor.update_parameters``."""
        parameters: dict[str, Any] = {
            "name": name,
            "timeout_min": self.slurm_time,
            "cpus_per_task": self.slurm_cpus,
            "gpus_per_node": self.slurm_gpus,
            "slurm_array_parallelism": self.slurm_parallelism,
        }
        if self.slurm_partition:
            parameters["slurm_partition"] = self.slurm_partition
        if self.slurm_mem_gb is not None:
            parameters["mem_gb"] = self.slurm_mem_gb
        if self.cluster == "local":  # its controllers never see the terminal's Ctrl-C
            parameters["local_setup"] = ["trap '' INT", visible_devices_line()]
        return parameters


def visible_devices_line() -> str:
    """The shell line that gives a ``local`` job the GPUs this process sees: submitit's local
    executor sets a job's CUDA_VISIBLE_DEVICES to the first ``gpus_per_node`` devices
    (``--slurm-gpus``, 0 by default), so a ``--device cuda`` job saw none and ``auto`` ran on
    the CPU; its ``setup`` lines run in the job's shell before the job."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is None:
        return "unset CUDA_VISIBLE_DEVICES"
    return f"export CUDA_VISIBLE_DEVICES={shlex.quote(visible)}"
