"""``run_tune``: check a study's inputs, then run its trials here or as worker jobs sharing
the study's storage, and write its outputs."""

from __future__ import annotations

import functools
import os
from dataclasses import fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from datamodules.errors import nearest
from harness.command_parser import (
    as_typed,
    encoder_choice_problems,
    options_typed,
    said_as_written,
    typed_now,
)
from harness.errors import RunInterruptedError, refusal
from harness.studies.options import StudyOptions
from harness.studies.plans import (
    BLOCK_LENGTH,
    BLOCK_LENGTH_MEMORY,
    DROPOUT,
    DROPOUT_KEY,
    SEARCH,
    STUDIES,
    TuneContext,
)
from harness.studies.space import ends, searched_flag_problems
from harness.training.settings.fit_overrides import budget_problems_of, fit_typed, without_budget

if TYPE_CHECKING:
    from harness.training.settings.fit_run import FitRun

Typed = dict[str, tuple[str, str]]  # a key -> its option and its value, as typed


def run_as_jobs(options: StudyOptions, ctx: TuneContext, storage: str) -> dict:
    """``options.jobs`` workers as jobs (``--launcher``) on the shared storage, then the outputs
    here; returns the study's summary. A study with every trial finished launches none.

    The storage URL reaches the jobs through their environment (``SANBENCH_STORAGE``), never
    through the job files submitit pickles under ``OUT/jobs/``, so a password stays out of them.
    """
    from harness.launch import launch, report_outcomes
    from harness.studies.registry import PLANS
    from harness.studies.storage import STORAGE_ENV
    from harness.studies.study import reclaim_killed_trials, run_study, trials_left

    study_name, launch_options = options.name, options.launch
    workers = launch_options.jobs or 1
    if not trials_left(ctx, study_name, storage, options.trials):
        print(f"study {study_name!r}: every trial is finished; no worker to launch")
        workers = 0
    call = functools.partial(  # storage None: the jobs read $SANBENCH_STORAGE
        run_study,
        ctx,
        study_name,
        None,
        options.trials,
        max_retry=options.max_retry,
        heartbeat_s=options.heartbeat,
        opening=False,  # said once by trials_left
    )
    os.environ[STORAGE_ENV] = storage  # the jobs inherit it (harness.cli restores the environment)
    jobs = f"sanbench-tune-{study_name}"
    try:
        outcomes = launch([call] * workers, launch_options, ctx.out / "jobs", jobs)
    except RunInterruptedError:
        if launch_options.launcher == "process":  # its jobs have ended: none is still saving
            reclaim_killed_trials(ctx, study_name, storage, jobs)
        raise
    summary = run_study(ctx, study_name, storage, options.trials, run_trials=False)
    print_summary(summary, ctx)
    # a dead job's trial continued by another worker, the study finished: the work is done
    done = finished_trials(summary) >= (options.trials or PLANS[ctx.study](ctx).default_trials)
    report_outcomes(
        outcomes,
        resume="rerun the same command to finish the study",
        finished=FINISHED_ALL_THE_SAME if done else None,
    )
    return summary


FINISHED_ALL_THE_SAME = (
    "the other workers continued any trial left running and finished the study: nothing to rerun"
)


def finished_trials(summary: dict) -> int:
    """How many of the study's trials are finished (complete or pruned), by its summary."""
    from harness.studies.workers import FINISHED

    counts = summary["trial_counts"]
    return sum(counts.get(state.name.lower(), 0) for state in FINISHED)


def print_summary(summary: dict, ctx: TuneContext) -> None:
    """The study in the words of its trial lines (:mod:`harness.studies.console_lines`), the
    command that trains its best configuration, and where its outputs are."""
    from harness.studies.console_lines import summary_lines

    print("\n".join(summary_lines(summary)))
    if summary["fit_command"]:
        print("best configuration:\n  " + summary["fit_command"])
    print(f"outputs: {ctx.out.absolute()}")


