"""``run_reproduce``: a preset's runs (or a part of its grid) as jobs of a launcher, resumed
after a kill without repeating finished runs, then the suite's tables and the reproduction
tables (``OUT/reproduction/``). Run it when nothing is being timed."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from datamodules.errors import nearest
from harness.command_parser import as_typed
from harness.errors import FilesProblem, InputError, refusal
from harness.launch import LaunchOptions, launch, report_outcomes
from harness.measurement.cpu_usage import load_averages_line
from harness.measurement.elapsed import Elapsed
from harness.outdir import out_folder_problems
from harness.redaction import recorded_command
from harness.reproduce.options import (
    NOT_WITH_TABLES_ONLY,
    ReproduceOptions,
    grid_names,
    tables_only_out_problems,
)
from harness.reproduce.preset import PRESETS, Preset
from harness.suite import pending_shards
from harness.suite.grid import RunSpec, Shard
from harness.suite.suite import pair_config_problems
from harness.training.settings.fit_overrides import (
    DataOptions,
    fit_overrides,
    with_section_paths,
    without_budget,
)
from reports.contracts.manifest import manifest_path, read_manifest_if_any
from reports.contracts.manifest import write_manifest as write_run_manifest
from reports.contracts.reproduction import FOLDER, MARKDOWN, table_path
from reports.contracts.suite_results import RUNS_FOLDER

# the resolved config when the command read a --config file: its recorded command runs with it
CONFIG_FILE = "reproduce-config.yaml"


def fit_config_problems(part: Preset, inputs: DataOptions) -> list[str]:
    """The problems of each (task, encoder)'s fit config of ``part``, one line each, before
    any file is read (a suite's ``pair_config_problems``)."""
    from harness.suite.runner import fit_run

    first = {(run.task, run.encoder): run for run in part.grid()}  # seeds and folds alike
    return pair_config_problems(
        {
            pair: fit_run(run, Path("unused"), inputs.data_dir, inputs.embeddings, part.overrides)
            for pair, run in first.items()
        }
    )


def problems_beside_options(values: dict[str, Any], data: dict[str, Any]) -> list[str]:
    """Every problem said beside a refused option (``--threads 0``, ``--tasks trecc``,
    ``--max-length 0``), in fit's order: the data folder's and vectors file's, each (task,
    encoder)'s fit values' (an unknown name stood in for by its nearest, ``trecc``: trec, an
    unknown preset by the default), ``--out``'s (``--out /proc/x``), then a data folder holding
    none of a task's files (``--data-dir glove``), so that none waits for another's fix
    (``build``'s ``beside``); ``data``, the data options as given, stands in for their part
    when it is refused (``--max-length 0``). With ``--tables-only`` (the runs' options
    refused), a line for each data option of a refused part, then ``--out``'s problem, else
    what it lacks."""
    out = Path(values.get("out", ReproduceOptions.out))
    given = {key: value for key, value in data.items() if value is not None}
    if values.get("tables_only"):
        refused = [] if "inputs" in values else [as_typed(*entry) for entry in given.items()]
        lines = [f"{option} {text}: {NOT_WITH_TABLES_ONLY}" for option, text in refused]
        return lines + (tables_only_out_problems(out) or tables_only_problems(out))
    out_lines = out_problems(out)
    paths = {key: Path(given[key]) for key in ("data_dir", "embeddings") if key in given}
    inputs = values.get("inputs") or DataOptions(**paths)
    if values.get("fit") is not None:  # a config file's data: {data_dir: D}, as the run's
        inputs = with_section_paths(inputs, values["fit"])
    preset = PRESETS.get(values.get("preset", "")) or PRESETS[ReproduceOptions.preset]
    part = dataclasses.replace(
        preset,
        tasks=_stand_ins(values.get("tasks", ""), "--tasks", preset.tasks),
        encoders=_stand_ins(values.get("encoders", ""), "--encoders", preset.encoders),
    )
    files = inputs.file_problems("unless --tables-only")
    folder = data_folder_problems(part, inputs, others=True)
    fit = values.get("fit")
    if fit is None:  # a fit section refused, said by the part: no run to check
        return files + out_lines + folder
    try:
        overrides = preset_and_given(preset, fit_overrides(inputs, None, fit))
    except ValueError:  # a clash, which says itself: no run to check
        return files + out_lines + folder
    if fit.problems():  # a budget that trains nothing: said by the options, not again
        overrides = without_budget(overrides)
    part = dataclasses.replace(part, overrides=overrides)
    return files + fit_config_problems(part, inputs) + out_lines + folder


def out_problems(out: Path) -> list[str]:
    """What stops the reproduction from writing into ``out``, each a :class:`FilesProblem`."""
    return [FilesProblem(line) for line in out_folder_problems(out, "reproduce")]


def run_problems(options: ReproduceOptions) -> list[str]:
    """What the options' runs lack before any file is read: the data folder and vectors file,
    the launcher, every (task, encoder)'s fit config; [] for ``--tables-only``."""
    if options.tables_only:
        return []
    problems = options.inputs.file_problems("unless --tables-only")
    return problems + options.launcher.problems() + printed_problems(options)


def printed_problems(options: ReproduceOptions) -> list[str]:
    """What ``--print_config`` refuses of a reproduction: :func:`run_problems` but the files'
    and the launcher's, which the machine that runs it decides (a file to fill in)."""
    if options.tables_only:
        return []
    part = dataclasses.replace(options.part, overrides=run_overrides(options))
    return fit_config_problems(part, options.inputs)


def run_overrides(options: ReproduceOptions) -> dict[str, Any]:
    """The preset's fit values with the ones the options change."""
    given = fit_overrides(options.inputs, None, options.fit)
    return preset_and_given(PRESETS[options.preset], given)


def preset_and_given(preset: Preset, given: dict[str, Any]) -> dict[str, Any]:
    """``preset``'s fit values, then the ones ``given``: a width given (``--model.hidden_dim
    4``, an encoder option's ``hidden_dim``) replaces the preset's width scale (``cpu``'s third
    of the papers' widths), as any given value replaces the preset's; until 2026-11-30 the two
    clashed ("model.hidden_dim and model.width_scale exclude each other"), naming options
    nobody typed, and until 2026-12-01 so did an encoder option's width."""
    own = dict(preset.overrides)
    options = given.get("model.encoder_options")
    in_options = isinstance(options, Mapping) and "hidden_dim" in options
    if in_options or {"model.hidden_dim", "model.encoder_options.hidden_dim"} & set(given):
        own.pop("model.width_scale", None)
    return {**own, **given}


def data_folder_problems(part: Preset, inputs: DataOptions, others: bool = False) -> list[str]:
    """Each task of ``part`` whose files ``--data-dir`` holds none of (``--data-dir glove``), in
    the words the data's read says it, reading no data: one line, alone too or beside the
    other problems (until 2026-12-01 said alone by :func:`check_inputs`, per task); beside it
    or ``others`` (another problem said), the vectors file's bad lines."""
    from datamodules.readers.layouts import data_dir_problem
    from datamodules.tasks import get_task
    from datamodules.vectors import beside_folder_problems

    if inputs.data_dir is None or not Path(inputs.data_dir).is_dir():
        return []  # a missing --data-dir: file_problems names it
    layout = part.overrides.get("data.layout")
    tasks = []
    for task in part.tasks:
        try:
            tasks.append(get_task(task))
        except (LookupError, ValueError, OSError):  # a task that says itself
            continue
    problem = data_dir_problem(tasks, Path(inputs.data_dir), layout)  # one line, every task
    folder = [problem] if problem else []
    lines = beside_folder_problems(folder, inputs.embeddings, others)
    return [FilesProblem(line) for line in lines]


def tables_only_problems(out: Path) -> list[str]:
    """What ``--tables-only`` lacks in ``out``: the manifest of its runs (one line; [] when
    there)."""
    try:
        manifest = read_manifest(out)
    except ValueError as error:  # not JSON, or another command's
        return [str(error)]
    return (
        []
        if "preset" in manifest
        else [f"--tables-only: {manifest_path(out)} not found; run first"]
    )


def _stand_ins(text: str, option: str, known: tuple[str, ...]) -> tuple[str, ...]:
    """The names of ``known`` that the list ``text`` names, or whose nearest it names."""
    try:
        given = grid_names(text, option)
    except InputError:
        return ()
    chosen = {name if name in known else nearest(name, known) for name in given}
    return tuple(name for name in known if name in chosen)


def check_inputs(preset: Preset, out: Path, data_dir: Path, embeddings: Path | None) -> None:
    """Fail before any training when a run's config is wrong or a file the preset needs is
    missing or malformed (every bad line of every file at once). The runs ``out`` finished
    are left out: their files were read as they ran, so a rerun that trains nothing reads none
    (as a suite's). Before any file is read: a run folder holding other settings than these
    (:func:`other_settings_problems`: a smaller budget than a run's) is bad input, not a job's
    failure."""
    from harness.suite.runner import finished_keys, fit_run, other_settings_problems
    from harness.training.inputs import check_fit_inputs

    problems = other_settings_problems(preset.grid(), out, data_dir, embeddings, preset.overrides)
    if problems:
        raise InputError("\n".join(problems))
    done = finished_keys(out)
    per_task = {run.task: run for run in preset.grid() if run.key not in done}.values()
    check_fit_inputs(
        fit_run(run, Path("unused"), data_dir, embeddings, preset.overrides) for run in per_task
    )


def read_manifest(out: Path) -> dict[str, Any]:
    return read_manifest_if_any(out, "reproduce")


def write_manifest(out: Path, manifest: dict[str, Any]) -> None:
    manifest["updated"] = datetime.now(UTC).isoformat(timespec="seconds")
    write_run_manifest(out, manifest)


def covered(preset: Preset, part: Preset, recorded: dict[str, Any] | None) -> Preset:
    """``preset`` cut to the tasks and encoders this run and the recorded earlier ones asked
    for, in the preset's order: the grid the tables cover."""
    tasks, encoders = set(part.tasks), set(part.encoders)
    if recorded is not None:
        tasks |= set(recorded["tasks"])
        encoders |= set(recorded["encoders"])
    return dataclasses.replace(
        preset,
        tasks=tuple(task for task in preset.tasks if task in tasks),
        encoders=tuple(encoder for encoder in preset.encoders if encoder in encoders),
    )


def build_tables(out: Path, preset: Preset, manifest: dict[str, Any]) -> list[Path]:
    """The suite's tables, then the reproduction's (``OUT/reproduction/``)."""
    from harness.reproduce.comparison import reproduction
    from harness.reproduce.outputs import write_outputs
    from harness.suite.summary_tables import aggregate, finished, load_results

    written = aggregate(out, param_encoders=preset.encoders)
    done = finished(load_results(out))
    result = reproduction(done, list(preset.tasks), list(preset.encoders))
    return written + write_outputs(out, result, done, preset, manifest)


def run_part(
    runs: Sequence[RunSpec],
    shard: Shard,
    out_dir: Path,
    data_dir: Path,
    embeddings: Path | None,
    overrides: dict[str, Any],
) -> str:
    """One job: shard ``shard`` of ``runs`` (on the threads :func:`launch` gives it); what it
    did, in words. :class:`RunFailedError` when a run failed (its row and ``error.txt`` say
    why)."""
    from harness.suite import run_shard_of_suite
    from harness.training.fit import run_fit

    return run_shard_of_suite(
        runs,
        shard=shard,
        out_dir=out_dir,
        fit=run_fit,
        data_dir=data_dir,
        embeddings=embeddings,
        overrides=overrides,
    )


def reproduce(
    preset: Preset,
    out: Path,
    data_dir: Path,
    embeddings: Path | None,
    launcher: LaunchOptions,
    threads: int,
    command: str,
    part: Preset | None = None,
) -> None:
    """Run (or resume) ``part`` of ``preset`` (default all of it) into ``out`` as
    ``launcher.jobs`` jobs, then write every table over the part this and earlier runs covered.
    :class:`RunFailedError` after the tables when a job or a run failed."""
    from harness.measurement.environment import machine  # imports torch
    from harness.reproduce.outputs import caps, departures

    part = part or preset
    out.mkdir(parents=True, exist_ok=True)
    manifest = read_manifest(out)
    tables_preset = covered(preset, part, manifest.get("preset"))
    manifest.update(
        kind="reproduce",
        command=command,
        machine=machine(),
        preset=tables_preset.to_dict(),
        departures=departures(tables_preset, None if embeddings is None else embeddings.name),
        caps=caps(tables_preset),  # the tables count the runs that ended on these
        launcher=launcher.launcher,
        workers=launcher.jobs,
        threads_per_run=threads,
        files={"reproduction": f"{FOLDER}/", "tables": "tables/", "runs": f"{RUNS_FOLDER}/"},
    )
    session = {"started": datetime.now(UTC).isoformat(timespec="seconds")}
    session.update(
        load_start=load_averages_line(), tasks=list(part.tasks), encoders=list(part.encoders)
    )
    manifest.setdefault("sessions", []).append(session)
    write_manifest(out, manifest)
    runs = part.grid()
    jobs = min(launcher.jobs or 1, len(runs))
    calls = [  # a resume launches only the shards with a run left (no job that finds none)
        functools.partial(run_part, runs, shard, out, data_dir, embeddings, preset.overrides)
        for shard in pending_shards(runs, jobs, out)
    ]
    elapsed = Elapsed()
    try:
        outcomes = launch(
            calls,
            launcher,
            out / "jobs",
            "reproduce",
            threads=threads,
        )
    finally:
        session.update(wall_s=round(elapsed.seconds, 1), load_end=load_averages_line())
        write_manifest(out, manifest)
    try:
        report_outcomes(
            outcomes, describe=str, resume="rerun the same command to retry the failed runs"
        )
    finally:
        build_tables(out, tables_preset, manifest)


def run_reproduce(options: ReproduceOptions) -> Path:
    """Run (or resume) ``options.preset``'s grid, or the part ``--tasks`` x ``--encoders``
    names, into ``options.out``, then every table; returns the reproduction table's Markdown
    file. :class:`RunFailedError` after the tables when a run failed; SIGTERM (``harness.cli``)
    stops the jobs and records the session as Ctrl-C does."""
    out = options.out
    if options.tables_only:
        if problems := tables_only_problems(out):
            raise InputError("\n".join(problems))
        manifest = read_manifest(out)
        build_tables(out, Preset.from_dict(manifest["preset"]), manifest)
        return table_path(out, MARKDOWN)
    data_dir, embeddings = options.inputs.data_dir, options.inputs.embeddings
    overrides = run_overrides(options)
    part = dataclasses.replace(options.part, overrides=overrides)
    if (problems := run_problems(options)) or data_dir is None:
        raise refusal(problems)  # the help pointed to for a problem of the words
    check_inputs(part, out, data_dir, embeddings)
    reproduce(
        dataclasses.replace(PRESETS[options.preset], overrides=overrides),
        out,
        data_dir,
        embeddings,
        options.launcher,
        options.threads,
        recorded_command(config_file=out / CONFIG_FILE),
        part=part,
    )
    return table_path(out, MARKDOWN)
