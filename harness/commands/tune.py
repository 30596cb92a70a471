"""``sanbench tune``: optuna studies over the harness (block length, dropout, memory).

    sanbench tune --study block-length --task trec --encoder bi_blosan --trials 12 \\
        --data-dir ../shared/datasets --max-steps 200 --storage sqlite:///runs/studies/optuna.db
    sanbench tune --study block-length-memory --lengths 32,64,128

Start the same command in several processes (or machines, with a shared database URL) to
share one study; the total number of finished trials stays ``--trials``.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
from pathlib import Path
from typing import Any

from datamodules.cli import add_encoding_argument, add_max_length_argument
from harness.arguments import batches, non_negative_int, parsed_by, positive_int
from harness.commands.suggest import did_you_mean, options_in
from harness.errors import InputError, RunFailedError
from harness.launch import LaunchOptions, add_launcher_arguments
from harness.profiling.grid import parse_lengths
from harness.studies.plans import TuneContext
from harness.studies.space import first_values, read_space
from harness.training.config import command_overrides
from reports.contracts.study import BEST_CONFIG

STUDY_NAMES = ("block-length", "block-length-memory", "dropout", "search")
FIT_OVERRIDES = True  # harness.cli hands the words it does not know on as ``args.words``
FIT_SECTIONS = ("--trainer.", "--model.", "--data.")
BUDGET_KEYS = ("max_steps", "max_epochs", "limit_train_batches", "limit_val_batches")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = (
        "Fit options (--trainer.*, --model.*, --data.*, as `sanbench fit` takes them) go to "
        f"every trial and into {BEST_CONFIG}; --max-steps, --max-epochs and --limit-* are "
        f"the trials' budget only ({BEST_CONFIG} trains the winner with the task's own)."
    )
    parser.add_argument("--study", required=True, choices=STUDY_NAMES)
    parser.add_argument(
        "--space", type=Path, help="search space YAML of --study search (docs/studies.md)"
    )
    parser.add_argument("--task", help="benchmark task (training studies)")
    parser.add_argument("--encoder", help="encoder (block-length: bi_blosan or an ablation)")
    parser.add_argument("--trials", type=positive_int, help="finished trials over all workers")
    parser.add_argument(
        "--storage",
        help="SQLAlchemy URL: sqlite:///PATH (default sqlite:///runs/studies/optuna.db) or "
        "postgresql://user:pass@host/db (pip install 'sanbench[postgres]')",
    )
    parser.add_argument("--study-name", help="optuna study name (default from study/task/encoder)")
    parser.add_argument("--out", type=Path, help="study folder (default runs/studies/NAME)")
    parser.add_argument("--data-dir", type=Path, help="folder holding the benchmark files")
    parser.add_argument("--embeddings", type=Path, help="GloVe text file (random vectors if unset)")
    add_encoding_argument(parser)
    add_max_length_argument(parser)
    parser.add_argument("--seed", type=int, default=0, help="training seed of every trial")
    parser.add_argument("--max-steps", type=positive_int, help="training budget per trial")
    parser.add_argument("--max-epochs", type=positive_int, help="training budget per trial")
    parser.add_argument("--limit-train-batches", type=batches, help="batches or fraction")
    parser.add_argument("--limit-val-batches", type=batches, help="batches or fraction")
    parser.add_argument(
        "--no-prune", dest="prune", action="store_false", help="single-objective: no pruning"
    )
    parser.add_argument(
        "--max-retry", type=non_negative_int, default=2, help="re-runs of a dead worker's trial"
    )
    parser.add_argument("--heartbeat", type=positive_int, default=30, help="RDB heartbeat seconds")
    parser.add_argument(
        "--outputs-only", action="store_true", help="only rewrite the outputs from the storage"
    )
    add_launcher_arguments(parser, "worker jobs sharing the study (1); --storage must reach them")
    memory = parser.add_argument_group("block-length-memory")
    memory.add_argument(
        "--lengths", type=parsed_by(parse_lengths), default=[32, 64, 128], help="n values"
    )
    memory.add_argument("--batch-size", type=positive_int, default=64)
    memory.add_argument("--dim", type=positive_int, default=300)
    memory.add_argument("--device", default="cpu")
    parser.set_defaults(known_options=options_in(parser))


def default_study_name(args: argparse.Namespace) -> str:
    if args.study == "block-length-memory":
        lengths = "-".join(str(n) for n in args.lengths)
        return f"block-length-memory-{args.device}-b{args.batch_size}-d{args.dim}-n{lengths}"
    return f"{args.study}-{args.task}-{args.encoder}"


def fit_overrides(words: list[str], known: list[str]) -> dict[str, Any]:
    """``--section.key VALUE`` / ``--section.key=VALUE`` words as fit overrides (values read as
    YAML, as LightningCLI reads them); :class:`InputError` naming each other word."""
    import yaml

    overrides, problems, rest = {}, [], iter(words)
    for word in rest:
        key, equals, value = word.partition("=")
        if not key.startswith(FIT_SECTIONS):
            problems.append(f"unrecognized argument {word}{did_you_mean(key, known)}")
            continue
        if not equals:
            value = next(rest, None)
            if value is None:
                problems.append(f"{key}: expected a value")
                continue
        overrides[key.removeprefix("--")] = yaml.safe_load(value)
    if problems:
        raise InputError("\n".join(problems))
    return overrides


def context(args: argparse.Namespace, study_name: str) -> TuneContext:
    every = command_overrides(args, BUDGET_KEYS)  # as `sanbench fit --trainer.max_steps`
    budget = {key: value for key, value in every.items() if key.startswith("trainer.")}
    overrides = {key: value for key, value in every.items() if key not in budget}
    overrides.update(fit_overrides(args.words, args.known_options))
    return TuneContext(
        study=args.study,
        task=args.task,
        encoder=args.encoder,
        data_dir=args.data_dir,
        embeddings=args.embeddings,
        out=args.out or Path("runs") / "studies" / study_name,
        seed=args.seed,
        overrides=overrides,
        budget=budget,
        space=read_space(args.space) if args.space is not None else {},
        prune=args.prune,
        lengths=tuple(args.lengths),
        batch_size=args.batch_size,
        dim=args.dim,
        device=args.device,
    )


def run_as_jobs(args: argparse.Namespace, ctx: TuneContext, options: LaunchOptions) -> None:
    """``options.jobs`` workers as submitit jobs on the shared storage, then the outputs here.

    The storage URL reaches the jobs through their environment (``SANBENCH_STORAGE``), never
    through the job files submitit pickles under ``OUT/jobs/``, so a password stays out of them.
    """
    from harness.launch import launch
    from harness.studies.run import run_study
    from harness.studies.storage import STORAGE_ENV

    study_name = args.study_name or default_study_name(args)
    call = functools.partial(  # storage None: the jobs read $SANBENCH_STORAGE
        run_study,
        ctx,
        study_name,
        None,
        args.trials,
        max_retry=args.max_retry,
        heartbeat_s=args.heartbeat,
    )
    if args.storage:  # the jobs inherit it (harness.cli restores the environment afterwards)
        os.environ[STORAGE_ENV] = args.storage
    outcomes = launch(
        [call] * (options.jobs or 1), options, ctx.out / "jobs", f"sanbench-tune-{study_name}"
    )
    for outcome in outcomes:
        status = "done" if outcome.ok else f"died: {outcome.error}"
        print(f"worker job {outcome.job_id}: {status} (log: {outcome.stdout})")
    summary = run_study(ctx, study_name, args.storage, args.trials, run_trials=False)
    _print_summary(summary, ctx)
    died = [o for o in outcomes if not o.ok]
    if died:
        raise RunFailedError(f"{len(died)} of {len(outcomes)} worker jobs died (logs above)")


def _print_summary(summary: dict, ctx: TuneContext) -> None:
    shown = {k: summary[k] for k in ("optuna_study", "trial_counts", "best", "results")}
    print(json.dumps(shown, indent=2, default=str))
    if summary["fit_command"]:
        print("best configuration:\n  " + summary["fit_command"])
    print(f"outputs: {ctx.out}")


def training_problems(ctx: TuneContext) -> list[str]:
    """What is wrong with a training study's task, encoder, files (every bad line of them) or
    budget, every problem at once, before any training."""
    from harness.training.fit_run import FitRun
    from harness.training.inputs import check_fit_inputs

    missing = [
        f"--{n.replace('_', '-')}"
        for n in ("task", "encoder", "data_dir")
        if getattr(ctx, n) is None
    ]
    if missing:
        return [f"study {ctx.study!r} trains models: pass {', '.join(missing)}"]
    problems = []
    if (ctx.study == "search") != bool(ctx.space):
        problems.append("--space FILE goes with --study search, and --study search needs it")
    if not ctx.data_dir.is_dir():
        problems.append(f"--data-dir {ctx.data_dir}: no such folder")
    if ctx.embeddings is not None and not ctx.embeddings.is_file():
        problems.append(f"--embeddings {ctx.embeddings}: no such file")
    from encoders import list_encoders

    if ctx.encoder not in list_encoders():
        problems.append(f"unknown encoder {ctx.encoder!r}; known: {', '.join(list_encoders())}")
    if problems:
        return problems
    run = FitRun(
        ctx.task,
        ctx.encoder,
        ctx.data_dir,
        ctx.out,
        ctx.embeddings,
        ctx.seed,
        overrides={**ctx.overrides, **ctx.budget, **first_values(ctx.space)},
    )
    try:
        run.resolved()
        check_fit_inputs([run])
    except ValueError as error:
        return [str(error)]
    return []


def run(args: argparse.Namespace) -> int:
    from harness.studies.storage import storage_url

    options = LaunchOptions.from_args(args)
    study_name = args.study_name or default_study_name(args)
    ctx = context(args, study_name)
    problems = [] if options is None else options.problems()
    try:
        storage_url(args.storage)
    except ValueError as error:
        problems.append(str(error))
    if args.study != "block-length-memory" and not args.outputs_only:
        problems += training_problems(ctx)
    if problems:
        raise InputError("\n".join(problems))
    if options is not None and not args.outputs_only:
        run_as_jobs(args, ctx, options)
        return 0
    from harness.studies.run import run_study

    summary = run_study(
        ctx,
        study_name,
        args.storage,
        args.trials,
        run_trials=not args.outputs_only,
        max_retry=args.max_retry,
        heartbeat_s=args.heartbeat,
    )
    _print_summary(summary, ctx)
    return 0
