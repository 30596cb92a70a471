"""``run_suite``: check a suite's inputs, run its grid here or as jobs, aggregate its tables."""

from __future__ import annotations

import contextlib
import functools
import os
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness.command_parser import as_typed, encoder_choice_problems, nearest
from harness.errors import InputError, RunFailedError, refusal
from harness.launch import LaunchOptions, launch, report_outcomes
from harness.launch.threads import planned_threads
from harness.redaction import recorded_command
from harness.report.options import SITE_FOLDER, report_command
from harness.suite.grid import CV_TASKS, RunSpec, Shard, expand_grid, grid_problems
from harness.suite.options import SuiteOptions
from harness.suite.runner import (
    FitFn,
    all_results_files,
    finished_keys,
    finished_runs,
    fit_run,
    results_path,
    run_shard,
    settings_problems,
    suite_writer,
)
from harness.training.run_folder import NOT_COMPARED, used_values
from harness.training.settings.fit_overrides import (
    budget_problems_of,
    fit_overrides,
    without_budget,
)
from harness.training.settings.fit_run import FitRun
from harness.training.settings.task_configs import task_option_problems, task_stand_in
from reports.contracts.manifest import SUITE_RUN, read_manifest_if_any, write_manifest
from reports.contracts.suite_results import COMPARISON, RUNS_FOLDER, SUMMARY


def input_problems(options: SuiteOptions) -> list[str]:
    """What is wrong with the grid's names and files, every problem at once (a misspelt
    benchmark, ``treec``, needs the data folder as the one it stands for: its absence is said
    beside its name, not once the name is fixed)."""
    from datamodules.tasks import canonical_name

    names = [task_stand_in(task) or task for task in options.task_names]
    benchmarks = [task for task in names if canonical_name(task) is not None]
    problems = options.inputs.file_problems(
        "unless --aggregate-only (or every task is a task file)", folder_needed=bool(benchmarks)
    )
    return problems + options.launch.problems() + name_problems(options)


def name_problems(options: SuiteOptions) -> list[str]:
    """What is wrong with the grid's names, every problem at once."""
    typed_option = as_typed("tasks", "")[0]  # a config file's key named as the file's
    problems = task_option_problems(typed_option, options.typed_task_names)  # as typed
    if not problems:  # a task file's fold count is read from it
        grid = (options.task_names, options.encoder_names, options.seeds, options.folds)
        problems += grid_problems(*grid)
    option = as_typed("encoders", "")[0]  # a config file's key named as the file's
    for name in options.encoder_names:
        problems += encoder_choice_problems(option, name)
    return problems


def known_runs(options: SuiteOptions, stand_ins: bool = False) -> list[RunSpec]:
    """The runs of the grid's tasks and encoders that name one; [] when that grid is too
    large to list (:func:`input_problems` names it). With ``stand_ins``, an unknown task or
    encoder is stood in for by its nearest name (``treec``: trec, ``multi_cn``: multi_cnn), so
    that the fit values are judged in the same refusal as the name, not after its fix."""
    from encoders import list_encoders

    tasks = []
    for name in options.task_names:
        if not task_option_problems("--tasks", [name]):
            tasks.append(name)
        elif stand_ins and (close := task_stand_in(name)):
            tasks.append(close)
    tasks = list(dict.fromkeys(tasks))
    encoders = []
    for name in options.encoder_names:
        if not encoder_choice_problems("--encoders", name):
            encoders.append(name)
        elif stand_ins and (close := nearest(name, list_encoders())):
            encoders.append(close)
    encoders = list(dict.fromkeys(encoders))
    if grid_problems(tasks, encoders, options.seeds, options.folds):
        return []
    return expand_grid(tasks, encoders, options.seeds, options.folds)


