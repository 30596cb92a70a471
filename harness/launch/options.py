"""``--launcher local|slurm`` and the SLURM resources of its jobs, shared by the commands."""

from __future__ import annotations

import argparse
import shutil
from dataclasses import dataclass
from typing import Any

from harness.arguments import non_negative_int, positive_float, positive_int
from harness.errors import InputError

LAUNCHERS = ("local", "slurm")


@dataclass(frozen=True)
class LaunchOptions:
    """Where jobs run and what each SLURM job asks for (ignored by ``local`` but the timeout)."""

    launcher: str = "local"
    jobs: int | None = None
    partition: str | None = None
    time_min: int = 60
    gpus: int = 0
    cpus: int = 2
    mem_gb: float | None = None
    parallelism: int = 64

    def __post_init__(self) -> None:
        if self.launcher not in LAUNCHERS:
            raise ValueError(f"--launcher {self.launcher!r}: expected one of {LAUNCHERS}")
        if self.jobs is not None and self.jobs < 1:
            raise ValueError(f"--jobs must be a positive integer, not {self.jobs}")

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> LaunchOptions | None:
        """The options given on the command line, ``None`` without ``--launcher`` (in-process)."""
        if args.launcher is None:
            return None
        return cls(
            launcher=args.launcher,
            jobs=args.jobs,
            partition=args.slurm_partition,
            time_min=args.slurm_time,
            gpus=args.slurm_gpus,
            cpus=args.slurm_cpus,
            mem_gb=args.slurm_mem_gb,
            parallelism=args.slurm_parallelism,
        )

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
            "timeout_min": self.time_min,
            "cpus_per_task": self.cpus,
            "gpus_per_node": self.gpus,
            "slurm_array_parallelism": self.parallelism,
        }
        if self.partition:
            parameters["slurm_partition"] = self.partition
        if self.mem_gb is not None:
            parameters["mem_gb"] = self.mem_gb
        return parameters


def add_launcher_arguments(parser: argparse.ArgumentParser, jobs_help: str) -> None:
    """The ``launcher`` argument group: ``--launcher``, ``--jobs`` and ``--slurm-*``."""
    group = parser.add_argument_group("launcher (submitit; default: run in this process)")
    group.add_argument("--launcher", choices=LAUNCHERS, help="run as jobs on this machine or SLURM")
    group.add_argument("--jobs", type=positive_int, help=jobs_help)
    group.add_argument("--slurm-partition", help="SLURM partition (default: the cluster's)")
    group.add_argument("--slurm-time", type=positive_int, default=60, help="minutes per job (60)")
    group.add_argument("--slurm-gpus", type=non_negative_int, default=0, help="GPUs per job (0)")
    group.add_argument("--slurm-cpus", type=positive_int, default=2, help="CPUs per job (2)")
    group.add_argument("--slurm-mem-gb", type=positive_float, help="memory per job in GB")
    group.add_argument(
        "--slurm-parallelism",
        type=positive_int,
        default=64,
        help="jobs of the array running at once (64)",
    )
