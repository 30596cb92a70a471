"""``run_profile``: a ``sanbench profile`` sweep from its options to its report and verdict, top
to bottom: the options (resumed from the manifest with ``--resume``), the sweep they resolve to
(the plan: :func:`sweep_config`), run here (``harness.profiling.sweep.run_sweep``) or as one job
per encoder variant whose rows are merged (``harness.profiling.jobs``), then the report and the
failed or contended points. Each module the flow enters lies below the one it came from.

The options are checked before torch is imported, so argument errors are immediate.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import importlib
from collections.abc import Collection
from pathlib import Path
from typing import Any

from harness.console import console as rich_console
from harness.errors import InputError, RunFailedError
from harness.outdir import check_out_folder
from harness.profiling import allocator, grid
from harness.profiling.options import SWEEP_OPTIONS, ProfileOptions
from harness.redaction import recorded_command
from reports.contracts.manifest import has_manifest, manifest_path, read_manifest
from reports.contracts.profile_run import PROFILE_CSV, profile_csv, results_file, variant_label


def run_profile(options: ProfileOptions, given: Collection[str] | None = None) -> Path:
    """Run (or resume) the sweep, here or as one job per encoder variant, then its report;
    returns the run folder. ``given``: the options the user gave (default: those that differ
    from their defaults); ``--resume`` takes the others from the sweep's manifest, and the
    manifest refuses a sweep other than its own before any point is written
    (``harness.profiling.sweep_manifest.write_manifest``).
    :class:`RunFailedError` when a point failed or was refused as contended (``--strict``)."""
    console = rich_console()
    if options.resume:
        options = resumed_options(options, given_options(options) if given is None else given)
    out = sweep_folder(options)
    config = sweep_config(options)
    command = recorded_command()
    if options.launch.in_process:
        from harness.profiling.sweep import run_sweep

        run_sweep(config, out, command, console, options.progress, sweep_options(options))
    else:
        from harness.profiling.jobs import run_as_jobs

        run_as_jobs(config, out, options.launch, command, console, sweep_options(options))
    if options.report:
        # The command layer composes sweep and report, as harness.report.command does.
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


def given_options(options: ProfileOptions) -> set[str]:
    """The fields of ``options`` that differ from their defaults (what a Python caller gave)."""
    defaults = ProfileOptions()
    return {
        f.name
        for f in dataclasses.fields(options)
        if getattr(options, f.name) != getattr(defaults, f.name)
    }


def sweep_folder(options: ProfileOptions) -> Path:
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


def sweep_config(options: ProfileOptions) -> grid.SweepConfig:
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
    return grid.SweepConfig(
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


def option_problems(specs: list[grid.EncoderSpec], dim: int) -> list[str]:
    """Every variant whose keywords its encoder's builder refuses: an unknown keyword, or a
    value the builder rejects (built on the meta device: nothing is allocated)."""
    import torch

    from encoders import build_encoder, unknown_options_problem

    problems = []
    for spec in specs:
        unknown = unknown_options_problem(spec.name, [key for key, _ in spec.options])
        if unknown:
            problems.append(f"--encoders {spec.label}: {unknown}")
            continue
        try:
            with torch.device("meta"):
                build_encoder(spec.name, input_dim=dim, **spec.kwargs())
        except (ValueError, TypeError) as error:
            problems.append(f"--encoders {spec.label}: {error}")
    return problems


def sweep_options(options: ProfileOptions) -> dict[str, Any]:
    """The options of ``SWEEP_OPTIONS`` as the manifest records them."""
    return {key: getattr(options, key) for key in SWEEP_OPTIONS}


def contended_points(out: Path) -> int:
    """How many points of ``out/profile.csv`` ``--strict`` refused as contended."""
    rows = results_file(out).rows()
    return sum(row["status"] == "contended" for row in rows)


def failed_points(out: Path) -> list[str]:
    """The points of ``out/profile.csv`` that ended in an error (not an OOM: that is a result)."""
    rows = results_file(out).rows()
    return [
        f"{variant_label(row['encoder'], row['options'])} L={row['seq_len']} "
        f"{row['mode']}: {row['message']}"
        for row in rows
        if row["status"] == "error"
    ]