def check_runs(options: SuiteOptions, overrides: dict[str, Any]) -> list[RunSpec]:
    """The grid's runs, once every problem before any training is named, all at once: the
    budget, the names and files (:func:`input_problems`), every (task, encoder)'s fit config
    (of the names that are known); then every run folder holding other settings
    (:func:`settings_problems`, before any data is read or job launched: until 2026-11-30 only
    a suite run here checked them, and only its finished runs); then every data file of every
    task (all bad lines)."""
    if problems := unread_problems(options, overrides):
        raise refusal(problems)  # the help pointed to for a problem of the words
    runs = known_runs(options)
    inputs = options.inputs
    # every run of the grid (the tables hold every shard's), whatever launches them
    if problems := settings_problems(
        runs, options.out, inputs.data_dir, inputs.embeddings, overrides
    ):
        raise InputError("\n".join(problems))
    from harness.training.inputs import check_fit_inputs

    done = finished_keys(options.out)  # their files were read as they ran: not again
    per_task = {run.task: run for run in runs if run.key not in done}.values()
    check_fit_inputs(_fit_run(run, options, overrides) for run in per_task)
    return runs


def unread_problems(options: SuiteOptions, overrides: dict[str, Any]) -> list[str]:
    """What :func:`check_runs` refuses first, reading no file, every problem at once: the
    budget, the names and files (:func:`input_problems`), every (task, encoder)'s fit config
    (of the names that are known; none of ``--aggregate-only``, which trains nothing)."""
    if options.aggregate_only:
        return []
    problems = budget_problems_of(options.budget, options.fit) + input_problems(options)
    return problems + run_config_problems(
        known_runs(options, stand_ins=bool(problems)), options, overrides
    )


def printed_problems(options: SuiteOptions, overrides: dict[str, Any]) -> list[str]:
    """What ``--print_config`` refuses of a suite: :func:`unread_problems` but the options left
    out, the paths and the launcher, which the machine that runs it decides (a file to fill
    in)."""
    if options.aggregate_only:
        return []
    problems = budget_problems_of(options.budget, options.fit) + name_problems(options)
    return problems + run_config_problems(known_runs(options, stand_ins=True), options, overrides)


def data_folder_problems(
    options: SuiteOptions, overrides: dict[str, Any], others: bool = False
) -> list[str]:
    """Each task's ``--data-dir`` holding none of its files (``--data-dir glove``), in the words
    the data's read says it, reading no data: one line, alone too or beside ``--out``'s
    problem (until 2026-12-01 said alone by :func:`check_runs`, per task), and beside a
    refused name or fit value (``--encoders bilstmm``: its nearest stands in;
    ``--model.dropout 2``: the folder as given); beside it or ``others`` (another problem
    said), the vectors file's bad lines."""
    from datamodules.readers.layouts import data_dir_problem
    from datamodules.tasks import get_task
    from datamodules.vectors import beside_folder_problems

    if options.aggregate_only:
        return []
    lacking: dict[tuple[Path, str | None], list[Any]] = {}  # a folder's tasks: said once
    given = options.inputs.data_dir
    for run in {run.task: run for run in known_runs(options, stand_ins=True)}.values():
        try:
            data = _fit_run(run, options, overrides).resolved()["data"]
        except (LookupError, ValueError, OSError):  # a fit value refused, which says itself
            data = {"task": run.task, "data_dir": options.inputs.data_dir}
            data["layout"] = overrides.get("data.layout")
        try:
            task = get_task(data["task"])
        except (LookupError, ValueError, OSError):  # a task file that says itself
            continue
        if data.get("data_dir") is None or not Path(data["data_dir"]).is_dir():
            continue  # a missing --data-dir: input_problems names it
        folder = Path(data["data_dir"])
        folder = given if given and os.path.samefile(given, folder) else folder  # as typed
        lacking.setdefault((folder, data.get("layout")), []).append(task)
    said = [data_dir_problem(tasks, *folder) for folder, tasks in lacking.items()]
    return beside_folder_problems([p for p in said if p], options.inputs.embeddings, others)


def run_config_problems(
    runs: list[RunSpec], options: SuiteOptions, overrides: dict[str, Any]
) -> list[str]:
    """:func:`config_problems` of ``runs``, checked without the budget when the budget's own
    problems are said (not twice)."""
    said = budget_problems_of(options.budget, options.fit)
    return config_problems(runs, options, without_budget(overrides) if said else overrides)


