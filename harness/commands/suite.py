"""``sanbench suite``: run a grid of tasks x encoders x seeds (or CV folds), then aggregate.

    sanbench suite --tasks cr,trec,sst2 --encoders bi_blosan,mtsa --seeds 5 \\
        --data-dir ../shared/datasets --embeddings glove.txt --out runs/suite --shard 1/4
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from datamodules.cli import add_encoding_argument, add_max_length_argument
from harness.arguments import batches, names, parsed_by, positive_int
from harness.environment import git_commit
from harness.errors import InputError, RunFailedError
from harness.launch import LaunchOptions, add_launcher_arguments
from harness.redaction import recorded_command
from harness.suite.aggregate import aggregate
from harness.suite.grid import CV_FOLDS, CV_TASKS, RunSpec, Shard, expand_grid
from harness.suite.runner import FitFn, all_results_files, fit_run, results_path, run_shard
from harness.training.config import command_overrides
from reports.contracts.manifest import write_manifest
from reports.contracts.suite_results import COMPARISON, RUNS_FOLDER, SUMMARY

DEFAULT_TASKS = "cr,mpqa,subj,trec,sst1,sst2,sick,snli"
DEFAULT_ENCODERS = "disan,bi_blosan,mtsa,mpsan,bilstm,multi_cnn,multi_head"
BUDGETS = ("max_steps", "max_epochs", "limit_train_batches")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tasks", type=names, default=names(DEFAULT_TASKS))
    parser.add_argument("--encoders", type=names, default=names(DEFAULT_ENCODERS))
    parser.add_argument(
        "--seeds", type=positive_int, default=5, help="runs (seeds 0..N-1) per non-CV task (5)"
    )
    parser.add_argument(
        "--folds",
        type=positive_int,
        default=CV_FOLDS,
        help=f"run only the first K of the {CV_FOLDS} CV folds of {sorted(CV_TASKS)} (smoke runs)",
    )
    parser.add_argument("--data-dir", type=Path, help="folder holding the benchmark files")
    parser.add_argument("--embeddings", type=Path, help="GloVe text file (random vectors if unset)")
    add_encoding_argument(parser)
    add_max_length_argument(parser)
    parser.add_argument("--out", type=Path, required=True, help="results folder (shared by shards)")
    parser.add_argument(
        "--shard",
        type=parsed_by(Shard.parse),
        default=Shard(),
        help="K/N: run the K-th of N parts (1/1)",
    )
    parser.add_argument("--max-steps", type=positive_int, help="training budget override per run")
    parser.add_argument("--max-epochs", type=positive_int, help="training budget override per run")
    parser.add_argument(
        "--limit-train-batches", type=batches, help="batches (int) or fraction (float) per epoch"
    )
    parser.add_argument(
        "--aggregate-only", action="store_true", help="only rebuild the tables from the results"
    )
    add_launcher_arguments(parser, "jobs the grid is split into (default: one job per cell)")


def _input_problems(args: argparse.Namespace) -> list[str]:
    """What is wrong with the grid's names and files, every problem at once."""
    from encoders import list_encoders
    from harness.training.config import list_task_configs

    problems = []
    if args.data_dir is None:
        problems.append("--data-dir is required unless --aggregate-only")
    elif not args.data_dir.is_dir():
        problems.append(f"--data-dir {args.data_dir}: no such folder")
    if args.embeddings is not None and not args.embeddings.is_file():
        problems.append(f"--embeddings {args.embeddings}: no such file")
    for kind, given, known in (
        ("task", args.tasks, list_task_configs()),
        ("encoder", args.encoders, list_encoders()),
    ):
        unknown = [name for name in given if name not in known]
        if unknown:
            problems.append(f"unknown {kind}(s) {', '.join(unknown)}; known: {', '.join(known)}")
    return problems


def _check_runs(runs: list[RunSpec], args: argparse.Namespace, overrides: dict[str, Any]) -> None:
    """Every (task, encoder)'s fit config, then every data file of every task (all bad lines
    at once), before any training; all problems at once."""
    problems = []
    first = {(run.task, run.encoder): run for run in runs}  # seeds and folds parse alike
    for run in first.values():
        try:
            fit_run(
                run, run.run_dir(args.out), args.data_dir, args.embeddings, overrides
            ).resolved()
        except ValueError as error:
            problems.append(f"{run.task} {run.encoder}: {error}")
    if problems:
        raise InputError("\n".join(problems))
    from harness.training.inputs import check_fit_inputs

    per_task = {run.task: run for run in runs}.values()
    check_fit_inputs(
        fit_run(run, run.run_dir(args.out), args.data_dir, args.embeddings, overrides)
        for run in per_task
    )


def _manifest(args: argparse.Namespace, overrides: dict[str, Any], tables: list[Path]) -> None:
    out: Path = args.out
    manifest = {
        "kind": "suite",
        "command": recorded_command(),
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
            "summary": SUMMARY,
            "comparison": COMPARISON,
            "tables": sorted(
                str(path.relative_to(out)) for path in tables if path.parent.name == "tables"
            ),
            "runs": f"{RUNS_FOLDER}/<task>/<encoder>/<seedN|foldN>/",
        },
    }
    write_manifest(out, manifest)


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
    if args.aggregate_only:
        if not args.out.is_dir():
            raise InputError(f"--out {args.out}: no such folder (nothing to aggregate)")
    else:
        options = LaunchOptions.from_args(args)
        problems = _input_problems(args)
        if options is not None:
            problems += options.problems()
            if args.shard.count != 1:
                problems.append("--shard and --launcher exclude each other")
        if problems:
            raise InputError("\n".join(problems))
        runs = expand_grid(args.tasks, args.encoders, args.seeds, args.folds)
        _check_runs(runs, args, overrides)
        args.out.mkdir(parents=True, exist_ok=True)
        from harness.training.run import run_fit

        if options is None:
            failed = _run_here(args, runs, overrides, run_fit)
        else:
            failed = _run_as_jobs(args, runs, overrides, run_fit, options)
    tables = aggregate(args.out)
    _manifest(args, overrides, tables)
    print(f"tables: {args.out / 'tables' / 'tables.md'} (HTML: sanbench report {args.out})")
    if failed:
        raise RunFailedError(
            f"{failed} runs or jobs failed (their rows and error.txt say why); "
            "rerun the same command to retry them"
        )
    return 0