def training_problems(ctx: TuneContext, read_files: bool = True) -> list[str]:
    """What is wrong with a training study's task, encoder, config or budget, every problem at
    once, before any training: the options left out, the paths, :func:`trial_config_problems`;
    with none and ``read_files`` (no other problem was found), the files are read and their
    every bad line raised (:class:`InputError`)."""
    from harness.studies.fitting import missing_for_training
    from harness.training.inputs import check_fit_inputs
    from harness.training.settings.fit_overrides import path_problems

    problems = missing_for_training(ctx)
    if ctx.study == SEARCH and ctx.space_file is None:  # a file's refused value: said itself
        problems.append("--space is required: --study search needs a search space file")
    if ctx.data_dir is not None:
        problems += path_problems("--data-dir", ctx.data_dir, folder=True)
    if ctx.embeddings is not None:
        problems += path_problems("--embeddings", ctx.embeddings, folder=False)
    runs, config_problems = _trial_configs(ctx)
    problems = list(dict.fromkeys(problems + config_problems))  # a line of every run's once
    if problems or not read_files:  # the files' every bad line once the rest is right
        return problems
    with options_typed(runs[0][1]):
        check_fit_inputs([runs[0][0]])  # raises: the files' lines (no --help pointer)
    return []


def trial_config_problems(ctx: TuneContext) -> list[str]:
    """The problems of the trials' task and encoder names, the searched keys given as flags, and
    each trial's fit config, reading no file (what ``--print_config`` judges of a study)."""
    return list(dict.fromkeys(_trial_configs(ctx)[1]))


def _trial_configs(ctx: TuneContext) -> tuple[list[tuple[FitRun, Typed]], list[str]]:
    """The trials' fits to check (:func:`searched_runs`) and :func:`trial_config_problems`."""
    from harness.training.settings.fit_cli import encoder_stand_in, fit_key_problems
    from harness.training.settings.task_configs import task_option_problems, task_stand_in

    problems = []
    if ctx.study != SEARCH and ctx.space_file is not None:
        problems.append("--space FILE goes with --study search, and --study search needs it")
    given = [ctx.task] if ctx.task else []  # a missing one: said by missing_for_training
    names = task_option_problems(as_typed("task", "")[0], given)  # a config file's key so
    named = encoder_choice_problems(as_typed("encoder", "")[0], ctx.encoder)
    task = task_stand_in(ctx.task) if names else ctx.task  # an unknown name judged as its nearest
    encoder = encoder_stand_in(ctx.encoder) if named else ctx.encoder
    problems += names + named
    if task is None or encoder is None:  # no config of theirs: the keys no fit takes alone
        return [], problems + fit_key_problems(ctx.overrides)
    if ctx.study == BLOCK_LENGTH and not named:  # before any file is read
        from harness.studies.block_length import block_len_problems

        problems += block_len_problems(as_typed("encoder", "")[0], encoder)
    if ctx.space_file is not None:
        searched = f"--space {ctx.space_file}", list(ctx.space)
        problems += searched_flag_problems(*searched, fit_typed(typed_now()))
    elif ctx.study == DROPOUT:  # each trial's model.dropout is 1 - keep_prob
        searched = f"--study {DROPOUT}", [DROPOUT_KEY]
        problems += searched_flag_problems(*searched, fit_typed(typed_now()))
    runs = searched_runs(ctx, task, encoder)
    for run, typed in runs:
        with options_typed(typed):
            try:
                run.resolved()
            except ValueError as error:
                problems += str(error).splitlines()
    return runs, problems


def searched_runs(ctx: TuneContext, task: str, encoder: str) -> list[tuple[FitRun, Typed]]:
    """The trials' fits to check before any trial: one (of no search space), or one per
    :func:`harness.studies.space.ends` config, each with the command's options as typed, a
    searched key named as the space file writes it."""
    from harness.training.settings.fit_run import FitRun

    configs = ends(ctx.space_file, ctx.space) if ctx.space else [{}]  # its good entries
    own = {DROPOUT_KEY} if ctx.study == DROPOUT else set()  # a trial's, its flag said refused
    runs = []
    for config in configs:
        values = {key: value for key, (value, _, _) in config.items()}
        kept = {key: value for key, value in ctx.overrides.items() if key not in own}
        overrides = {**kept, **ctx.budget, **values}
        run = FitRun(
            task, encoder, ctx.data_dir, ctx.out, ctx.embeddings, ctx.seed, overrides=overrides
        )
        named = {key: (option, text) for key, (_, option, text) in config.items()}
        runs.append((run, {**typed_now(), **named}))
    return runs


def trial_problems(options: StudyOptions, ctx: TuneContext, read_files: bool) -> list[str]:
    """A training study's :func:`training_problems`, its trials' configs checked without the
    budget when the budget's own problems are said (not twice); none for other studies."""
    if options.study == BLOCK_LENGTH_MEMORY or options.outputs_only:
        return []
    return training_problems(_unbudgeted(options, ctx), read_files=read_files)