# what a stand-in for refused options takes: one run of each (task, encoder), no shard
ONE_RUN = {"seeds": 1, "folds": 1, "shard": "1/1"}


def problems_beside_options(values: dict[str, Any]) -> list[str]:
    """The names', files' and each known (task, encoder)'s fit values' problems when the suite's
    own options are refused (``--seeds 0``): checked on a stand-in of one seed and fold, so
    that they are named in the same refusal (``build``'s ``beside``)."""
    try:
        options = SuiteOptions(**{**values, **ONE_RUN})
        overrides = fit_overrides(options.inputs, options.budget, options.fit)
    except ValueError:  # a task or encoder list, or a clash, that says itself: no run to check
        return []
    problems = input_problems(options)
    return problems + run_config_problems(known_runs(options, stand_ins=True), options, overrides)


def config_problems(
    runs: list[RunSpec], options: SuiteOptions, overrides: dict[str, Any]
) -> list[str]:
    """The problems of every (task, encoder)'s fit config of ``runs``
    (:func:`pair_config_problems`)."""
    first = {(run.task, run.encoder): run for run in runs}  # seeds and folds parse alike
    return pair_config_problems(
        {pair: _fit_run(run, options, overrides) for pair, run in first.items()}
    )


def pair_config_problems(fits: Mapping[tuple[str, str], FitRun]) -> list[str]:
    """The problems of each (task, encoder)'s fit config ``fits``, one line each: a problem of
    every run said once (of one run too: as the command's own), the others with their run."""
    said: dict[tuple[str, str], list[str]] = {}
    for pair, fit in fits.items():
        try:
            fit.resolved()
        except ValueError as error:
            said[pair] = str(error).splitlines()
    every = [line for line in next(iter(said.values()), []) if len(said) == len(fits)]
    every = [line for line in every if all(line in lines for lines in said.values())]
    return every + [
        f"{task} {encoder}: {line}"
        for (task, encoder), lines in said.items()
        for line in lines
        if line not in every
    ]


def _fit_run(run: RunSpec, options: SuiteOptions, overrides: dict[str, Any]) -> FitRun:
    inputs = options.inputs
    return fit_run(run, run.run_dir(options.out), inputs.data_dir, inputs.embeddings, overrides)


def write_suite_manifest(
    options: SuiteOptions,
    overrides: dict[str, Any],
    tables: list[Path],
    trained: Sequence[str] = (),
    launched: Sequence[str] | None = None,
    missing: Sequence[str] = (),
    earlier: Sequence[str] = (),
) -> None:
    """``manifest.json``, read, updated and written under its own lock: the shards of a grid
    share the folder and may end at once. ``trained``: the runs this command finished
    (:func:`run_label`); ``launched``: the shards its jobs ran (None: it ran in-process);
    ``missing``: the runs of the grid it states with no finished row; ``earlier``: the runs
    of its shards finished before it started."""
    from filelock import FileLock

    with FileLock(options.out / MANIFEST_LOCK):
        _write_suite_manifest(options, overrides, tables, trained, launched, missing, earlier)


def run_label(key: Sequence[str]) -> str:
    """A run of the grid as the manifest names it: ``task/encoder/replicate``."""
    return "/".join(key)


def uncompared(overrides: dict[str, Any]) -> dict[str, Any]:
    """The keys of ``overrides`` that a rerun or another shard may change (``NOT_COMPARED``)."""
    return {k: v for k, v in overrides.items() if k in NOT_COMPARED}


def rerun_entry(
    command: str, overrides: dict[str, Any], trained: Sequence[str], now: str, shards: int
) -> dict:
    """A later command that trained runs of a suite or changed its grid (``reruns``): its
    command, the keys it gave that a rerun may change (:func:`uncompared`), the runs it
    trained and the number of shards it ran the grid as (its ``--shard K/N``'s N)."""
    from harness.measurement.environment import git_commit

    return {
        "command": command,
        "updated": now,
        "commit": git_commit(),
        "overrides": uncompared(overrides),
        "runs": list(trained),
        "shards": shards,
    }


