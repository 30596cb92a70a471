"""The ``sanbench tune`` command: its options' parser and its run function."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from jsonargparse import Namespace

from harness.command_parser import CommandParser, build, said_as_written
from harness.errors import FilesError, FilesProblem, InputError, error_lines, refusal
from harness.outdir import mark, out_folder, out_folder_problems
from harness.studies import StudyOptions, run_tune
from harness.studies.plans import BLOCK_LENGTH_MEMORY
from harness.studies.storage import storage_env_unread
from harness.studies.tune import (
    printed_beside_options,
    printed_problems,
    problems_beside_options,
    trial_problems,
)
from harness.studies.tune import unread_problems as study_problems
from harness.training.settings.fit_overrides import DataOptions, FitSections, with_section_paths

OUT_AFTER_CHECKS = True  # --out is checked beside the options' problems (harness.cli)


def add_arguments(parser: CommandParser) -> None:
    parser.add_options(StudyOptions)
    parser.printed_values_problems = printed_values_problems


def printed_values_problems(namespace: Namespace) -> list[str]:
    """:func:`harness.studies.tune.printed_problems` of the options parsed, judged before
    ``--print_config`` prints them, their own problems too (``--trials 0``), the trials' values'
    beside them, as the run says them (the paths left to the run)."""
    try:
        options = build(StudyOptions, namespace, beside=printed_beside_options, paths=False)
    except FilesError:  # the paths alone: the run's machine decides them
        return []
    except InputError as error:  # the options' own, the trials' values' beside them
        return error_lines(error)
    return printed_problems(options)


def beside_options(values: dict[str, Any], paths: DataOptions) -> list[str]:
    """The problems said beside a refused option (``--trials 0``): the trials' fit values'
    (:func:`problems_beside_options`), then a given ``--out``'s (``--out /proc/x``) and the
    data folder's (``--data-dir glove``), in fit's order; ``paths`` stand in for a refused
    data part (``--max-length 0``: :meth:`DataOptions.paths_given`)."""
    values = {"inputs": paths, **values}
    if values.get("fit") is not None:  # a config file's data: {data_dir: D}, as the run's
        values["inputs"] = with_section_paths(values["inputs"], values["fit"])
    out = out_folder_problems(values.get("out"), "tune")  # paths' problems: no pointer alone
    with storage_env_unread():  # $SANBENCH_STORAGE: the options' own line, not the stand-in's
        problems = problems_beside_options(values) + [FilesProblem(line) for line in out]
    folder = data_folder_problems(
        values.get("study"), values.get("task"), values.get("inputs"), values.get("fit"), True
    )
    return problems + [FilesProblem(line) for line in folder]


def data_folder_problems(
    study: str | None,
    task: str | None,
    inputs: DataOptions | None,
    fit: FitSections | None,
    others: bool = False,
) -> list[str]:
    """A training study's ``--data-dir`` holding none of its task's files (``--data-dir
    glove``), in the words the data's read says it, reading no data: one line, alone too or
    beside the other problems (``--out``'s too); beside it or ``others`` (another problem
    said), the vectors file's bad lines (``beside_folder_problems``)."""
    from datamodules.readers.layouts import data_dir_problem
    from datamodules.tasks import get_task
    from datamodules.vectors import beside_folder_problems

    data_dir = None if inputs is None else inputs.data_dir
    if study == BLOCK_LENGTH_MEMORY or task is None or data_dir is None or not data_dir.is_dir():
        return []  # no data read, or a missing folder or task: said by their own checks
    try:
        spec = get_task(task)
        layout = None if fit is None else fit.dotted().get("data.layout")
    except (LookupError, ValueError, OSError):  # a misspelt name or task file: said itself
        return []
    problem = data_dir_problem([spec], Path(data_dir), layout)
    return beside_folder_problems([problem] if problem else [], inputs.embeddings, others)


def tune(config: Namespace) -> int:
    """sanbench tune: optuna studies over the harness (block length, dropout, memory).

        sanbench tune --study block-length --task trec --encoder bi_blosan --trials 12 \\
            --data-dir ../shared/datasets --max-steps 200 --storage sqlite:///runs/studies/optuna.db
        sanbench tune --study block-length-memory --lengths 32,64,128

    Start the same command in several processes (or machines, with a shared database URL) to
    share one study; the total number of finished trials stays --trials. Fit options
    (--trainer.*, --model.*, --data.*, as sanbench fit takes them) go to every trial and into
    the best configuration; --max-steps, --max-epochs and --limit-* are the trials' budget only.
    """
    # --out (or the study's default folder, runs/studies/NAME) is checked beside every other
    # problem, before any trial; it is made only once the options are right
    paths = DataOptions.paths_given(config)
    options = build(StudyOptions, config, beside=functools.partial(beside_options, paths=paths))
    out = options.context().out
    problems = options.space_problems + unread_problems(options)
    folder = (
        []
        if options.outputs_only
        else data_folder_problems(
            options.study, options.task, options.inputs, options.fit, bool(problems)
        )
    )
    out_problems = out_folder_problems(out, "tune")
    if problems or folder:  # said together, in fit's order: one refusal
        # the help pointed to for a problem of the words (cli._status)
        lines = problems + [FilesProblem(line) for line in out_problems + folder]
        raise refusal(said_as_written(lines))  # a config file's as written
    with out_folder("tune", out):
        mark(out, "tune")  # before the study's first file: every worker of it writes there
        run_tune(options)
    return 0


def unread_problems(options: StudyOptions) -> list[str]:
    """What ``run_tune`` refuses reading no file (:func:`harness.studies.tune.unread_problems`,
    beside the trials' configs), every problem at once: said before ``--out`` is made (until
    2026-11-30 ``--max-epochs 0`` made it, then took it away)."""
    from harness.studies.storage import chosen_storage

    ctx = options.context()
    problems = study_problems(options, chosen_storage(options.storage, ctx.out))
    return problems + trial_problems(options, ctx, read_files=False)
