"""``sanbench suite``: run a grid of tasks x encoders x seeds (or CV folds), then aggregate.

    sanbench suite --tasks cr,trec,sst2 --encoders bi_blosan,mtsa --seeds 5 \\
        --data-dir ../shared/datasets --embeddings glove.txt --out runs/suite --shard 1/4
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from datamodules.cli import add_encoding_argument
from harness.environment import git_commit
from harness.launch import LaunchOptions, add_launcher_arguments
from harness.suite.aggregate import aggregate
from harness.suite.grid import CV_FOLDS, CV_TASKS, RunSpec, Shard, expand_grid
from harness.suite.runner import FitFn, all_results_files, fit_run, results_path, run_shard
from harness.suite.tables import write_atomic
from harness.training.config import command_overrides

DEFAULT_TASKS = "cr,mpqa,subj,trec,sst1,sst2,sick,snli"
DEFAULT_ENCODERS = "disan,bi_blosan,mtsa,mpsan,bilstm,multi_cnn,multi_head"
BUDGETS = ("max_steps", "max_epochs", "limit_train_batches")


def _names(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError("expected a comma-separated list such as trec,sst2")
    return names


def _shard(text: str) -> Shard:
    try:
        return Shard.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value}")
    return value


def _batches(text: str) -> int | float:
    """``--limit-train-batches``: an int counts batches, a float in (0, 1] a fraction."""
    return float(text) if "." in text else int(text)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tasks", type=_names, default=_names(DEFAULT_TASKS))
    parser.add_argument("--encoders", type=_names, default=_names(DEFAULT_ENCODERS))
    parser.add_argument(
        "--seeds", type=_positive, default=5, help="runs (seeds 0..N-1) per non-CV task (5)"
    )
    parser.add_argument(
        "--folds",
        type=_positive,
        default=CV_FOLDS,
        help=f"run only the first K of the {CV_FOLDS} CV folds of {sorted(CV_TASKS)} (smoke runs)",
    )
    parser.add_argument("--data-dir", type=Path, help="folder holding the benchmark files")
    parser.add_argument("--embeddings", type=Path, help="GloVe text file (random vectors if unset)")
    add_encoding_argument(parser)
    parser.add_argument("--out", type=Path, required=True, help="results folder (shared by shards)")
    parser.add_argument(
        "--shard", type=_shard, default=Shard(), help="K/N: run the K-th of N parts (1/1)"
    )
    parser.add_argument("--max-steps", type=_positive, help="training budget override per run")
    parser.add_argument("--max-epochs", type=_positive, help="training budget override per run")
    parser.add_argument(
        "--limit-train-batches", type=_batches, help="batches (int) or fraction (float) per epoch"
    )
    parser.add_argument(
        "--aggregate-only", action="store_true", help="only rebuild the tables from the results"
    )
    add_launcher_arguments(parser, "jobs the grid is split into (default: one job per cell)")


def _check_names(tasks: list[str], encoders: list[str]) -> None:
    from encoders import list_encoders
    from harness.training.config import list_task_configs

    for kind, given, known in (
        ("task", tasks, list_task_configs()),
        ("encoder", encoders, list_encoders()),
    ):
        unknown = [name for name in given if name not in known]
        if unknown:
            raise SystemExit(f"sanbench suite: unknown {kind}(s) {unknown}; known: {known}")


def _check_runs(runs: list[RunSpec], args: argparse.Namespace, overrides: dict[str, Any]) -> None:
    """Files and every (task, encoder)'s fit config, before any data is read."""
    if not args.data_dir.is_dir():
        raise SystemExit(f"sanbench suite: --data-dir {args.data_dir}: no such folder")
    if args.embeddings is not None and not args.embeddings.is_file():
        raise SystemExit(f"sanbench suite: --embeddings {args.embeddings}: no such file")
    first = {(run.task, run.encoder): run for run in runs}  # seeds and folds parse alike
    for run in first.values():
        try:
            fit_run(
                run, run.run_dir(args.out), args.data_dir, args.embeddings, overrides
            ).resolved()
        except ValueError as error:
            raise SystemExit(f"sanbench suite: {run.task} {run.encoder}: {error}") from None