# the NOT_COMPARED keys a suite's runs may differ on (every run has its own out; the data
# folder is an input, recorded by the command)
RUN_KEYS = tuple(key for key in NOT_COMPARED if key not in ("out", "data.data_dir"))


def recorded_overrides(
    first: dict[str, Any], given: set[str], used: Mapping[str, Mapping[str, list[Any]] | None]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``overrides`` ``manifest.json`` records and its ``mixed_overrides``, from the
    ``first`` command's overrides, the keys any recorded command ``given`` and ``used``: each
    finished run's values by its own files (``run_folder.used_values``; a run resumed under
    another value is listed under each; None: unknown, left out). A key of :data:`RUN_KEYS`
    the runs differ on is no override of the suite but, in ``mixed_overrides``, each value with
    the runs that trained with it; one a command gave that every run trained at one value is
    an override at that value. With a run of unknown values no value is every run's: a key a
    command gave is in ``mixed_overrides`` with the runs known (outside check 15y, item 2).

    Until 2026-11-30 a rerun that trained 2 runs at ``--max-length 100`` recorded 100 for 6
    runs at 512 (outside check 5y); until 2026-12-01 shards 1/2 at 100 and 2/2 at 200 recorded
    200 for every run, and a rerun of a suite whose first command was killed before it wrote
    its manifest recorded the rerun's value for the runs that command had finished (outside
    check 13y), as a run resumed under another value was recorded at the rerun's alone, and a
    run whose files could not be read at the value of the command credited with it (14y)."""
    known = {run: values for run, values in sorted(used.items()) if values is not None}
    complete = len(known) == len(used)  # else no value is every run's
    kept, mixed = dict(first), {}
    for key in RUN_KEYS:
        values: list[dict[str, Any]] = []
        for run, run_values in known.items():
            for value in run_values.get(key, [None]):
                same = next((v for v in values if v["value"] == value), None)
                if same is None:
                    values.append({"value": value, "runs": [run]})
                elif run not in same["runs"]:
                    same["runs"].append(run)
        if len(values) > 1 or not complete:
            kept.pop(key, None)
        if len(values) > 1 or (values and key in given and not complete):
            mixed[key] = sorted(values, key=_value_order)
        elif values and key in given:
            kept[key] = values[0]["value"]
    return kept, mixed


def given_by(commands: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The overrides of recorded commands (``shard_overrides``' or ``reruns``' entries)."""
    return [command["overrides"] for command in commands]


# the finished runs whose values their files do not say (deleted, edited by hand)
UNKNOWN_RUNS = "runs_of_unknown_values"
# the runs a command stopped before it wrote the first manifest finished
STOPPED_RUNS = "runs_of_a_stopped_command"


def _value_order(entry: dict[str, Any]) -> tuple[bool, bool, Any]:
    """``mixed_overrides`` values in order: null (not given) first, then numbers, then text."""
    value = entry["value"]
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return value is not None, not number, value if number else str(value)


MANIFEST_LOCK = ".sanbench-manifest.lock"
# a shard's resolved config when it read a --config file: its recorded command runs with it
CONFIG_FILE = "suite-config-{shard}.yaml"


def shard_commands(before: dict[str, Any], shard: Shard, command: str) -> dict[str, str]:
    """Each shard's command (``--shard K/N``), this one's ``command`` beside those the
    earlier shards recorded (``before``), in shard order; a grid run as one shard has none."""
    if shard.count == 1:
        return {}
    commands = {**before.get("shard_commands", {}), f"{shard.index}/{shard.count}": command}
    return in_shard_order(commands)


def in_shard_order(by_shard: Mapping[str, Any]) -> dict[str, Any]:
    """``by_shard`` (keyed ``K/N``) in shard order, whichever shard ended first."""
    return dict(sorted(by_shard.items(), key=lambda item: tuple(map(int, item[0].split("/")))))


