"""A profile sweep's ``manifest.json``: the machine, the sweep it resolved to and the options
that made it; a resume appends to it and another sweep never overwrites it."""

from __future__ import annotations

import datetime as dt
import json
import shlex
from pathlib import Path
from typing import Any

from harness.errors import InputError
from harness.profiling.device import resolve_device
from harness.profiling.options import SWEEP_KEYS
from harness.profiling.sweep_config import SweepConfig
from harness.redaction import recorded_command
from reports.contracts.manifest import read_manifest, read_manifest_if_any
from reports.contracts.manifest import write_manifest as write_run_manifest
from reports.contracts.profile_run import profile_csv


def jobs_environment(folders: list[Path]) -> dict[str, str]:
    """The environment the manifests of the jobs' ``folders`` record (a job that has not
    written one adds nothing): each key's value, or the values of jobs that differ (another
    node's GPU) joined with ", "."""
    values: dict[str, set[str]] = {}
    for folder in folders:
        for key, value in read_manifest_if_any(folder, "profile").get("environment", {}).items():
            values.setdefault(key, set()).add(str(value))
    return {key: ", ".join(sorted(found)) for key, found in values.items()}


def record_environment(out: Path, folders: list[Path]) -> None:
    """Replace the environment that ``out``'s manifest records with the one its jobs' manifests
    record (:func:`jobs_environment` of their ``folders``, once they have run)."""
    env = jobs_environment(folders)
    write_run_manifest(out, {**read_manifest(out, "profile"), "environment": env})


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
        if not same_setting(key, recorded.get(key), config.get(key))
    ]


def same_setting(key: str, recorded: Any, now: Any) -> bool:
    """Whether a sweep's setting ``key`` is the recorded one: a device also when one side is
    ``auto`` and the other what auto is on this machine. A sweep run as jobs records the device
    as asked (each job resolves it on its node), one run here as resolved: until 2026-12-01 a
    ``--launcher process`` sweep's printed resume, run here, was refused "device: 'auto'
    recorded, 'cpu' now" (issue 54). Its rows' own device is checked row by row
    (``harness.profiling.sweep.check_compatible``)."""
    if recorded == now:
        return True
    if key != "device" or "auto" not in (recorded, now):
        return False
    return resolve_device("auto") == (now if recorded == "auto" else recorded)


def write_manifest(
    out: Path,
    config: SweepConfig,
    env: dict[str, str],
    command: str,
    options: dict[str, Any] | None = None,
    config_file: Path | None = None,
) -> None:
    """The run's manifest: its command, its sweep and the options that made it (``options``,
    what ``--resume`` continues). A resume keeps ``created``, ``command`` and ``options`` and
    appends to ``resumed``; another sweep never overwrites it (:class:`InputError`). A new
    sweep of a ``--config`` file keeps its resolved config in ``config_file`` (the process that
    read it), and its command names that copy (:func:`recorded_command`): it runs as printed
    from any folder."""
    old = read_manifest_if_any(out, "profile")
    record = recorded_config(out, config)
    differences = sweep_differences(old, record) if old else []
    if differences:
        raise InputError(
            "\n".join(
                [
                    f"{out} holds another sweep; nothing was written:",
                    *differences,
                    "resume it as recorded ("
                    + shlex.join(["sanbench", "profile", "--resume", "--out", str(out)])
                    + ") or "
                    "choose another --out",
                ]
            )
        )
    if not old and config_file is not None:
        command = recorded_command(config_file=config_file)
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
