"""Run one shard of the grid, one folder and one results row per run, resumable.

Rows go to ``OUT/results-K-of-N.csv`` (one file per shard, so machines sharing ``OUT`` never
write the same file). A run is skipped when any shard's file holds an ``ok`` row for it; a
run that died with the process (no row) or raised (``failed`` row) runs again on resume.
"""

from __future__ import annotations

import contextlib
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.errors import InputError, RunInterruptedError, failure_line
from harness.measurement.elapsed import Elapsed
from harness.outdir import busy, folder_held, lock_holder, one_writer
from harness.suite.grid import RunSpec, Shard
from harness.training.run_folder import (
    BUDGET,
    NOT_WHOLE,
    RunFolderError,
    check_run_folder,
    config_not_whole,
    differences_from_saved,
)
from harness.training.settings.fit_run import FitRun
from reports.contracts.fit_folder import CONFIG as CONFIG_FILE
from reports.contracts.results_file import ResultsFile
from reports.contracts.suite_results import (
    COLUMNS,
    CONTENDED_COLUMNS,
    ENVIRONMENT_COLUMNS,
    KEY_COLUMNS,
    METRIC_COLUMNS,
    RUN_FAILED,
    RUN_OK,
    shard_file,
    shard_path,
    shard_paths,
)

FitFn = Callable[[FitRun], Mapping[str, Any]]
ERROR_CHARS = 500  # of a failed run's error cell
SHARD_LOCK = ".sanbench-{}.lock"  # a shard's writer lock, by its label (K-of-N)
JOBS_LOCK = ".sanbench-jobs.lock"  # held by a suite while the jobs it launched run
LogFn = Callable[[str], None]


def results_path(out_dir: Path, shard: Shard) -> Path:
    return shard_path(out_dir, shard.label)


def all_results_files(out_dir: Path) -> list[Path]:
    """Every shard's results file under ``out_dir``."""
    return shard_paths(out_dir)


def finished_runs(
    out_dir: Path, shards: Sequence[str] | None = None
) -> dict[tuple[str, ...], Path]:
    """The folder of each run with an ``ok`` row in any shard's results file, or in those of
    ``shards`` (their labels, ``K-of-N``), by its key: the runs they finished, whatever the
    others sharing ``out_dir`` finished meanwhile."""
    paths = all_results_files(out_dir)
    if shards is not None:
        paths = [shard_path(out_dir, label) for label in shards]
    done: dict[tuple[str, ...], Path] = {}
    for path in paths:
        results = ResultsFile(path, KEY_COLUMNS)
        for row in results.rows():
            if row.get("status") == RUN_OK:
                done[results.key(row)] = out_dir / row.get("run_dir", "")
    return done


def finished_keys(out_dir: Path, shards: Sequence[str] | None = None) -> set[tuple[str, ...]]:
    """The keys of :func:`finished_runs`."""
    return set(finished_runs(out_dir, shards))


def _environment_cells(metrics: Mapping[str, Any]) -> dict[str, Any]:
    """Device and versions from the nested ``versions`` (or ``environment``) of metrics.json."""
    for section in ("versions", "environment"):
        env = metrics.get(section)
        if isinstance(env, Mapping):
            return {name: env[name] for name in ENVIRONMENT_COLUMNS if name in env}
    return {}


def _row(run: RunSpec, out_dir: Path, wall_s: float, **cells: Any) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(COLUMNS, "")
    row.update(zip(KEY_COLUMNS, run.key, strict=True))
    row.update(
        seed=run.seed,
        fold="" if run.fold is None else run.fold,
        wall_s=f"{wall_s:.3f}",
        run_dir=str(run.run_dir(out_dir).relative_to(out_dir)),
    )
    row.update(cells)
    return row


def fit_run(
    run: RunSpec,
    run_dir: Path,
    data_dir: Path | None,
    embeddings: Path | None,
    overrides: Mapping[str, Any],
) -> FitRun:
    """The fit configuration of one run of the grid (a task file names its files: no folder)."""
    from datamodules.task_file import is_task_file

    return FitRun(
        task=run.task,
        encoder=run.encoder,
        data_dir=None if is_task_file(run.task) else data_dir,
        out_dir=run_dir,
        embeddings=embeddings,
        seed=run.seed,
        fold=run.fold,
        overrides=dict(overrides),
    )


def _saved_differences(
    runs: Sequence[RunSpec],
    out_dir: Path,
    data_dir: Path | None,
    embeddings: Path | None,
    overrides: Mapping[str, Any],
) -> Iterator[tuple[RunSpec, Path, str, list[str]]]:
    """Each run of ``runs`` whose folder holds a whole saved config: its folder, this invocation's
    config of it and how the saved one differs (empty: the same settings)."""
    for run in runs:
        run_dir = run.run_dir(out_dir)
        if (run_dir / CONFIG_FILE).is_file() and not config_not_whole(run_dir):
            config = fit_run(run, run_dir, data_dir, embeddings, overrides).to_yaml()
            yield run, run_dir, config, differences_from_saved(run_dir, config)