def is_rerun(before: dict[str, Any], shard: Shard) -> bool:
    """Whether a command over a suite whose manifest is ``before`` reruns it: anything but the
    first run of a shard of the grid's shard count (a shard run again, any --shard K/N over a
    suite made as another number of shards). Until 2026-11-30 a sharded rerun replaced the
    command that made the runs and recorded its keys for all of them (outside check 6y)."""
    if not before.get("command"):
        return False
    if shard.count == 1:
        return True
    label = f"{shard.index}/{shard.count}"
    return before["grid"]["shards"] != shard.count or label in before.get("shard_commands", {})


def _write_suite_manifest(
    options: SuiteOptions,
    overrides: dict[str, Any],
    tables: list[Path],
    trained: Sequence[str],
    launched: Sequence[str] | None,
    missing: Sequence[str],
    earlier: Sequence[str],
) -> None:
    from datamodules.tasks import task_name
    from harness.measurement.environment import git_commit

    out = options.out
    before = read_manifest_if_any(out, SUITE_RUN)
    config_file = out / CONFIG_FILE.format(shard=options.shard_of_grid.label)
    command = recorded_command(config_file=config_file)  # runs as printed
    threads = before.get("threads")  # run_as_jobs decided them
    now = datetime.now(UTC).isoformat(timespec="seconds")
    # a rerun keeps the command that made the runs, its commit and overrides, and lists itself
    # under reruns when it trained runs (a grid's first run of each of its shards is no rerun)
    rerun = is_rerun(before, options.shard_of_grid)
    shards = (
        before.get("shard_commands", {})
        if rerun
        else shard_commands(before, options.shard_of_grid, command)
    )
    grid = {
        "tasks": options.task_names,
        "task_names": [task_name(task) for task in options.task_names],  # as tables name them
        "encoders": options.encoder_names,
        "seeds": options.seeds,
        "folds": options.folds,
        "cv_tasks": sorted(CV_TASKS),
        # a rerun's own --shard K/N is in its command (reruns)
        "shards": before["grid"]["shards"] if rerun else options.shard_of_grid.count,
    }
    reruns = list(before.get("reruns", []))
    count = options.shard_of_grid.count
    if rerun and (trained or changes_grid(before, grid, count)):
        reruns.append(rerun_entry(command, overrides, trained, now, count))
    # what trained the runs: an aggregation's values are not (outside check 15y, item 1)
    first = before.get("overrides", {}) if rerun or options.aggregate_only else overrides
    # each first shard command's keys that another may change, with the runs it trained
    by_shard = dict(before.get("shard_overrides", {}))
    if shards and not rerun:
        shard = options.shard_of_grid
        by_shard[f"{shard.index}/{shard.count}"] = {
            "overrides": uncompared(overrides),
            "runs": list(trained),
        }
        by_shard = in_shard_order(by_shard)
    used = {run_label(key): used_values(folder) for key, folder in finished_runs(out).items()}
    commands = [first, *given_by(by_shard.values()), *given_by(reruns)]
    given = {key for keys in commands for key in keys}
    kept, mixed = recorded_overrides(first, given, used)
    unknown = sorted(run for run, values in used.items() if values is None)
    # the runs a command stopped before it wrote the first manifest finished (kill -9)
    stopped = before.get(STOPPED_RUNS, []) if before else list(earlier)
    manifest = {
        "kind": "suite",
        # a sharded grid's: one line per shard (each shard's ends overwrote the others')
        "command": before["command"] if rerun else "\n".join(shards.values()) or command,
        **({"shard_commands": shards} if shards else {}),
        **({"shard_overrides": by_shard} if by_shard else {}),
        **({"reruns": reruns} if reruns else {}),
        "updated": now,
        "commit": before.get("commit") if rerun else git_commit(),
        "grid": grid,
        # the runs of the grid with no finished row (an --aggregate-only's: of the grid kept)
        **({"missing": list(missing)} if missing else {}),
        "overrides": kept,
        **({"mixed_overrides": mixed} if mixed else {}),
        **({UNKNOWN_RUNS: unknown} if unknown else {}),
        **({STOPPED_RUNS: stopped} if stopped else {}),
        **({"threads": threads} if threads else {}),  # the plan's, kept by its resumes
        # the jobs this command launched (a resume: those left), by the shards they ran
        **({"jobs": {"launched": len(launched), "shards": list(launched)}} if launched else {}),
        "results": [path.name for path in all_results_files(out)],
        "files": {
            "summary": SUMMARY,
            "comparison": COMPARISON,
            "tables": sorted(
                str(path.relative_to(out)) for path in tables if path.parent.name == "tables"
            ),
            "runs": f"{RUNS_FOLDER}/<task>/<encoder>/<seedN|foldN>/",
        },
        # every --aggregate-only's, kept by the commands after it (made_by_runs adds one)
        **({"aggregations": before["aggregations"]} if before.get("aggregations") else {}),
    }
    if options.aggregate_only:
        manifest = made_by_runs(manifest, before, command)
    write_manifest(out, manifest)


