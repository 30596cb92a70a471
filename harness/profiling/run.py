"""``run_sweep``: one profile sweep into a run folder, the library call behind ``sanbench
profile`` and its per-encoder jobs (``harness.profiling.jobs``)."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import torch
from rich.console import Console

from harness.environment import environment
from harness.errors import InputError, RunFailedError, RunInterruptedError
from harness.profiling.options import SWEEP_KEYS
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


def recorded_config(out: Path, config: SweepConfig) -> dict[str, Any]:
    """``config`` as the manifest records it (JSON values: lists for tuples)."""
    fields = {k: v for k, v in config.__dict__.items() if k not in ("preload", "encoders")}
    record = {**fields, "encoders": [spec.label for spec in config.encoders]}
    return json.loads(json.dumps({**record, "csv": profile_csv(out).name}))


def sweep_differences(manifest: dict[str, Any], config: dict[str, Any]) -> list[str]:
    """One line per setting of ``SWEEP_KEYS`` on which the manifest's sweep and ``config``
    (as :func:`recorded_config` gives it) differ."""
    recorded = manifest.get("config", {})
    return [
        f"{key}: {recorded.get(key)!r} recorded, {config.get(key)!r} now"
        for key in SWEEP_KEYS
        if recorded.get(key) != config.get(key)
    ]


def write_manifest(
    out: Path,
    config: SweepConfig,
    env: dict[str, str],
    command: str,
    options: dict[str, Any] | None = None,
) -> None:
    """The run's manifest: its command, its sweep and the options that made it (``options``,
    what ``--resume`` continues). A resume keeps ``created``, ``command`` and ``options`` and
    appends to ``resumed``; another sweep never overwrites it (:class:`InputError`)."""
    old = read_manifest_if_any(out, "profile")
    record = recorded_config(out, config)
    differences = sweep_differences(old, record) if old else []
    if differences:
        raise InputError(
            "\n".join(
                [
                    f"{out} holds another sweep; nothing was written:",
                    *differences,
                    f"resume it as recorded (sanbench profile --resume --out {out}) or "
                    "choose another --out",
                ]
            )
        )
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    manifest = {
        "kind": "profile",
        "command": old.get("command", command),
        "created": old.get("created", now),
        "resumed": [*old.get("resumed", []), now] if old else [],
        "resume_commands": [*old.get("resume_commands", []), command] if old else [],
        "options": old.get("options", options),
        "environment": env,
        "config": record,
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
    options: dict[str, Any] | None = None,
) -> Path:
    """Sweep ``config`` into ``out`` (resuming its rows) and write its manifest, with the
    ``options`` that made it; returns ``out``.

    Raises ``ValueError`` or :class:`InputError` when ``out`` holds another sweep (nothing
    written),
    :class:`RunInterruptedError` on Ctrl-C (finished rows are kept) and :class:`RunFailedError`
    when the measuring worker cannot start.
    """
    console = console or Console(quiet=True)
    env = sweep_environment(config)
    sweep = Sweep(config, out, env, console)  # checks that out's rows are of this sweep
    write_manifest(out, config, env, command, options)
    try:
        sweep.run(progress=progress)
    except KeyboardInterrupt:
        raise RunInterruptedError(
            f"interrupted; finished rows are kept. Resume: sanbench profile --resume --out {out}"
        ) from None
    except RuntimeError as error:  # a worker that cannot start (see worker.log)
        raise RunFailedError(str(error)) from None
    return out


def one_encoder(config: SweepConfig, label: str) -> SweepConfig:
    """``config`` restricted to the encoder variant ``label``."""
    return replace(config, encoders=tuple(s for s in config.encoders if s.label == label))