def _differing_runs(
    runs: Sequence[RunSpec],
    out_dir: Path,
    data_dir: Path | None,
    embeddings: Path | None,
    overrides: Mapping[str, Any],
) -> Iterator[tuple[Path, str, bool]]:
    """Each run folder of ``runs`` holding another configuration than this invocation's, how
    it differs and whether its run finished: a finished run any other (its row would be reused
    beside rows of these settings), a started one any but a larger budget (its fit would refuse
    it, :func:`check_run_folder`). Reads only the run folders' configs."""
    done = finished_keys(out_dir)
    saved = _saved_differences(runs, out_dir, data_dir, embeddings, overrides)
    for run, run_dir, config, differences in saved:
        if not differences:
            continue
        if run.key not in done:
            try:
                check_run_folder(run_dir, config, overwrite=False)
                continue  # a larger budget: the run goes on
            except RunFolderError:
                pass
        yield run_dir, "; ".join(differences), run.key in done


def unreadable_configs(runs: Sequence[RunSpec], out_dir: Path) -> list[str]:
    """One line per run of ``runs`` whose folder holds a ``fit_config.yaml`` that is not a whole
    fit config (cut or edited by hand), in the suite's words: the file named, what fits a
    results folder (until 2026-12-01 fit's ``--out RUN_FOLDER: not a sanbench run folder``, an
    ``--out`` never typed, or, cut short, ``finished with run.compile: not set there``)."""
    done = finished_keys(out_dir)
    lines = []
    for run in runs:
        run_dir = run.run_dir(out_dir)
        if not (run_dir / CONFIG_FILE).is_file() or not config_not_whole(run_dir):
            continue  # no file of that name: its row's values are read from metrics.json
        if run.key in done:  # its ok row stays, whatever its folder holds
            advice = "Restore that file (the run finished: its row is kept)"
        else:
            advice = f"Restore that file, or delete {run_dir} to train that run again"
        lines.append(
            f"{run_dir / CONFIG_FILE}: {NOT_WHOLE}, so that run's settings are unknown; nothing "
            f"was touched. {advice}, or choose another --out"
        )
    return lines


RERUN_ADVICE = (
    "rerun with those settings, or choose another --out (a results folder holds one configuration)"
)


def settings_problems(
    runs: Sequence[RunSpec],
    out_dir: Path,
    data_dir: Path | None,
    embeddings: Path | None,
    overrides: Mapping[str, Any],
) -> list[str]:
    """The suite's refusal of run folders holding other settings (:func:`_differing_runs`):
    one line per run, then what to do (none: every folder holds these settings). A command
    calls it before any data is read or job launched; first each run whose fit config is not
    whole (:func:`unreadable_configs`)."""
    unreadable = unreadable_configs(runs, out_dir)
    problems = [
        f"{run_dir}: {'finished' if finished else 'started'} with {differences}"
        for run_dir, differences, finished in _differing_runs(
            runs, out_dir, data_dir, embeddings, overrides
        )
    ]
    if not problems:
        return unreadable
    return [
        *unreadable,
        *problems,
        "these runs were made with other settings (a started one continues with a larger "
        f"{' or '.join(BUDGET)} alone); {RERUN_ADVICE}",
    ]


def other_settings_problems(
    runs: Sequence[RunSpec],
    out_dir: Path,
    data_dir: Path | None,
    embeddings: Path | None,
    overrides: Mapping[str, Any],
) -> list[str]:
    """Reproduce's refusal of run folders holding other settings (:func:`_differing_runs`):
    one line per distinct way they differ, its runs counted, after each run whose fit config
    is not whole (:func:`unreadable_configs`)."""
    found: dict[tuple[str, bool], list[Path]] = {}
    for run_dir, differences, finished in _differing_runs(
        runs, out_dir, data_dir, embeddings, overrides
    ):
        found.setdefault((differences, finished), []).append(run_dir)
    return unreadable_configs(runs, out_dir) + [
        f"{folders[0]}{f' and {len(folders) - 1} more run(s)' if len(folders) > 1 else ''}: "
        f"made with {differences}, "
        + (
            "finished: its row would be reused beside rows of these settings"
            if finished
            else f"started: a larger {' or '.join(BUDGET)} alone continues it"
        )
        + f"; {RERUN_ADVICE}"
        for (differences, finished), folders in found.items()
    ]


@dataclass
class SuiteSummary:
    """What one call of :func:`run_shard` did."""

    ran: list[RunSpec] = field(default_factory=list)
    skipped: list[RunSpec] = field(default_factory=list)
    failed: list[RunSpec] = field(default_factory=list)