# the keys of manifest.json's grid a command over a suite may change (its --shard is a rerun's)
GRID_CHANGES = ("tasks", "encoders", "seeds", "folds")


def changes_grid(before: dict[str, Any], grid: dict[str, Any], shards: int) -> bool:
    """Whether a command's ``grid``, run as ``shards`` shards, differs from the last recorded
    command's (manifest ``before``: its grid, and the shards of its last rerun or else of the
    grid): such a rerun is listed under ``reruns`` even when it trained no run. Until
    2026-11-30 ``--seeds 3`` over a 2-seed suite that trained nothing set ``grid.seeds`` to 3
    with no recorded command saying 3 (outside check 7y, item 4), and ``--shard 1/3`` over a
    suite of 2 shards that trained nothing was recorded nowhere (outside check 8y, item 3)."""
    recorded = before.get("grid", {})
    last_shards = next(
        (rerun["shards"] for rerun in reversed(before.get("reruns", [])) if "shards" in rerun),
        recorded.get("shards"),
    )
    return last_shards != shards or any(recorded.get(key) != grid[key] for key in GRID_CHANGES)


# what the command that ran the grid says
TRAINED = (
    "command",
    "shard_commands",
    "shard_overrides",
    "reruns",
    "commit",
    "grid",
    STOPPED_RUNS,
)  # not overrides and mixed_overrides: the runs' own files say them, read again by every
# command, an aggregation's too (until 2026-12-01 an --aggregate-only kept the values of a run
# since edited or deleted)


def made_by_runs(manifest: dict[str, Any], before: dict[str, Any], command: str) -> dict[str, Any]:
    """An ``--aggregate-only``'s ``manifest``: the command that trained the runs, its commit,
    grid as ``before`` recorded them (absent when it did not: the aggregation's own trained
    nothing; the overrides are the runs' files', read again), this aggregation (its
    ``command``) listed after the earlier ones in ``aggregations``."""
    aggregation = {"command": command, "updated": manifest["updated"]}
    ours = {key: value for key, value in manifest.items() if key not in TRAINED}
    kept = {key: before[key] for key in TRAINED if key in before}
    return {**ours, **kept, "aggregations": [*before.get("aggregations", []), aggregation]}


def _run_here(
    options: SuiteOptions, runs: list[RunSpec], overrides: dict[str, Any], fit: FitFn
) -> None:
    """This process runs shard ``--shard`` of the grid; :class:`RunFailedError` if a run failed."""
    out, shard = options.out, options.shard_of_grid
    summary = run_shard(
        runs,
        shard=shard,
        out_dir=out,
        fit=fit,
        data_dir=options.inputs.data_dir,
        embeddings=options.inputs.embeddings,
        overrides=overrides,
    )
    results = results_path(out, shard)  # written with the shard's first row
    wrote = f" -> {results.absolute()}" if results.exists() else "; trained nothing, wrote no rows"
    print(
        f"shard {shard.label}: {len(summary.ran)} ran, {len(summary.skipped)} already "
        f"done, {len(summary.failed)} failed{wrote}"
    )
    if summary.failed:
        raise RunFailedError(
            f"{len(summary.failed)} runs failed (their rows and error.txt say why); "
            "rerun the same command to retry them"
        )