def _manifest(args: argparse.Namespace, overrides: dict[str, Any], tables: list[Path]) -> None:
    out: Path = args.out
    manifest = {
        "kind": "suite",
        "command": shlex.join(["sanbench", *sys.argv[1:]]),
        "updated": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": git_commit(),
        "grid": {
            "tasks": args.tasks,
            "encoders": args.encoders,
            "seeds": args.seeds,
            "folds": args.folds,
            "cv_tasks": sorted(CV_TASKS),
            "shards": args.shard.count,
        },
        "overrides": overrides,
        "results": [path.name for path in all_results_files(out)],
        "files": {
            "summary": "summary.csv",
            "comparison": "comparison.csv",
            "tables": sorted(
                str(path.relative_to(out)) for path in tables if path.parent.name == "tables"
            ),
            "runs": "runs/<task>/<encoder>/<seedN|foldN>/",
        },
    }
    write_atomic(out / "manifest.json", json.dumps(manifest, indent=2) + "\n")


def _run_here(
    args: argparse.Namespace, runs: list[RunSpec], overrides: dict[str, Any], fit: FitFn
) -> int:
    """This process runs shard ``--shard`` of the grid; returns the number of failed runs."""
    summary = run_shard(
        runs,
        shard=args.shard,
        out_dir=args.out,
        fit=fit,
        data_dir=args.data_dir,
        embeddings=args.embeddings,
        overrides=overrides,
    )
    print(
        f"shard {args.shard.label}: {len(summary.ran)} ran, {len(summary.skipped)} already "
        f"done, {len(summary.failed)} failed -> {results_path(args.out, args.shard)}"
    )
    return len(summary.failed)


def _run_as_jobs(
    args: argparse.Namespace,
    runs: list[RunSpec],
    overrides: dict[str, Any],
    fit: FitFn,
    options: LaunchOptions,
) -> int:
    """Every unfinished shard as a submitit job; returns failed runs plus failed jobs."""
    from harness.suite.launch import launch_suite

    if args.shard.count != 1:
        raise SystemExit("sanbench suite: --shard and --launcher exclude each other")
    outcomes = launch_suite(
        runs,
        options,
        out_dir=args.out,
        fit=fit,
        data_dir=args.data_dir,
        embeddings=args.embeddings,
        overrides=overrides,
    )
    failed = 0
    for outcome in outcomes:
        if outcome.ok:
            summary = outcome.result
            failed += len(summary.failed)
            print(f"job {outcome.job_id}: {len(summary.ran)} ran, {len(summary.failed)} failed")
        else:
            failed += 1
            print(f"job {outcome.job_id} died: {outcome.error} (log: {outcome.stderr})")
    print(f"{len(outcomes)} jobs ({options.launcher}); rerun the same command to resume")
    return failed


def run(args: argparse.Namespace) -> int:
    overrides = command_overrides(args, BUDGETS)  # as `sanbench fit --trainer.max_steps`
    failed = 0
    if not args.aggregate_only:
        if args.data_dir is None:
            raise SystemExit("sanbench suite: --data-dir is required unless --aggregate-only")
        _check_names(args.tasks, args.encoders)
        runs = expand_grid(args.tasks, args.encoders, args.seeds, args.folds)
        _check_runs(runs, args, overrides)
        args.out.mkdir(parents=True, exist_ok=True)
        from harness.training.run import run_fit

        try:
            options = LaunchOptions.from_args(args)
            if options is not None:
                options.check_available()
        except ValueError as error:
            raise SystemExit(f"sanbench suite: {error}") from None
        if options is None:
            failed = _run_here(args, runs, overrides, run_fit)
        else:
            failed = _run_as_jobs(args, runs, overrides, run_fit, options)
    args.out.mkdir(parents=True, exist_ok=True)
    tables = aggregate(args.out)
    _manifest(args, overrides, tables)
    print(f"tables: {args.out / 'tables' / 'tables.md'} (HTML: sanbench report {args.out})")
    return 1 if failed else 0
