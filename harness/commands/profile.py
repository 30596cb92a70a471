"""``sanbench profile``: memory/latency sweep over sequence lengths, then the HTML report.

Arguments are checked before torch is imported, so help and argument errors are immediate.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import inspect
from pathlib import Path
from typing import TYPE_CHECKING

from harness.arguments import positive_float, positive_int
from harness.console import console as rich_console
from harness.cpu_usage import CONTENDED_BELOW
from harness.errors import InputError, RunFailedError
from harness.launch import LaunchOptions, add_launcher_arguments
from harness.profiling import allocator, grid
from harness.redaction import recorded_command
from reports.contracts.profile_run import PROFILE_CSV, profile_csv

if TYPE_CHECKING:
    from rich.console import Console

    from harness.profiling.sweep import SweepConfig

# Without --max-memory-mb a CPU worker may use this share of the RAM available at start, so a
# too-long point fails an allocation (an ``oom`` row) before the kernel's OOM killer acts.
DEFAULT_CPU_SHARE = 0.8


def add_arguments(parser: argparse.ArgumentParser) -> None:
    presets = "; ".join(
        f"{name}: L={p.lengths} batch={p.batch_size} dim={p.dim} repeats={p.repeats}"
        + (f" encoders={p.encoders}" if p.encoders else "")
        + (f" ({p.about})" if p.about else "")
        for name, p in grid.PRESETS.items()
    )
    parser.add_argument("--preset", choices=grid.PRESETS, default="paper", help=presets)
    parser.add_argument(
        "--encoders",
        help="comma list or 'all' (default: the papers' figure encoders: "
        f"{','.join(grid.FIGURE_ENCODERS)})",
    )
    parser.add_argument(
        "--lengths", help="measured lengths, e.g. 16:384:16 (stop included) or 16,32,64"
    )
    parser.add_argument(
        "--predict-lengths",
        help="lengths whose peak memory and FLOPs are predicted on meta tensors (nothing "
        "allocated; fp32 only), in addition to the measured ones",
    )
    parser.add_argument(
        "--predict-only",
        action="store_true",
        help="no measurement: the memory/FLOPs table and figures for --predict-lengths "
        "(default: the preset's and --lengths) in seconds",
    )
    parser.add_argument("--batch-size", type=positive_int, help="sentences per batch")
    parser.add_argument("--dim", type=positive_int, help="input features = encoder width")
    parser.add_argument("--modes", default="infer,train", help="infer,train (default both)")
    parser.add_argument("--device", default="auto", help="auto | cpu | cuda | cuda:N")
    parser.add_argument("--dtype", choices=grid.DTYPES, default="fp32")
    parser.add_argument(
        "--repeats", type=positive_int, help="timed steps per point (median, IQR), >= 3"
    )
    parser.add_argument(
        "--compile",
        action="store_true",
        help="torch.compile each encoder; the first call (compilation) is timed apart",
    )
    parser.add_argument(
        "--threads",
        type=positive_int,
        help="intra-op threads of the measuring process (default: torch's, one per core); "
        f"recorded in {PROFILE_CSV} and the manifest",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="re-measure a point whose threads got less than "
        f"{CONTENDED_BELOW * 100:.0f}%% of the CPU they asked for (contended) up to "
        f"{grid.STRICT_RETRIES} times, then write it as "
        "failed (status contended) instead of ok",
    )
    parser.add_argument("--out", type=Path, help="run folder (default runs/profile-<time>)")
    parser.add_argument("--resume", action="store_true", help="measure only missing points")
    parser.add_argument(
        "--max-memory-mb",
        type=positive_float,
        help="per-point budget: CPU, a hard limit on the worker's memory beyond its start-up "
        f"footprint (default {DEFAULT_CPU_SHARE * 100:.0f}%% of available RAM); "
        "CUDA, a memory fraction",
    )
    parser.add_argument("--allocator", choices=allocator.CHOICES, default="auto")
    parser.add_argument(
        "--no-skip-after-oom",
        dest="skip_after_oom",
        action="store_false",
        help="after an OOM still try the longer lengths of that encoder",
    )
    add_launcher_arguments(parser, "not used: profile runs one job per encoder variant")
    parser.add_argument("--no-progress", dest="progress", action="store_false")
    parser.add_argument("--no-report", dest="report", action="store_false")


def resolve_device(name: str) -> str:
    import torch

    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"--device {name}: CUDA is not available in this torch build/machine")
    if name != "cpu" and not name.startswith("cuda"):
        raise ValueError(f"--device {name!r}: expected auto, cpu, cuda or cuda:N")
    return name


def option_problems(specs: list[grid.EncoderSpec], dim: int) -> list[str]:
    """Every variant whose keywords its encoder's builder refuses: an unknown keyword, or a
    value the builder rejects (built on the meta device: nothing is allocated)."""
    import torch

    from encoders import build_encoder, encoder_entry

    problems = []
    for spec in specs:
        accepted = inspect.signature(encoder_entry(spec.name).builder).parameters
        unknown = [key for key, _ in spec.options if key not in accepted]
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


def build_config(args: argparse.Namespace) -> SweepConfig:
    """The sweep's settings; the plain checks run before torch and the encoders are imported."""
    preset = grid.PRESETS[args.preset]
    repeats = args.repeats or preset.repeats
    if repeats < 3:
        raise ValueError(f"--repeats {repeats}: at least 3 timed steps give a median and an IQR")
    lengths = tuple(grid.parse_lengths(args.lengths or preset.lengths))
    if args.predict_lengths:
        predict_lengths = tuple(grid.parse_lengths(args.predict_lengths))
    elif args.lengths:
        predict_lengths = lengths
    else:
        predict_lengths = tuple(grid.parse_lengths(preset.predict_lengths))
    if args.predict_only and args.dtype != "fp32":
        raise ValueError("--predict-only predicts fp32 steps; drop --dtype or the flag")
    modes = tuple(grid.parse_names(args.modes, grid.MODES, "--modes"))
    import psutil

    from encoders import list_encoders
    from harness.profiling.sweep import SweepConfig

    encoders, missing = grid.select_encoders(args.encoders or preset.encoders, list_encoders())
    if missing:
        rich_console(stderr=True).print(f"[yellow]not registered, skipped: {', '.join(missing)}")
    if not encoders:
        raise ValueError("no encoder to profile: none of the requested encoders is registered")
    dim = args.dim or preset.dim
    problems = option_problems(encoders, dim)
    if args.jobs is not None:
        problems.append("--jobs does not apply to profile: it runs one job per encoder variant")
    if args.launcher is not None:
        problems += LaunchOptions.from_args(args).problems()
    if problems:
        raise InputError("\n".join(problems))
    device = resolve_device(args.device)
    budget = args.max_memory_mb
    if budget is None and device == "cpu":
        budget = round(DEFAULT_CPU_SHARE * psutil.virtual_memory().available / 2**20)
    name, preload = allocator.resolve(args.allocator)
    return SweepConfig(
        encoders=tuple(encoders),
        lengths=lengths,
        modes=modes,
        batch_size=args.batch_size or preset.batch_size,
        dim=dim,
        device=device,
        dtype=args.dtype,
        repeats=repeats,
        max_memory_mb=budget,
        allocator=name,
        preload=preload,
        imports=tuple(args.imports),
        skip_after_oom=args.skip_after_oom,
        predict_lengths=predict_lengths,
        predict_only=args.predict_only,
        compile=args.compile,
        threads=args.threads,
        strict=args.strict,
    )


