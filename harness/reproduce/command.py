"""The ``sanbench reproduce`` command: its options' parser and its run function."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

from jsonargparse import Namespace

from harness.command_parser import CommandParser, as_typed, build, said_as_written
from harness.errors import FilesError, InputError, error_lines, refusal
from harness.outdir import out_folder
from harness.reproduce import ReproduceOptions, run_reproduce
from harness.reproduce.options import NOT_WITH_TABLES_ONLY
from harness.reproduce.reproduce import (
    data_folder_problems,
    out_problems,
    printed_problems,
    problems_beside_options,
    run_overrides,
    run_problems,
)
from harness.training.settings.fit_overrides import DataOptions

OUT_AFTER_CHECKS = True  # --out is checked beside the options' problems (harness.cli)


def add_arguments(parser: CommandParser) -> None:
    parser.add_options(ReproduceOptions)
    parser.printed_values_problems = printed_values_problems


def printed_values_problems(namespace: Namespace) -> list[str]:
    """:func:`harness.reproduce.reproduce.printed_problems` of the options parsed (a file's
    ``model: {hidden_dim: 0}``), judged before ``--print_config`` prints them, their own
    problems too (``--threads 0``; the paths left to the run), the runs' beside them, as the
    run says them (:func:`problems_beside_options`: beside a data folder clash too)."""
    beside = functools.partial(problems_beside_options, data=data_given(namespace))
    try:
        options = build(ReproduceOptions, namespace, beside=beside, paths=False)
    except FilesError:  # the paths alone: the run's machine decides them
        return []
    except InputError as error:  # the options' own problems
        return error_lines(error)
    return printed_problems(options)


def data_given(config: Namespace) -> dict[str, Any]:
    """The data options as given, to be judged beside a refused ``--max-length`` or
    ``--encoding``, whose part is then not built."""
    return {
        field.name: getattr(config, field.name, None) for field in dataclasses.fields(DataOptions)
    }


def not_taken_once(error: InputError, data: dict[str, Any]) -> InputError:
    """``error`` without the value's own line of each data option of ``data`` said not taken
    with ``--tables-only`` (``--max-length 0``: its "not taken" line alone, not also
    ``--max-length 0: expected a positive number``): left out, its value does nothing."""
    lines = error_lines(error)
    options = {as_typed(key, value)[0] for key, value in data.items() if value is not None}
    not_taken = {
        option
        for option in options
        for line in lines
        if line.startswith(f"{option} ") and line.endswith(NOT_WITH_TABLES_ONLY)
    }
    return refusal(
        line
        for line in lines
        if line.endswith(NOT_WITH_TABLES_ONLY)
        or not any(line.startswith((f"{option}:", f"{option} ")) for option in not_taken)
    )


def reproduce(config: Namespace) -> int:
    """sanbench reproduce: Bi-BloSAN Table 6 / MTSA Table 5 on this machine, beside the papers.

        sanbench reproduce --data-dir ../shared/datasets \\
            --embeddings ../shared/datasets/glove/glove.6B.50d.subset.txt --out runs/reproduce
        sanbench reproduce --preset paper --launcher slurm --jobs 54 --slurm-time 600 ...
        sanbench reproduce --tasks trec --encoders multi_cnn,bi_blosan ...   # a part of the grid

    Runs the preset (harness/reproduce/preset.py), or the part --tasks x --encoders of
    it, as --jobs jobs (--launcher process, the default: forked processes of --threads
    threads on this console; local or slurm: submitit), resumes after a kill without
    repeating finished runs, then writes the suite's tables and the reproduction tables
    (OUT/reproduction/). Run it when nothing is being timed.
    """
    data = data_given(config)
    try:
        options = build(
            ReproduceOptions, config, beside=functools.partial(problems_beside_options, data=data)
        )
    except InputError as error:
        if not getattr(config, "tables_only", False):
            raise
        raise not_taken_once(error, data) from None
    out_lines, problems = out_problems(options.out), run_problems(options)
    folder = (
        []
        if options.tables_only
        else data_folder_problems(
            dataclasses.replace(options.part, overrides=run_overrides(options)),
            options.inputs,
            bool(problems),
        )
    )  # the grid's runs as they will read the folder
    if problems or folder:  # said together, in fit's order; --out's alone: out_folder's
        raise refusal(said_as_written([*problems, *out_lines, *folder]))  # as written
    with out_folder("reproduce", options.out):
        print(f"tables: {run_reproduce(options).absolute()}")
    return 0
