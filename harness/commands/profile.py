"""``sanbench profile``: memory/latency sweep over sequence lengths, then the HTML report."""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import json
import os
import shlex
import sys
from pathlib import Path

import psutil
import torch
from rich.console import Console

from encoders import list_encoders
from harness.environment import environment
from harness.profiling import allocator, grid
from harness.profiling.sweep import CSV_NAME, Sweep, SweepConfig

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
    parser.add_argument("--lengths", help="e.g. 16:384:16 (stop included) or 16,32,64")
    parser.add_argument("--batch-size", type=int, help="sentences per batch")
    parser.add_argument("--dim", type=int, help="input features = encoder width")
    parser.add_argument("--modes", default="infer,train", help="infer,train (default both)")
    parser.add_argument("--device", default="auto", help="auto | cpu | cuda | cuda:N")
    parser.add_argument("--dtype", choices=grid.DTYPES, default="fp32")
    parser.add_argument("--repeats", type=int, help="timed blocks per point (median, IQR)")
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
    parser.add_argument(
        "--import",
        dest="imports",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE (here and in every worker) to profile the encoders it registers",
    )
    parser.add_argument("--no-progress", dest="progress", action="store_false")
    parser.add_argument("--no-report", dest="report", action="store_false")


def resolve_device(name: str) -> str:
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"--device {name}: CUDA is not available in this torch build/machine")
    if name != "cpu" and not name.startswith("cuda"):
        raise ValueError(f"--device {name!r}: expected auto, cpu, cuda or cuda:N")
    return name


def build_config(args: argparse.Namespace) -> SweepConfig:
    preset = grid.PRESETS[args.preset]
    if args.imports:
        sys.path.insert(0, os.getcwd())  # as `python -m` does; workers run with `python -m`
    for module in args.imports:
        try:
            importlib.import_module(module)
        except ImportError as error:
            raise ValueError(
                f"--import {module}: {error} (run from the folder holding it)"
            ) from None
    encoders, missing = grid.select_encoders(args.encoders, list_encoders())
    if missing:
        Console(stderr=True).print(f"[yellow]not registered, skipped: {', '.join(missing)}")
    if not encoders:
        raise ValueError("no encoder to profile: none of the requested encoders is registered")
    device = resolve_device(args.device)
    budget = args.max_memory_mb
    if budget is None and device == "cpu":
        budget = round(DEFAULT_CPU_SHARE * psutil.virtual_memory().available / 2**20)
    name, preload = allocator.resolve(args.allocator)
    return SweepConfig(
        encoders=tuple(encoders),
        lengths=tuple(grid.parse_lengths(args.lengths or preset.lengths)),
        modes=tuple(grid.parse_names(args.modes, grid.MODES, "--modes")),
        batch_size=args.batch_size or preset.batch_size,
        dim=args.dim or preset.dim,
        device=device,
        dtype=args.dtype,
        repeats=args.repeats or preset.repeats,
        max_memory_mb=budget,
        allocator=name,
        preload=preload,
        imports=tuple(args.imports),
        skip_after_oom=args.skip_after_oom,
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
            **{k: v for k, v in config.__dict__.items() if k != "preload"},
            "csv": CSV_NAME,
        },
    }
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(manifest, indent=2) + "\n")


def run(args: argparse.Namespace) -> int:
    console = Console()
    try:
        config = build_config(args)
        out = prepare_out(args)
        env = {**environment(torch.device(config.device)), "allocator": config.allocator}
        sweep = Sweep(config, out, env, console)
    except (ValueError, KeyError) as error:
        Console(stderr=True).print(f"[red]sanbench profile: {error}")
        return 2
    write_manifest(out, config, env)
    console.print(
        f"profiling {len(config.encoders)} encoders x {len(config.lengths)} lengths x "
        f"{len(config.modes)} modes on {config.device} ({config.allocator}, "
        f"budget {config.max_memory_mb} MB/point) -> {out / CSV_NAME}"
    )
    try:
        sweep.run(progress=args.progress)
    except KeyboardInterrupt:
        console.print(f"interrupted; finished rows are kept. Resume: --resume --out {out}")
        return 130
    except RuntimeError as error:  # a worker that cannot start (see worker.log)
        Console(stderr=True).print(f"[red]sanbench profile: {error}")
        return 1
    if args.report:
        # The command layer composes sweep and report, as harness.cli dispatches to reports.cli.
        index = importlib.import_module("reports.profile").build_report(out)
        console.print(f"report: {index.resolve()}")
    return 0