def pending_shards(runs: Sequence[RunSpec], jobs: int, out_dir: Path) -> list[Shard]:
    """The shards ``K/jobs`` that still hold a cell without an ``ok`` row."""
    done = finished_keys(out_dir)
    shards = [Shard(index, jobs) for index in range(1, jobs + 1)]
    return [s for s in shards if any(run.key not in done for run in s.select(runs))]


def run_as_jobs(
    runs: Sequence[RunSpec],
    launcher: LaunchOptions,
    *,
    out_dir: Path,
    fit: FitFn,
    data_dir: Path | None,
    embeddings: Path | None,
    overrides: dict[str, Any],
) -> tuple[list[str], RunFailedError | None]:
    """Every unfinished shard ``K/jobs`` (``--jobs``, default one per cell) as one job writing
    ``results-K-of-N.csv``, the file ``--shard K/N`` writes: the jobs share nothing but
    ``OUT``, and a killed or requeued job runs its shard again, skipping every ``ok`` cell.
    :class:`FolderBusyError`, nothing written, when another suite runs a shard of ``out_dir``
    (:func:`suite_writer`). Returns the shards launched (``K-of-N``), each job's lines
    counting the jobs launched, and the :class:`RunFailedError` of a job that died or a run
    that failed (None: none), raised by the suite once its tables and manifest are written:
    until 2026-12-01 a job's death left no ``jobs`` entry in the manifest."""
    jobs = min(launcher.jobs or len(runs), len(runs))
    # a suite another process runs there: refused before anything is written (the threads)
    with suite_writer(out_dir, None):
        # the threads of the whole plan, not of the jobs left: a resume computes as the first launch
        threads = (
            None if launcher.launcher == "slurm" else planned_threads(out_dir, SUITE_RUN, jobs)
        )
        pending = pending_shards(runs, jobs, out_dir)
        calls = [
            functools.partial(
                run_shard_of_suite,
                list(runs),
                shard=shard,
                out_dir=out_dir,
                fit=fit,
                data_dir=data_dir,
                embeddings=embeddings,
                overrides=dict(overrides),
                launched=True,
                label=f"{number}-of-{len(pending)}",  # the job's, as its line names it
            )
            for number, shard in enumerate(pending, start=1)
        ]
        outcomes = launch(calls, launcher, out_dir / "jobs", "sanbench-suite", threads=threads)
    if outcomes:
        print(f"{len(outcomes)} jobs ({launcher.launcher}); rerun the same command to resume")
    else:  # until 2026-11-30: '0 jobs (process); rerun the same command to resume'
        print(f"every run is done ({len(runs)} of {len(runs)}): no job to launch")
    launched = [shard.label for shard in pending]
    try:
        report_outcomes(outcomes, describe=str, resume="rerun the same command to retry them")
    except RunFailedError as error:
        return launched, error
    return launched, None


@contextlib.contextmanager
def random_vectors_silenced(warn_first: bool = False) -> Iterator[None]:
    """No datamodule of the block says its vectors start random; ``warn_first``: the suite
    says it once, first (the no-embeddings warning once per suite, not once per run), when a
    run of it will train."""
    from datamodules.datamodule import RANDOM_VECTORS, RandomVectorsWarning

    if warn_first:
        warnings.warn(RandomVectorsWarning(RANDOM_VECTORS), stacklevel=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RandomVectorsWarning)
        yield


