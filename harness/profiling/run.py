"""``run_sweep``: one profile sweep into a run folder, the library call behind ``sanbench
profile`` and its per-encoder jobs (``harness.profiling.jobs``)."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from pathlib import Path

import torch
from rich.console import Console

from harness.environment import environment
from harness.errors import RunFailedError, RunInterruptedError
from harness.profiling.sweep import Sweep, SweepConfig
from reports.contracts.manifest import read_manifest_if_any
from reports.contracts.manifest import write_manifest as write_run_manifest
from reports.contracts.profile_run import profile_csv, results_file, variant_label


def sweep_environment(config: SweepConfig) -> dict[str, str]:
    """The machine and library versions recorded with every row and in the manifest."""
    env = {**environment(torch.device(config.device)), "allocator": config.allocator}
    if config.threads is not None:
        env["threads"] = str(config.threads)
    return env


def write_manifest(out: Path, config: SweepConfig, env: dict[str, str], command: str) -> None:
    """The run's manifest; a resume keeps ``created`` and appends to ``resumed``."""
    old = read_manifest_if_any(out, "profile")
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    manifest = {
        "kind": "profile",
        "command": command,
        "created": old.get("created", now),
        "resumed": [*old.get("resumed", []), now] if old else [],
        "environment": env,
        "config": {
            **{k: v for k, v in config.__dict__.items() if k not in ("preload", "encoders")},
            "encoders": [spec.label for spec in config.encoders],
            "csv": profile_csv(out).name,
        },
    }
    write_run_manifest(out, manifest)


def failed_points(out: Path) -> list[str]:
    """The points of ``out/profile.csv`` that ended in an error (not an OOM: that is a result)."""
    rows = results_file(out).rows()
    return [
        f"{variant_label(row['encoder'], row['options'])} L={row['seq_len']} "
        f"{row['mode']}: {row['message']}"
        for row in rows
        if row["status"] == "error"
    ]


def contended_points(out: Path) -> int:
    """How many points of ``out/profile.csv`` ``--strict`` refused as contended."""
    rows = results_file(out).rows()
    return sum(row["status"] == "contended" for row in rows)


def run_sweep(
    config: SweepConfig,
    out: Path,
    command: str,
    console: Console | None = None,
    progress: bool = False,
) -> Path:
    """Sweep ``config`` into ``out`` (resuming its rows) and write its manifest; returns ``out``.

    Raises ``ValueError`` when ``out`` holds another sweep (nothing written),
    :class:`RunInterruptedError` on Ctrl-C (finished rows are kept) and :class:`RunFailedError`
    when the measuring worker cannot start.
    """
    console = console or Console(quiet=True)
    env = sweep_environment(config)
    sweep = Sweep(config, out, env, console)  # checks that out's rows are of this sweep
    write_manifest(out, config, env, command)
    try:
        sweep.run(progress=progress)
    except KeyboardInterrupt:
        raise RunInterruptedError(
            f"interrupted; finished rows are kept. Resume: --resume --out {out}"
        ) from None
    except RuntimeError as error:  # a worker that cannot start (see worker.log)
        raise RunFailedError(str(error)) from None
    return out


def one_encoder(config: SweepConfig, label: str) -> SweepConfig:
    """``config`` restricted to the encoder variant ``label``."""
    return replace(config, encoders=tuple(s for s in config.encoders if s.label == label))
