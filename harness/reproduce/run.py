"""``run_reproduction``: the preset's runs on worker processes, resumed after a kill without
repeating finished runs, then the suite's tables and the reproduction tables
(``OUT/reproduction/``). Run it when nothing is being timed."""

from __future__ import annotations

import dataclasses
import os
import platform
import signal
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness.errors import InputError, RunFailedError, RunInterruptedError
from harness.redaction import recorded_command
from harness.reproduce.options import ReproduceOptions
from harness.reproduce.preset import PRESETS, Preset
from harness.training.shared_options import fit_overrides
from reports.contracts.manifest import manifest_path, read_manifest_if_any
from reports.contracts.manifest import write_manifest as write_run_manifest
from reports.contracts.reproduction import FOLDER, MARKDOWN, table_path
from reports.contracts.suite_results import RUNS_FOLDER


def check_inputs(preset: Preset, data_dir: Path, embeddings: Path | None) -> None:
    """Fail before any training when a run's config is wrong or a file the preset needs is
    missing or malformed (every bad line of every file at once)."""
    from harness.suite.runner import fit_run
    from harness.training.inputs import check_fit_inputs

    per_task = {run.task: run for run in preset.grid()}.values()
    check_fit_inputs(
        fit_run(run, Path("unused"), data_dir, embeddings, preset.overrides) for run in per_task
    )


def machine() -> str:
    """CPU model, core count, OS and torch version."""
    import torch

    model = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    system = f"{platform.system()} {platform.release()}"
    return f"{model}, {os.cpu_count()} cores, {system}, torch {torch.__version__}"


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def read_manifest(out: Path) -> dict[str, Any]:
    return read_manifest_if_any(out, "reproduce")


def write_manifest(out: Path, manifest: dict[str, Any]) -> None:
    manifest["updated"] = datetime.now(UTC).isoformat(timespec="seconds")
    write_run_manifest(out, manifest)


def build_tables(out: Path, preset: Preset, manifest: dict[str, Any]) -> list[Path]:
    """The suite's tables, then the reproduction's (``OUT/reproduction/``)."""
    from harness.reproduce.outputs import write_outputs
    from harness.reproduce.tables import reproduction
    from harness.suite.aggregate import aggregate, finished, load_results

    written = aggregate(out, param_encoders=preset.encoders)
    done = finished(load_results(out))
    result = reproduction(done, list(preset.tasks), list(preset.encoders))
    return written + write_outputs(out, result, done, preset, manifest)


def reproduce(
    preset: Preset,
    out: Path,
    data_dir: Path,
    embeddings: Path | None,
    workers: int,
    threads: int,
    command: str,
) -> int:
    """Run (or resume) ``preset`` into ``out`` and write every table; 1 when a run failed."""
    from harness.reproduce.outputs import caps, departures
    from harness.reproduce.parallel import run_parallel

    out.mkdir(parents=True, exist_ok=True)
    manifest = read_manifest(out)
    manifest.update(
        kind="reproduce",
        command=command,
        machine=machine(),
        preset=preset.to_dict(),
        departures=departures(preset, None if embeddings is None else embeddings.name),
        caps=caps(preset),  # the tables count the runs that ended on these, not on early stop
        workers=workers,
        threads_per_run=threads,
        files={"reproduction": f"{FOLDER}/", "tables": "tables/", "runs": f"{RUNS_FOLDER}/"},
    )
    session = {"started": datetime.now(UTC).isoformat(timespec="seconds")}
    session["load_start"] = load_average()
    manifest.setdefault("sessions", []).append(session)
    write_manifest(out, manifest)
    start = time.perf_counter()
    try:
        codes = run_parallel(
            preset,
            out_dir=out,
            data_dir=data_dir,
            embeddings=embeddings,
            workers=workers,
            threads=threads,
        )
    finally:
        session.update(wall_s=round(time.perf_counter() - start, 1), load_end=load_average())
        write_manifest(out, manifest)
    build_tables(out, preset, manifest)
    return 1 if any(codes) else 0


def _sigterm(signum: int, frame: object) -> None:
    raise RunInterruptedError("terminated; rerun the same command to resume", signum)


def run_reproduction(options: ReproduceOptions) -> Path:
    """Run (or resume) ``options.preset`` into ``options.out``, then every table; returns the
    reproduction table's Markdown file. :class:`RunFailedError` after the tables when a run
    failed; SIGTERM stops the workers and records the session."""
    out = options.out
    if options.tables_only:
        manifest = read_manifest(out)
        if "preset" not in manifest:
            raise InputError(f"--tables-only: {manifest_path(out)} not found; run first")
        build_tables(out, Preset.from_dict(manifest["preset"]), manifest)
        return table_path(out, MARKDOWN)
    data_dir, embeddings = options.inputs.data_dir, options.inputs.embeddings
    problems = options.inputs.file_problems("unless --tables-only")
    if problems or data_dir is None:
        raise InputError("\n".join(problems))
    preset = PRESETS[options.preset]
    overrides = {**preset.overrides, **fit_overrides(options.inputs, None, options.fit)}
    preset = dataclasses.replace(preset, overrides=overrides)
    check_inputs(preset, data_dir, embeddings)
    signal.signal(signal.SIGTERM, _sigterm)  # the workers are stopped, the session recorded
    status = reproduce(
        preset,
        out,
        data_dir,
        embeddings,
        options.workers,
        options.threads,
        recorded_command(),
    )
    if status:
        raise RunFailedError("a run failed (its row and error.txt say why); rerun to retry it")
    return table_path(out, MARKDOWN)
