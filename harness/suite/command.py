"""The ``sanbench suite`` command: its options' parser and its run function."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from jsonargparse import Namespace

from harness.command_parser import CommandParser, build, said_as_written
from harness.errors import FilesError, FilesProblem, InputError, error_lines, refusal
from harness.outdir import out_folder, out_folder_problems
from harness.suite import SuiteOptions, run_suite
from harness.suite.suite import (
    ONE_RUN,
    data_folder_problems,
    printed_problems,
    problems_beside_options,
    unread_problems,
)
from harness.training.settings.fit_overrides import DataOptions, fit_overrides

OUT_AFTER_CHECKS = True  # --out is checked beside the options' problems (harness.cli)
OUT_STAND_IN = "out"  # a left-out --out's, for the runs' folders' names only: nothing is made


def add_arguments(parser: CommandParser) -> None:
    """The options; a required one left out (``--out``) is said beside the others' problems."""
    parser.add_options(SuiteOptions)
    parser.beside_missing = missing_beside
    parser.printed_values_problems = printed_values_problems


def printed_values_problems(namespace: Namespace) -> list[str]:
    """:func:`harness.suite.suite.printed_problems` of the options parsed (a file's ``model:
    {hidden_dim: 0}``), judged before ``--print_config`` prints them, their own problems too
    (``--seeds 0``, the paths' left to the run), a left-out ``--out`` or not."""
    try:
        options, overrides = _stand_in_built(namespace, printed_beside, paths=False)
    except FilesError:  # the paths alone: the run's machine decides them
        return []
    except InputError as error:  # the options' own: said here too when --out is left out
        return error_lines(error)
    return printed_problems(options, overrides)


def printed_beside(values: dict[str, Any]) -> list[str]:
    """:func:`harness.suite.suite.printed_problems` of a stand-in of one seed and fold when the
    suite's own options are refused (``--seeds 0`` beside ``--model.hidden_dim 0``), what
    ``--print_config`` says beside them, as the run says :func:`beside_options`."""
    try:
        options = SuiteOptions(**{**values, **ONE_RUN})
        overrides = fit_overrides(options.inputs, options.budget, options.fit)
    except ValueError:  # a task or encoder list, or a clash, that says itself: no run to check
        return []
    return printed_problems(options, overrides)


def missing_beside(namespace: Namespace) -> list[str]:
    """The other options' problems when ``--out`` is left out (``--data-dir /nonexist``): the
    whole's, the runs' and the data folder's, as with an ``--out`` given."""
    paths = DataOptions.paths_given(namespace)
    try:
        beside = functools.partial(_beside_with_paths, paths=paths)
        options, overrides = _stand_in_built(namespace, beside)
    except InputError as error:
        return str(error).splitlines()
    return unread_problems(options, overrides) + data_folder_problems(options, overrides, True)


def _stand_in_built(
    namespace: Namespace,
    beside: Callable[[dict[str, Any]], list[str]] | None = None,
    paths: bool = True,
) -> tuple[SuiteOptions, dict[str, Any]]:
    """The options parsed (``build``, ``beside`` said with their problems; ``paths``: as
    ``build``'s), a left-out ``--out`` as :data:`OUT_STAND_IN`, and their fit overrides."""
    namespace = namespace.clone()
    namespace["out"] = namespace.get("out") or OUT_STAND_IN
    options = build(SuiteOptions, namespace, beside=beside, paths=paths)
    return options, fit_overrides(options.inputs, options.budget, options.fit)


def _beside_with_paths(values: dict[str, Any], paths: DataOptions) -> list[str]:
    """:func:`problems_beside_options`, ``paths`` standing in for a refused data part."""
    return problems_beside_options({"inputs": paths, **values})


def beside_options(values: dict[str, Any], paths: DataOptions) -> list[str]:
    """The problems said beside a refused option (``--seeds 0``): the names', files' and fit
    values' (:func:`problems_beside_options`), then ``--out``'s (``--out /proc/x``) and the
    data folder's (``--data-dir glove``), in fit's order; ``paths`` stand in for a refused
    data part (``--max-length 0``: :meth:`DataOptions.paths_given`)."""
    values = {"inputs": paths, **values}
    out = out_folder_problems(values.get("out"), "suite")  # paths' problems: no pointer alone
    problems = problems_beside_options(values) + [FilesProblem(line) for line in out]
    try:
        options = SuiteOptions(**{**values, **ONE_RUN})
        overrides = fit_overrides(options.inputs, options.budget, options.fit)
    except ValueError:  # a task or encoder list, or a clash, that says itself: no run to read
        return problems
    folder = data_folder_problems(options, overrides, others=True)
    return problems + [FilesProblem(line) for line in folder]


def suite(config: Namespace) -> int:
    """sanbench suite: run a grid of tasks x encoders x seeds (or CV folds), then aggregate.

        sanbench suite --tasks cr,trec,sst2 --encoders bi_blosan,mtsa --seeds 5 \\
            --data-dir ../shared/datasets --embeddings glove.txt --out runs/suite --shard 1/4
        sanbench suite --tasks trec --encoders mtsa --data-dir D --out mtsa --print_config > s.yaml
        sanbench suite --config s.yaml --model.dropout 0.3

    docs/suite.md: the protocol, the output files, resuming and sharding.
    """
    paths = DataOptions.paths_given(config)
    options = build(SuiteOptions, config, beside=functools.partial(beside_options, paths=paths))
    overrides = fit_overrides(options.inputs, options.budget, options.fit)
    problems = unread_problems(options, overrides)
    out_problems = out_folder_problems(options.out, "suite")
    folder = data_folder_problems(options, overrides, bool(problems))  # alone too: one line
    if problems or folder:  # said together, in fit's order; --out's alone: out_folder's
        lines = problems + [FilesProblem(line) for line in out_problems + folder]
        raise refusal(said_as_written(lines))  # a config file's value as written
    with out_folder("suite", options.out):  # alone, the folder's refusal (no --help pointer)
        run_suite(options)
    return 0