def run_shard_of_suite(runs: Sequence[RunSpec], **arguments: Any) -> str:
    """One job: ``run_shard``, what it did in words; :class:`RunFailedError` if a run failed
    (its row and ``error.txt`` say why). Lightning's tips stay off the job's console, and the
    no-embeddings warning too (the suite gave it once)."""
    from datamodules.datamodule import RandomVectorsWarning
    from harness.quiet import hide_lightning_tips, hide_srun_hint

    hide_lightning_tips()
    hide_srun_hint()
    warnings.simplefilter("ignore", RandomVectorsWarning)
    summary = run_shard(runs, **arguments, log=lambda line: print(line, flush=True))
    said = f"{len(summary.ran)} ran, {len(summary.skipped)} already done"
    if summary.failed:
        raise RunFailedError(f"{said}, {len(summary.failed)} failed")
    return said


def stated_grid(options: SuiteOptions) -> list[tuple[str, ...]]:
    """The keys of the runs of the grid the manifest will state: an ``--aggregate-only``'s,
    the grid the manifest recorded (:func:`made_by_runs` keeps it; none: []), another
    command's its own; [] when that grid names no runs (a misspelt name)."""
    if options.aggregate_only:
        grid = read_manifest_if_any(options.out, SUITE_RUN).get("grid")
        if not grid:
            return []  # no command trained runs here: the manifest states no grid
        tasks, encoders, seeds, folds = (grid[k] for k in ("tasks", "encoders", "seeds", "folds"))
    else:
        tasks, encoders = options.task_names, options.encoder_names
        seeds, folds = options.seeds, options.folds
    if task_option_problems("--tasks", list(tasks)) or grid_problems(tasks, encoders, seeds, folds):
        return []
    return [run.key for run in expand_grid(tasks, encoders, seeds, folds)]


def run_suite(options: SuiteOptions, fit: FitFn | None = None) -> Path:
    """Run (or resume) the suite, then write its tables and manifest; returns the tables'
    Markdown file. :class:`InputError` before anything is created when an input is wrong,
    :class:`RunFailedError` after the tables when a run or job failed."""
    out = options.out
    overrides = fit_overrides(options.inputs, options.budget, options.fit)
    failed: RunFailedError | None = None
    trains, done = False, set[tuple[str, ...]]()
    launched: list[str] | None = None  # the shards its jobs ran
    if options.aggregate_only:
        if not out.is_dir():
            raise InputError(f"--out {out}: no such folder (nothing to aggregate)")
    else:
        with random_vectors_silenced():  # bad input: its problems alone
            runs = check_runs(options, overrides)
        vectors = options.inputs.embeddings or overrides.get("data.embeddings")
        done = finished_keys(out)  # a rerun that trains nothing starts no vectors
        trains = any(run.key not in done for run in options.shard_of_grid.select(runs))
        with random_vectors_silenced(warn_first=vectors is None and trains):
            out.mkdir(parents=True, exist_ok=True)
            if fit is None:
                from harness.training.fit import run_fit as fit
            try:
                if options.launch.in_process:
                    _run_here(options, runs, overrides, fit)
                else:
                    launched, failed = run_as_jobs(
                        runs,
                        options.launch,
                        out_dir=out,
                        fit=fit,
                        data_dir=options.inputs.data_dir,
                        embeddings=options.inputs.embeddings,
                        overrides=overrides,
                    )
            except RunFailedError as error:  # the tables first
                failed = error
    from harness.suite.summary_tables import aggregate

    grid = stated_grid(options)
    tables = aggregate(out, grid=grid)
    finished = finished_keys(out)
    # the rows of this command's shards (its jobs'): another shard of --out may end meanwhile
    ours = launched if launched is not None else [options.shard_of_grid.label]
    of_ours = finished_keys(out, ours)
    trained = [] if options.aggregate_only else sorted(run_label(k) for k in of_ours - done)
    earlier = sorted(run_label(key) for key in of_ours & done)
    missing = [run_label(key) for key in grid if key not in finished]
    write_suite_manifest(options, overrides, tables, trained, launched, missing, earlier)
    markdown = out / "tables" / "tables.md"
    print(f"tables: {markdown.absolute()} (HTML: {report_command([out], out / SITE_FOLDER)})")
    if failed is not None:
        raise failed
    return markdown
