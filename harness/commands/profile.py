"""``sanbench profile``: memory/latency sweep over sequence lengths, then the HTML report.

Arguments are checked before torch is imported, so help and argument errors are immediate.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import inspect
import json
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from harness.arguments import positive_int
from harness.console import console as rich_console
from harness.cpu_usage import CONTENDED_BELOW
from harness.launch import LaunchOptions, add_launcher_arguments
from harness.profiling import allocator, grid

if TYPE_CHECKING:
    from harness.profiling.sweep import SweepConfig

CSV_NAME = "profile.csv"
MANIFEST = "manifest.json"
# Without --max-memory-mb a CPU worker may use this share of the RAM available at start, so a
# too-long point fails an allocation (an ``oom`` row) before the kernel's OOM killer acts.
DEFAULT_CPU_SHARE = 0.8


def add_arguments(parser: argparse.ArgumentParser) -> None:
    presets = ", ".join(
        f"{name}: L={p.lengths} batch={p.batch_size} dim={p.dim} repeats={p.repeats}"
        for name, p in grid.PRESETS.items()
    )
    parser.add_argument("--preset", choices=grid.PRESETS, default="paper", help=presets)
    parser.add_argument(
        "--encoders",
        help="comma list or 'all' (default: the papers' figure encoders: "
        f"{','.join(grid.PAPER_FIGURE_ENCODERS)})",
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
        "recorded in profile.csv and the manifest",
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
        type=float,
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


def check_options(specs: list[grid.EncoderSpec]) -> None:
    """Every variant keyword must be a parameter of its encoder's builder."""
    from encoders import encoder_entry

    for spec in specs:
        accepted = inspect.signature(encoder_entry(spec.name).builder).parameters
        unknown = [key for key, _ in spec.options if key not in accepted]
        if unknown:
            raise ValueError(
                f"--encoders {spec.label}: {spec.name} takes no option {', '.join(unknown)}; "
                f"its options: {', '.join(k for k in accepted if k != 'input_dim')}"
            )


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

    encoders, missing = grid.select_encoders(args.encoders, list_encoders())
    if missing:
        rich_console(stderr=True).print(f"[yellow]not registered, skipped: {', '.join(missing)}")
    if not encoders:
        raise ValueError("no encoder to profile: none of the requested encoders is registered")
    check_options(encoders)
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
        dim=args.dim or preset.dim,
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
    if (args.out / CSV_NAME).exists() and not args.resume:
        raise ValueError(
            f"{args.out / CSV_NAME} exists: pass --resume to add the missing points, "
            "or choose another --out"
        )
    return args.out


def write_manifest(out: Path, config: SweepConfig, env: dict[str, str]) -> None:
    """The run's manifest; a resume keeps ``created`` and appends to ``resumed``."""
    path = out / MANIFEST
    old = json.loads(path.read_text()) if path.exists() else {}
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    manifest = {
        "kind": "profile",
        "command": shlex.join(["sanbench", *sys.argv[1:]]),
        "created": old.get("created", now),
        "resumed": [*old.get("resumed", []), now] if old else [],
        "environment": env,
        "config": {
            **{k: v for k, v in config.__dict__.items() if k not in ("preload", "encoders")},
            "encoders": [spec.label for spec in config.encoders],
            "csv": CSV_NAME,
        },
    }
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(manifest, indent=2) + "\n")


def run(args: argparse.Namespace) -> int:
    console = rich_console()
    try:
        config = build_config(args)
        out = prepare_out(args)
        import torch

        from harness.environment import environment
        from harness.profiling.sweep import Sweep

        env = {**environment(torch.device(config.device)), "allocator": config.allocator}
        if config.threads is not None:
            env["threads"] = str(config.threads)
        sweep = Sweep(config, out, env, console)
    except (ValueError, KeyError) as error:
        rich_console(stderr=True).print(f"[red]sanbench profile: {error}")
        return 2
    write_manifest(out, config, env)
    options = LaunchOptions.from_args(args)
    if options is not None:
        return run_as_jobs(args, config, out, options, console)
    measured = (
        "no lengths measured" if config.predict_only else f"L={list(config.lengths)} measured"
    )
    console.print(
        f"profiling {len(config.encoders)} encoders x {len(config.modes)} modes on "
        f"{config.device} ({config.allocator}, budget {config.max_memory_mb} MB/point): "
        f"{measured}, L={list(config.predict_lengths)} predicted -> {out / CSV_NAME}"
    )
    try:
        sweep.run(progress=args.progress)
    except KeyboardInterrupt:
        console.print(f"interrupted; finished rows are kept. Resume: --resume --out {out}")
        return 130
    except RuntimeError as error:  # a worker that cannot start (see worker.log)
        rich_console(stderr=True).print(f"[red]sanbench profile: {error}")
        return 1
    if args.report:
        # The command layer composes sweep and report, as harness.cli dispatches to reports.cli.
        page = importlib.import_module("reports.site").build_profile_report(out)
        console.print(f"report: {page.resolve()}")
    refused = sum(row["status"] == "contended" for row in sweep.results.rows())
    if refused:
        rich_console(stderr=True).print(
            f"[red]sanbench profile: --strict refused {refused} contended points; "
            "profile them on a quiet machine"
        )
        return 1
    return 0


def run_as_jobs(
    args: argparse.Namespace,
    config: SweepConfig,
    out: Path,
    options: LaunchOptions,
    console: object,
) -> int:
    """One submitit job per encoder variant (``harness.profiling.jobs``), rows merged into
    ``out/profile.csv``, then the report."""
    import functools

    from harness.launch import launch
    from harness.profiling.jobs import job_folder, merge, run_encoder

    if options.jobs is not None:
        raise ValueError("--jobs does not apply to profile: it runs one job per encoder variant")
    options.check_available()
    labels = [spec.label for spec in config.encoders]
    calls = [
        functools.partial(run_encoder, args, label, job_folder(out, label)) for label in labels
    ]
    outcomes = launch(calls, options, folder=out / "jobs" / "submitit", name="sanbench-profile")
    for label, outcome in zip(labels, outcomes, strict=True):
        status = f"exit {outcome.result}" if outcome.ok else f"died: {outcome.error}"
        console.print(f"job {outcome.job_id} ({label}): {status} (log: {outcome.stderr})")
    console.print(f"{merge(out, labels)} rows merged into {out / CSV_NAME}")
    if args.report:
        page = importlib.import_module("reports.site").build_profile_report(out)
        console.print(f"report: {page.resolve()}")
    failed = [o for o in outcomes if not o.ok or o.result != 0]
    if failed:
        console.print(f"{len(failed)} jobs failed; rerun with --resume --out {out} to finish")
    return 1 if failed else 0
