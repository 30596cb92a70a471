"""``run_profile``: a ``sanbench profile`` sweep from its options to its report and verdict, top
to bottom: the options (resumed from the manifest with ``--resume``), the sweep they resolve to,
the sweep here (:func:`run_sweep`, ``harness.profiling.sweep`` measuring) or as one job per
encoder variant whose rows are merged, then the report and the failed or contended points.

The options are checked before torch is imported, so argument errors are immediate.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import importlib
import inspect
import platform
import re
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.console import console as rich_console
from harness.errors import InputError, RunFailedError, RunInterruptedError
from harness.launch import LaunchOptions
from harness.outdir import check_out_folder
from harness.profiling import allocator, grid
from harness.profiling.options import SWEEP_OPTIONS, ProfileOptions
from harness.redaction import recorded_command
from reports.contracts.manifest import has_manifest, manifest_path, read_manifest
from reports.contracts.profile_run import PROFILE_CSV, profile_csv, results_file, variant_label

if TYPE_CHECKING:
    from rich.console import Console

    from harness.profiling.sweep import SweepConfig

# Without --max-memory-mb a CPU worker may use this share of the RAM available at start, so a
# too-long point fails an allocation (an ``oom`` row) before the kernel's OOM killer acts.
DEFAULT_CPU_SHARE = 0.8
JOBS_FOLDER = "jobs"  # OUT/jobs/<variant>/: one job's sweep, merged into OUT/profile.csv


def resolve_device(name: str) -> str:
    """``--device`` (spelled as ``options.DEVICES``) on this machine: ``auto`` is cuda where
    CUDA is available, else cpu; :class:`InputError` for a CUDA device this machine lacks."""
    import torch

    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name.startswith("cuda"):
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        index = int(name.partition(":")[2] or 0)
        if index >= count:
            raise InputError(
                f"--device {name}: {platform.node()} has {count} CUDA devices (torch "
                f"{torch.__version__}); profile where they are (--launcher slurm --slurm-gpus 1)"
            )
    return name


def on_this_machine(config: SweepConfig) -> SweepConfig:
    """``config`` with what depends on the machine that runs the sweep resolved here: the
    device (``resolve_device``) and, without ``--max-memory-mb``, a CPU worker's budget. A job
    calls it on its own node, not the submitting process on its."""
    import psutil

    device = resolve_device(config.device)
    budget = config.max_memory_mb
    if budget is None and device == "cpu":
        budget = round(DEFAULT_CPU_SHARE * psutil.virtual_memory().available / 2**20)
    return dataclasses.replace(config, device=device, max_memory_mb=budget)


def option_problems(specs: list[grid.EncoderSpec], dim: int) -> list[str]:
    """Every variant whose keywords its encoder's builder refuses: an unknown keyword, or a
    value the builder rejects (built on the meta device: nothing is allocated)."""
    import torch

    from encoders import build_encoder, builder_accepts, encoder_entry

    problems = []
    for spec in specs:
        accepted = inspect.signature(encoder_entry(spec.name).builder).parameters
        unknown = [key for key, _ in spec.options if not builder_accepts(spec.name, key)]
        if unknown:
            problems.append(
                f"--encoders {spec.label}: {spec.name} takes no option {', '.join(unknown)}; "
                f"its options: {', '.join(k for k in accepted if k != 'input_dim')}"
            )
            continue
        try:
            with torch.device("meta"):
                build_encoder(spec.name, input_dim=dim, **spec.kwargs())
        except (ValueError, TypeError) as error:
            problems.append(f"--encoders {spec.label}: {error}")
    return problems


def sweep_config(options: ProfileOptions) -> SweepConfig:
    """The sweep's settings: the preset's where an option is unset, the encoders' variants
    checked on the meta device; the device and the default memory budget are left to
    :func:`on_this_machine`, where the sweep runs."""
    preset = grid.PRESETS[options.preset]
    repeats = options.repeats or preset.repeats
    lengths = tuple(grid.parse_lengths(options.lengths or preset.lengths))
    if options.predict_lengths:
        predict_lengths = tuple(grid.parse_lengths(options.predict_lengths))
    elif options.lengths:
        predict_lengths = lengths
    else:
        predict_lengths = tuple(grid.parse_lengths(preset.predict_lengths))
    modes = tuple(grid.parse_names(options.modes, grid.MODES, "--modes"))
    from encoders import list_encoders
    from encoders.plugins import imported_modules
    from harness.profiling.sweep import SweepConfig

    encoders, missing = grid.select_encoders(options.encoders or preset.encoders, list_encoders())
    if missing:
        rich_console(stderr=True).print(f"[yellow]not registered, skipped: {', '.join(missing)}")
    if not encoders:
        raise ValueError("no encoder to profile: none of the requested encoders is registered")
    dim = options.dim or preset.dim
    problems = option_problems(encoders, dim) + options.launch.problems()
    if problems:
        raise InputError("\n".join(problems))
    name, preload = allocator.resolve(options.allocator)
    return SweepConfig(
        encoders=tuple(encoders),
        lengths=lengths,
        modes=modes,
        batch_size=options.batch_size or preset.batch_size,
        dim=dim,
        device=options.device,
        dtype=options.dtype,
        repeats=repeats,
        max_memory_mb=options.max_memory_mb,
        allocator=name,
        preload=preload,
        imports=tuple(imported_modules()),
        skip_after_oom=options.skip_after_oom,
        predict_lengths=predict_lengths,
        predict_only=options.predict_only,
        compile=options.compile,
        threads=options.threads,
        strict=options.strict,
    )


def sweep_options(options: ProfileOptions) -> dict[str, Any]:
    """The options of ``SWEEP_OPTIONS`` as the manifest records them."""
    return {key: getattr(options, key) for key in SWEEP_OPTIONS}


def given_options(options: ProfileOptions) -> set[str]:
    """The fields of ``options`` that differ from their defaults (what a Python caller gave)."""
    defaults = ProfileOptions()
    return {
        f.name
        for f in dataclasses.fields(options)
        if getattr(options, f.name) != getattr(defaults, f.name)
    }


def resumed_options(options: ProfileOptions, given: Collection[str]) -> ProfileOptions:
    """``options`` with the sweep's options of the run in ``--out``, as its manifest records
    them; :class:`InputError` (nothing written) when there is no sweep to resume or when a
    ``given`` option contradicts the record, one line per contradiction."""
    assert options.out is not None
    if not has_manifest(options.out):
        if profile_csv(options.out).exists():  # rows without a record: checked row by row
            return options
        raise InputError(
            f"--resume: {manifest_path(options.out)} not found: {options.out} holds no profile "
            "sweep to resume; start one with --out (without --resume)"
        )
    recorded = read_manifest(options.out, "profile").get("options")
    if recorded is None:  # written before sanbench recorded the options: checked by its config
        return options
    problems = [
        f"--{key.replace('_', '-')} {getattr(options, key)}: the sweep in {options.out} was "
        f"recorded with {recorded.get(key)!r}"
        for key in SWEEP_OPTIONS
        if key in given and getattr(options, key) != recorded.get(key)
    ]
    if problems:
        raise InputError(
            "\n".join(
                [
                    *problems,
                    f"--resume continues the recorded sweep: drop these options "
                    f"(sanbench profile --resume --out {options.out}), or choose another --out",
                ]
            )
        )
    return dataclasses.replace(options, **{k: recorded[k] for k in SWEEP_OPTIONS if k in recorded})


def out_folder(options: ProfileOptions) -> Path:
    """``--out``, or a new ``runs/profile-<time>``; an existing sweep only with ``--resume``."""
    if options.out is None:
        stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        return Path("runs") / f"profile-{stamp}"
    check_out_folder(options.out)  # only a folder sanbench made (harness.outdir)
    if not options.resume and (profile_csv(options.out).exists() or has_manifest(options.out)):
        raise InputError(
            f"{options.out} holds a profile sweep: pass --resume to add its missing points, "
            "or choose another --out"
        )
    return options.out


def run_sweep(
    config: SweepConfig,
    out: Path,
    command: str,
    console: Console | None = None,
    progress: bool = False,
    options: dict[str, Any] | None = None,
) -> Path:
    """Sweep ``config`` (:func:`on_this_machine`) into ``out`` (resuming its rows) and write its
    manifest, with the ``options`` that made it; returns ``out``.

    Raises ``ValueError`` or :class:`InputError` when ``out`` holds another sweep or this
    machine lacks the device (nothing written),
    :class:`RunInterruptedError` on Ctrl-C (finished rows are kept) and :class:`RunFailedError`
    when the measuring worker cannot start.
    """
    from rich.console import Console

    from harness.profiling.sweep import Sweep
    from harness.profiling.sweep_manifest import sweep_environment, write_manifest

    console = console or Console(quiet=True)
    config = on_this_machine(config)
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
    return dataclasses.replace(
        config, encoders=tuple(s for s in config.encoders if s.label == label)
    )


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


def run_profile(options: ProfileOptions, given: Collection[str] | None = None) -> Path:
    """Run (or resume) the sweep, here or as one job per encoder variant, then its report;
    returns the run folder. ``given``: the options the user gave (default: those that differ
    from their defaults); ``--resume`` takes the others from the sweep's manifest, and the
    manifest refuses a sweep other than its own before any point is written
    (:func:`harness.profiling.sweep_manifest.write_manifest`).
    :class:`RunFailedError` when a point failed or was refused as contended (``--strict``)."""
    console = rich_console()
    if options.resume:
        options = resumed_options(options, given_options(options) if given is None else given)
    out = out_folder(options)
    config = sweep_config(options)
    command = recorded_command()
    if not options.launch.in_process:
        run_as_jobs(config, out, options.launch, command, console, sweep_options(options))
    else:
        config = on_this_machine(config)
        measured = (
            "no lengths measured" if config.predict_only else f"L={list(config.lengths)} measured"
        )
        console.print(
            f"profiling {len(config.encoders)} encoders x {len(config.modes)} modes on "
            f"{config.device} ({config.allocator}, budget {config.max_memory_mb} MB/point): "
            f"{measured}, L={list(config.predict_lengths)} predicted -> {profile_csv(out)}"
        )
        run_sweep(config, out, command, console, options.progress, sweep_options(options))
    if options.report:
        # The command layer composes sweep and report, as harness.commands.report does.
        page = importlib.import_module("reports.site").build_profile_report(out)
        console.print(f"report: {page.resolve()}")
    refused = contended_points(out)
    if refused:
        raise RunFailedError(
            f"--strict refused {refused} contended points; profile them on a quiet machine"
        )
    failed = failed_points(out)
    if failed:
        raise RunFailedError(
            f"{len(failed)} points failed ({PROFILE_CSV}'s message column; worker.log):\n"
            + "\n".join(failed)
        )
    return out


def run_as_jobs(
    config: SweepConfig,
    out: Path,
    options: LaunchOptions,
    command: str,
    console: Console,
    recorded: dict[str, Any],
) -> None:
    """One job per encoder variant (:func:`run_encoder`, the same :func:`run_sweep` of one
    encoder into :func:`job_folder`, resolving the device and budget on its node; a requeued
    job resumes from its own CSV), rows merged into ``out/profile.csv``. The manifest records
    the sweep as asked (``--device auto`` stays auto) and the jobs' environment (their
    devices), not this machine's."""
    import functools

    from harness.launch import launch, report_outcomes
    from harness.profiling.sweep_manifest import (
        jobs_environment,
        record_environment,
        write_manifest,
    )

    labels = [spec.label for spec in config.encoders]
    folders = [job_folder(out, label) for label in labels]
    write_manifest(out, config, jobs_environment(folders), command, recorded)
    calls = [
        functools.partial(run_encoder, config, label, folder, command)
        for label, folder in zip(labels, folders, strict=True)
    ]
    import torch

    # each measuring worker times on the threads it is asked for (or torch's default here, or
    # a SLURM job's own cores), however many jobs run: a point timed while others run is
    # flagged as contended, never re-threaded
    threads = config.threads or (None if options.launcher == "slurm" else torch.get_num_threads())
    outcomes = launch(
        calls, options, folder=out / "jobs" / "submitit", name="sanbench-profile", threads=threads
    )
    console.print(f"{merge(out, labels)} rows merged into {profile_csv(out)}")
    record_environment(out, jobs_environment(folders))
    report_outcomes(
        outcomes,
        labels=labels,
        resume=f"rerun with --resume --out {out} to finish",
        log=console.print,
    )


def job_folder(out: Path, label: str) -> Path:
    """``OUT/jobs/<label>`` with the variant's options made file-name safe."""
    return out / JOBS_FOLDER / re.sub(r"[^A-Za-z0-9._=-]+", "_", label)


def run_encoder(config: SweepConfig, label: str, out: Path, command: str) -> Path:
    """The job: the sweep of one encoder variant into ``out`` (resumed if it holds rows)."""
    return run_sweep(one_encoder(config, label), out, command)


def merge(out: Path, labels: list[str]) -> int:
    """Append the job folders' rows that ``out/profile.csv`` lacks; returns how many."""
    merged = results_file(out)
    done = merged.done_keys()
    added = 0
    for label in labels:
        for row in results_file(job_folder(out, label)).rows():
            if merged.key(row) not in done:
                merged.append(row)
                done.add(merged.key(row))
                added += 1
    return added
