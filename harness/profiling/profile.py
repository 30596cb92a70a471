"""``run_profile``: a ``sanbench profile`` sweep from its options to its report and verdict, top
to bottom: the options (resumed from the manifest with ``--resume``), the sweep they resolve to
(the plan: ``harness.profiling.sweep_config``), run here (``harness.profiling.sweep.run_sweep``)
or as one job per encoder variant whose rows are merged (``harness.profiling.jobs``), then the
report and the failed or contended points. Each module the flow enters lies below the one it
came from.

The options are checked before torch is imported, so argument errors are immediate.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import importlib
import shlex
from collections.abc import Collection
from pathlib import Path
from typing import Any

from harness.console import console as rich_console
from harness.errors import InputError, RunFailedError
from harness.outdir import check_out_folder
from harness.profiling.options import SWEEP_OPTIONS, ProfileOptions
from harness.profiling.sweep_config import current_encoders, sweep_config
from harness.redaction import recorded_command
from harness.report.options import SITE_FOLDER, report_command
from reports.contracts.manifest import has_manifest, manifest_path, read_manifest
from reports.contracts.profile_run import (
    CONTENDED,
    ERROR,
    PROFILE_CSV,
    profile_csv,
    results_file,
    variant_label,
)

# beside the results, the resolved config of a sweep started from a --config file (its command
# names it; harness.profiling.sweep_manifest.write_manifest)
CONFIG_FILE = "profile-config.yaml"


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
    recorded, config_file = sweep_options(options), out / CONFIG_FILE  # a --config file's copy
    if options.launch.in_process:
        from harness.profiling.sweep import run_sweep

        run_sweep(config, out, command, console, options.progress, recorded, config_file)
    else:
        from harness.profiling.jobs import run_as_jobs

        run_as_jobs(config, out, options.launch, command, console, recorded, config_file)
    if options.report:
        # The command layer composes sweep and report, as harness.report.command does.
        site = importlib.import_module("reports.site")
        page = site.build_profile_report(out, report_command([out], out / SITE_FOLDER))
        console.print(f"report: {page.resolve()}")
    refused = contended_points(out)
    if refused:
        points = (
            "1 contended point; profile it"
            if refused == 1
            else f"{refused} contended points; profile them"
        )
        raise RunFailedError(f"--strict refused {points} on a quiet machine")
    count, failed = failed_points(out)
    if failed:
        raise RunFailedError(
            f"{count} points failed ({PROFILE_CSV}'s message column; worker.log):\n"
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
        if key in given and not same_option(key, getattr(options, key), recorded.get(key))
    ]
    if problems:
        raise InputError(
            "\n".join(
                [
                    *problems,
                    "--resume continues the recorded sweep: drop these options ("
                    + shlex.join(["sanbench", "profile", "--resume", "--out", str(options.out)])
                    + "), or choose another --out",
                ]
            )
        )
    return dataclasses.replace(options, **{k: recorded[k] for k in SWEEP_OPTIONS if k in recorded})


def same_option(key: str, given: Any, recorded: Any) -> bool:
    """Whether a resume's option ``key`` is the recorded one: encoders after each option is put
    under its current name (a sweep recorded with ``mtsa:impl=tensor`` resumes with the
    ``mtsa:attention_impl=tensor`` its warning recommends, and the other way round)."""
    if key == "encoders" and given != recorded:
        return current_encoders(given) == current_encoders(recorded)
    return given == recorded


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
    check_out_folder(options.out, "profile")  # only a folder profile made (harness.outdir)
    if not options.resume and (profile_csv(options.out).exists() or has_manifest(options.out)):
        raise InputError(
            f"{options.out} holds a profile sweep: pass --resume to add its missing points, "
            "or choose another --out"
        )
    return options.out


def sweep_options(options: ProfileOptions) -> dict[str, Any]:
    """The options of ``SWEEP_OPTIONS`` as the manifest records them (the encoders' options
    under their current names, as the rows label them)."""
    recorded = {key: getattr(options, key) for key in SWEEP_OPTIONS}
    return {**recorded, "encoders": current_encoders(options.encoders)}


def contended_points(out: Path) -> int:
    """How many points of ``out/profile.csv`` ``--strict`` refused as contended."""
    rows = results_file(out).rows()
    return sum(row["status"] == CONTENDED for row in rows)


def failed_points(out: Path) -> tuple[int, list[str]]:
    """How many points of ``out/profile.csv`` ended in an error (not an OOM: that is a result),
    and a line per encoder and message: the points that failed alike in one (an encoder whose
    memory depends on values fails so at every point it predicts), ``selected L=32 train:
    ...`` or ``selected L=32, 64 (infer, train): ...``."""
    failed: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for row in results_file(out).rows():
        if row["status"] == ERROR:
            key = (variant_label(row["encoder"], row["options"]), row["message"])
            failed.setdefault(key, []).append((row["seq_len"], row["mode"]))
    lines = []
    for (label, message), points in failed.items():
        lengths = ", ".join(str(length) for length in sorted({n for n, _ in points}))
        modes = ", ".join(sorted({mode for _, mode in points}))
        where = f"L={lengths} {modes}" if len(points) == 1 else f"L={lengths} ({modes})"
        lines.append(f"{label} {where}: {message}")
    return sum(len(points) for points in failed.values()), lines