def printed_problems(options: StudyOptions) -> list[str]:
    """What ``--print_config`` refuses of a study: its values as the run judges them reading no
    file (the budget, each trial's fit config; a ``--storage`` no run takes, said by
    :class:`StudyOptions`), not the options left out, the paths, the launcher or the storage's
    server and driver, which the machine that runs it decides (a file to fill in)."""
    problems = budget_problems_of(options.budget, options.fit)
    if options.study == BLOCK_LENGTH_MEMORY or options.outputs_only:
        return problems
    return problems + trial_config_problems(_unbudgeted(options, options.context()))


def _unbudgeted(options: StudyOptions, ctx: TuneContext) -> TuneContext:
    """``ctx`` without the budget when the budget's own problems are said (not twice)."""
    if budget_problems_of(options.budget, options.fit):
        return replace(ctx, budget={}, overrides=without_budget(ctx.overrides))
    return ctx


# the options a stand-in for refused options takes at their defaults: the study's own numbers
STAND_IN_DEFAULTS = ("trials", "max_retry", "heartbeat", "lengths", "batch_size", "dim")
STAND_IN_DEFAULTS += ("attention_impl", "storage")


def problems_beside_options(values: dict[str, Any]) -> list[str]:
    """The trials' fit values' problems when the study's own options are refused (``--trials
    0``): checked on a stand-in (:func:`stand_in_options`), so that they are named in the same
    refusal (``build``'s ``beside``); the study left out, the fit keys no trial takes
    (:func:`fit_key_problems`); no file is read."""
    options = stand_in_options(values)
    if not isinstance(options, StudyOptions):
        return options
    return options.space_problems + trial_problems(options, options.context(), read_files=False)


def printed_beside_options(values: dict[str, Any]) -> list[str]:
    """What ``--print_config`` says beside the study's own options refused: the stand-in's
    :func:`printed_problems` (:func:`stand_in_options`), as the run says
    :func:`problems_beside_options`."""
    options = stand_in_options(values)
    return options if not isinstance(options, StudyOptions) else printed_problems(options)


def stand_in_options(values: dict[str, Any]) -> StudyOptions | list[str]:
    """A stand-in for the study's refused options, the study's own numbers at their defaults,
    an unknown study as its nearest (``dropoutt``: dropout); where none can be made (the study
    left out), the lines said instead: the fit keys no trial takes (:func:`fit_key_problems`)."""
    from harness.training.settings.fit_cli import fit_key_problems

    defaults = {f.name: f.default for f in fields(StudyOptions) if f.name in STAND_IN_DEFAULTS}
    study = values.get("study")
    if isinstance(study, str) and study not in STUDIES:
        defaults["study"] = nearest(study, STUDIES)
    try:
        options = StudyOptions(**{**values, **defaults})
        options.context()
    except ValueError:  # the study's name says itself (left out): the keys no fit takes alone
        fit = values.get("fit")
        return [] if fit is None else fit_key_problems(fit.dotted())
    return options


def unread_problems(options: StudyOptions, storage: str) -> list[str]:
    """What the study refuses reading no file, every problem at once: a budget that trains
    nothing, its launcher, its storage URL (``storage``, chosen), beside the trials' configs'
    problems (:func:`trial_problems`, not here)."""
    from harness.studies.storage import default_storage, storage_problems

    problems = budget_problems_of(options.budget, options.fit) + options.launch.problems()
    if storage == default_storage(Path(options.context().out)):  # its folder: --out's, said as it
        return problems
    return problems + storage_problems(options.storage, driver=True)  # else $SANBENCH_STORAGE


def run_tune(options: StudyOptions) -> dict:
    """Run (or continue) the study and write its outputs; returns its summary (printed too)."""
    from harness.studies.storage import chosen_storage
    from harness.studies.study import is_finished

    ctx = options.context()
    storage = chosen_storage(options.storage, ctx.out)
    problems = unread_problems(options, storage)
    # a finished study trains nothing: its files were read as its trials ran, not again
    done = not problems and is_finished(ctx, options.name, storage, options.trials)
    problems += trial_problems(options, ctx, read_files=not problems and not done)
    if problems:
        raise refusal(said_as_written(problems))  # a config file's as written
    if not options.launch.in_process and not options.outputs_only:
        return run_as_jobs(options, ctx, storage)
    from harness.studies.study import run_study

    summary = run_study(
        ctx,
        options.name,
        storage,
        options.trials,
        run_trials=not options.outputs_only,
        max_retry=options.max_retry,
        heartbeat_s=options.heartbeat,
    )
    print_summary(summary, ctx)
    return summary