def prepare_out(args: argparse.Namespace) -> Path:
    if args.out is None:
        if args.resume:
            raise ValueError("--resume needs --out RUN_DIR (the folder of the sweep to resume)")
        stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        return Path("runs") / f"profile-{stamp}"
    if profile_csv(args.out).exists() and not args.resume:
        raise ValueError(
            f"{profile_csv(args.out)} exists: pass --resume to add the missing points, "
            "or choose another --out"
        )
    return args.out


def run(args: argparse.Namespace) -> int:
    from harness.profiling.run import contended_points, failed_points, run_sweep

    console = rich_console()
    config = build_config(args)
    out = prepare_out(args)
    command = recorded_command()
    options = LaunchOptions.from_args(args)
    if options is not None:
        run_as_jobs(config, out, options, command, console)
    else:
        measured = (
            "no lengths measured" if config.predict_only else f"L={list(config.lengths)} measured"
        )
        console.print(
            f"profiling {len(config.encoders)} encoders x {len(config.modes)} modes on "
            f"{config.device} ({config.allocator}, budget {config.max_memory_mb} MB/point): "
            f"{measured}, L={list(config.predict_lengths)} predicted -> {profile_csv(out)}"
        )
        run_sweep(config, out, command, console, progress=args.progress)
    if args.report:
        # The command layer composes sweep and report, as harness.cli dispatches to reports.cli.
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
    return 0


def run_as_jobs(
    config: SweepConfig, out: Path, options: LaunchOptions, command: str, console: Console
) -> None:
    """One submitit job per encoder variant (``harness.profiling.jobs``), rows merged into
    ``out/profile.csv``."""
    import functools

    from harness.launch import launch
    from harness.profiling.jobs import job_folder, merge, run_encoder
    from harness.profiling.run import sweep_environment, write_manifest

    labels = [spec.label for spec in config.encoders]
    write_manifest(out, config, sweep_environment(config), command)
    calls = [
        functools.partial(run_encoder, config, label, job_folder(out, label), command)
        for label in labels
    ]
    outcomes = launch(calls, options, folder=out / "jobs" / "submitit", name="sanbench-profile")
    for label, outcome in zip(labels, outcomes, strict=True):
        status = "done" if outcome.ok else f"died: {outcome.error}"
        console.print(f"job {outcome.job_id} ({label}): {status} (log: {outcome.stderr})")
    console.print(f"{merge(out, labels)} rows merged into {profile_csv(out)}")
    died = [o for o in outcomes if not o.ok]
    if died:
        raise RunFailedError(f"{len(died)} jobs died; rerun with --resume --out {out} to finish")