def _other_writer(out_dir: Path, shard: Shard | None, launched: bool) -> str | None:
    """The PID of a process running a shard of ``out_dir`` that this one would run too (None:
    none does): any shard, or a launch of jobs, when it launches jobs (``shard`` None: every
    unfinished shard is launched); a shard of another plan (``K/M``, ``M`` not ``N``: the same
    cells), or a launch of jobs unless it is one of them (``launched``), for a shard ``K/N``.
    The other shards of ``N`` run beside it; a second process on ``K/N`` itself is refused by
    its lock."""
    locks = [] if launched else [out_dir / JOBS_LOCK]
    locks += [
        lock
        for lock in sorted(out_dir.glob(SHARD_LOCK.format("*-of-*")))
        if shard is None or not lock.name.endswith(f"-of-{shard.count}.lock")
    ]
    return next((pid for lock in locks if (pid := lock_holder(lock)) is not None), None)


@contextlib.contextmanager
def suite_writer(out_dir: Path, shard: Shard | None, launched: bool = False) -> Iterator[None]:
    """Hold the lock of ``shard`` of ``out_dir`` (None: of a launch of jobs, which take their
    shards' locks themselves, ``launched``) while the body runs; raise
    :class:`harness.outdir.FolderBusyError` before anything is written when another process
    runs what this one would run (:func:`_other_writer`). The check and the lock are one step,
    with the folder itself locked (:func:`harness.outdir.folder_held`): of two suites started
    at once, the second checks once the first holds its lock."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as held:
        with folder_held(out_dir):
            if (pid := _other_writer(out_dir, shard, launched)) is not None:
                raise busy(out_dir, pid)
            own = JOBS_LOCK if shard is None else SHARD_LOCK.format(shard.label)
            held.enter_context(one_writer(out_dir, own))
        yield


def run_shard(
    runs: Sequence[RunSpec],
    *,
    shard: Shard,
    out_dir: Path,
    fit: FitFn,
    data_dir: Path | None,
    embeddings: Path | None,
    overrides: Mapping[str, Any],
    log: LogFn = print,
    launched: bool = False,
    label: str | None = None,
) -> SuiteSummary:
    """Run this shard's part of ``runs`` with ``fit`` (``harness.training.fit.run_fit``).

    Each run gets its own folder ``OUT/runs/<task>/<encoder>/<seed-or-fold>/``; each finished
    or failed run appends one row. An exception is recorded (status ``failed``, the message
    and ``error.txt`` in the run folder) and the suite goes on; a signal's
    :class:`RunInterruptedError` (the run saved its ``last.ckpt``) stops the shard unrecorded.
    One process runs a shard: a second one on the same ``out_dir`` and shard, or one another
    process runs (:func:`suite_writer`; ``launched``: a job of a suite that launched it),
    raises :class:`harness.outdir.FolderBusyError`. ``label``: how its progress lines name it
    (default its shard's ``K-of-N``; a job: its own, of the jobs its command launched).
    """
    out_dir = Path(out_dir)
    with suite_writer(out_dir, shard, launched):
        said = label or shard.label
        return _run_shard(runs, shard, out_dir, fit, data_dir, embeddings, overrides, log, said)


def _run_shard(
    runs: Sequence[RunSpec],
    shard: Shard,
    out_dir: Path,
    fit: FitFn,
    data_dir: Path | None,
    embeddings: Path | None,
    overrides: Mapping[str, Any],
    log: LogFn,
    label: str,
) -> SuiteSummary:
    results = shard_file(out_dir, shard.label)
    done = finished_keys(out_dir)
    summary = SuiteSummary()
    mine = shard.select(runs)
    if problems := settings_problems(mine, out_dir, data_dir, embeddings, overrides):
        raise InputError("\n".join(problems))  # a folder changed since the command checked it
    for number, run in enumerate(mine, start=1):
        if run.key in done:
            summary.skipped.append(run)
            continue
        run_dir = run.run_dir(out_dir)
        run_dir.mkdir(parents=True, exist_ok=True)
        # an earlier failure's note: a run that failed before its first checkpoint left
        # nothing else (harness.training.fit), and this attempt writes its own outcome
        (run_dir / "error.txt").unlink(missing_ok=True)
        log(f"[{label} {number}/{len(mine)}] {' '.join(run.key)}")
        elapsed = Elapsed()
        try:
            metrics = fit(fit_run(run, run_dir, data_dir, embeddings, overrides))
        except RunInterruptedError:  # not a failed run: it resumes from its last.ckpt
            raise
        except Exception as error:
            (run_dir / "error.txt").write_text(traceback.format_exc())
            row = _row(run, out_dir, elapsed.seconds, status=RUN_FAILED)
            row["error"] = failure_line(error)[:ERROR_CHARS]
            results.append(row)
            summary.failed.append(run)
            log(f"  failed: {row['error']}")
            continue
        cells = {name: metrics[name] for name in METRIC_COLUMNS if name in metrics}
        for column in CONTENDED_COLUMNS.values():  # 0/1, a number the aggregates average
            if cells.get(column) is not None:
                cells[column] = int(cells[column])
        cells.update(_environment_cells(metrics))
        results.append(_row(run, out_dir, elapsed.seconds, status=RUN_OK, **cells))
        done.add(run.key)
        summary.ran.append(run)
    return summary
