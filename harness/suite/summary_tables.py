"""Read every shard's results, mean (std) per task x encoder, tables beside the papers'.

CV tasks average their folds, the others their seeds; std is the sample std (ddof 1) and is
left out for a single run. Accuracies are stored as fractions and shown in percent.
Written into OUT: ``summary.csv`` (ours, long form), ``comparison.csv`` (every table cell,
ours beside the paper's), ``tables/*.{csv,md}`` and ``tables/tables.md``; ``sanbench report``
renders them as HTML.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from harness.suite.grid import CV_FOLDS, CV_TASKS
from harness.suite.parameter_counts import param_rows, params_table
from harness.suite.runner import KEY_COLUMNS, METRIC_COLUMNS, all_results_files
from harness.suite.table_files import Table, write_tables
from reports.aggregation import mean_std
from reports.contracts.atomic import write_text_atomic
from reports.contracts.results_file import complete_text
from reports.contracts.suite_results import (
    COMPARISON,
    CONTENDED_COLUMNS,
    CONTENDED_MARK,
    PARTIAL_MARK,
    PARTIAL_NOTE,
    RUN_FAILED,
    RUN_OK,
    SCALED_MARK,
    SCALED_NOTE,
    SCORED_SHARES,
    SUMMARY,
    TIME_PER_EPOCH,
    is_contended,
    missing_note,
    runs_cell,
    scaled_epoch_time,
)
from reports.numbers import MISSING, marked, mean_std_cell
from reports.paper_numbers import BI_BLOSAN, MTSA, MTSA_TABLE_5_COLUMNS, TABLE_6_COLUMNS, lookup

SUMMARY_COLUMNS = ["task", "encoder", "metric", "n", "mean", "std"]
COMPARISON_COLUMNS = [
    "table",
    "encoder",
    "column",
    "task",
    "metric",
    "n",
    "ours_mean",
    "ours_std",
    "paper_mean",
    "paper_std",
    "paper_row",
    "paper_source",
    "contended",  # a time cell some of whose runs had contended epochs (marked c)
    "scaled",  # a time per epoch some of whose runs trained no whole epoch (marked e)
    "partial",  # a dev or test score some of whose runs scored part of the split (marked p)
]
# summary.csv's share of a cell's runs whose time per epoch is scaled from a partial epoch
SCALED_SHARE = "train_time_per_epoch_scaled"
PERCENT_METRICS = frozenset({"train_acc", "dev_acc", "test_acc"})


def load_results(out_dir: Path) -> pd.DataFrame:
    """Every complete row of every shard's file (all columns as text), in file order; a torn
    last line (its shard is writing it) is left for the next aggregation."""
    texts = [complete_text(path) for path in all_results_files(out_dir)]
    frames = [
        pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False) for text in texts if text
    ]
    frames = [frame for frame in frames if not frame.empty]
    if not frames:
        return pd.DataFrame(columns=[*KEY_COLUMNS, "status", "error"])
    return pd.concat(frames, ignore_index=True)


def finished(results: pd.DataFrame) -> pd.DataFrame:
    """The ``ok`` rows, one per run (the last when a run was recorded twice)."""
    ok = results[results["status"] == RUN_OK].drop_duplicates(list(KEY_COLUMNS), keep="last")
    return ok.reset_index(drop=True)


def failures(results: pd.DataFrame) -> pd.DataFrame:
    """The last ``failed`` row of each run that has no ``ok`` row."""
    done = set(map(tuple, finished(results)[list(KEY_COLUMNS)].itertuples(index=False)))
    failed = results[results["status"] == RUN_FAILED]
    failed = failed.drop_duplicates(list(KEY_COLUMNS), keep="last")
    keep = [tuple(key) not in done for key in failed[list(KEY_COLUMNS)].itertuples(index=False)]
    return failed[keep].reset_index(drop=True)


def summarize(results: pd.DataFrame) -> pd.DataFrame:
    """Long form: task, encoder, metric, n, mean, std over the finished runs."""
    ok = finished(results)
    records = []
    for (task, encoder), group in ok.groupby(["task", "encoder"], sort=True):
        for metric in METRIC_COLUMNS:
            if metric not in group:
                continue
            scale = 100.0 if metric in PERCENT_METRICS else 1.0
            values = group[metric]
            if metric in CONTENDED_COLUMNS.values():  # the share of runs contended
                values = values.map(is_contended).astype(float)
            stats = mean_std(values, scale)
            if stats.n:
                records.append((task, encoder, metric, stats.n, stats.mean, stats.std))
        if TIME_PER_EPOCH in group:
            stats = mean_std(scaled_epoch_time(group).astype(float))
            records.append((task, encoder, SCALED_SHARE, stats.n, stats.mean, stats.std))
    return pd.DataFrame.from_records(records, columns=SUMMARY_COLUMNS)


@dataclass(frozen=True)
class Column:
    label: str
    task: str
    metric: str
    digits: int = 1


@dataclass(frozen=True)
class PaperTable:
    """A results table laid out like one of the papers' (``paper``, ``table``)."""

    name: str
    title: str
    paper: str
    table: str
    columns: tuple[Column, ...]
    notes: tuple[str, ...] = ()


ACC = "accuracies in %, mean (std) over seeds or folds"
PAPER_TABLES = (
    PaperTable(
        "bi_blosan_table1",
        "Bi-BloSAN Table 1: SNLI",
        BI_BLOSAN,
        "Table 1",
        (
            Column("|θ| (m)", "snli", "params", 2),
            Column("Train Accu", "snli", "train_acc"),
            Column("Test Accu", "snli", "test_acc"),
        ),
        (ACC, "|θ| excludes word embeddings; the paper's Bi-BloSAN row is the 480D model."),
    ),
    PaperTable(
        "bi_blosan_table2",
        "Bi-BloSAN Table 2: time and memory on SNLI",
        BI_BLOSAN,
        "Table 2",
        (
            Column("Time(s)/epoch", "snli", "train_time_per_epoch_s"),
            Column("Memory(MB)", "snli", "peak_train_mem_mb", 0),
            Column("Inference Time(s)", "snli", "dev_infer_time_s"),
            Column("Test Accuracy", "snli", "test_acc"),
        ),
        (
            ACC,
            "Paper: GTX 1080Ti, TensorFlow 1.3, inference over SNLI dev with batch 100; "
            "ours: the recorded device, dev inference with batch 128.",
        ),
    ),
    PaperTable(
        "bi_blosan_table5",
        "Bi-BloSAN Table 5: SICK relatedness (test)",
        BI_BLOSAN,
        "Table 5",
        (
            Column("Pearson's r", "sick", "test_pearson", 4),
            Column("Spearman's ρ", "sick", "test_spearman", 4),
            Column("MSE", "sick", "test_mse", 4),
        ),
        ("mean (std) over seeds",),
    ),
    PaperTable(
        "bi_blosan_table6",
        "Bi-BloSAN Table 6: sentence classification",
        BI_BLOSAN,
        "Table 6",
        tuple(Column(label, task, "test_acc") for label, task in TABLE_6_COLUMNS),
        (
            ACC,
            "CR/MPQA/SUBJ: held-out fold of 10-fold CV; TREC: its 500-question held-out set "
            "(the paper's 'dev'); SST: test set.",
        ),
    ),
    PaperTable(
        "mtsa_table1",
        "MTSA Table 1: SNLI with efficiency",
        MTSA,
        "Table 1",
        (
            Column("|θ| (m)", "snli", "params", 2),
            Column("Time/Epoch (s)", "snli", "train_time_per_epoch_s"),
            Column("Inf. Time (s)", "snli", "dev_infer_time_s"),
            Column("Memory (MB)", "snli", "peak_train_mem_mb", 0),
            Column("Train Acc.", "snli", "train_acc"),
            Column("Test Acc.", "snli", "test_acc"),
        ),
        (
            ACC,
            "Paper: batch 128, GTX 1080Ti, TensorFlow 1.7; its memory is one training step on "
            "synthetic length-64 batch-64 data, ours the peak during training.",
        ),
    ),
    PaperTable(
        "mtsa_table5",
        "MTSA Table 5: sentence classification",
        MTSA,
        "Table 5",
        tuple(Column(label, task, "test_acc") for label, task in MTSA_TABLE_5_COLUMNS),
        (ACC, "SST-5 is SST-1 (fine-grained)."),
    ),
)


def _scale(metric: str, value: float) -> float:
    return value / 1e6 if metric == "params" else value


def comparison(summary: pd.DataFrame, spec: PaperTable) -> pd.DataFrame:
    """Every cell of ``spec``: our mean/std/n beside the paper's value/std, long form."""
    tasks = {column.task for column in spec.columns}
    encoders = sorted(set(summary.loc[summary["task"].isin(tasks), "encoder"]))
    indexed = summary.set_index(["task", "encoder", "metric"])
    records = []
    for encoder in encoders:
        for column in spec.columns:
            key = (column.task, encoder, column.metric)
            ours = indexed.loc[key] if key in indexed.index else None
            paper = lookup(spec.paper, spec.table, encoder, column.task, column.metric)
            records.append(
                {
                    "table": spec.name,
                    "encoder": encoder,
                    "column": column.label,
                    "task": column.task,
                    "metric": column.metric,
                    "n": 0 if ours is None else int(ours["n"]),
                    "ours_mean": None if ours is None else _scale(column.metric, ours["mean"]),
                    "ours_std": None if ours is None else _scale(column.metric, ours["std"]),
                    "paper_mean": None if paper is None else _scale(column.metric, paper.value),
                    "paper_std": None if paper is None else paper.std,
                    "paper_row": "" if paper is None else paper.row,
                    "paper_source": f"{spec.paper}, {spec.table}",
                    "contended": _contended(indexed, column.task, encoder, column.metric),
                    "scaled": _scaled(indexed, column.task, encoder, column.metric),
                    "partial": _partial(indexed, column.task, encoder, column.metric),
                }
            )
    return pd.DataFrame(records, columns=COMPARISON_COLUMNS)


def _none(value: object) -> float | None:
    return None if value is None or pd.isna(value) else float(value)


CONTENDED_NOTE = (
    "c: some of the cell's runs were contended while this was timed (their threads got less "
    "than half the CPU they were ready to use): the time is inflated by other processes; the "
    "rows of results-*.csv have the evidence (*_cpu_granted, *_load_avg_before/after), and "
    "`sanbench report` lists it."
)


def _contended(indexed: pd.DataFrame, task: str, encoder: str, metric: str) -> bool:
    """True when ``metric`` is a time and any finished run of the cell was contended while it
    was timed (its flag's share, from :func:`summarize`, is above 0)."""
    column = CONTENDED_COLUMNS.get(metric)
    key = (task, encoder, column)
    return column is not None and key in indexed.index and float(indexed.loc[key, "mean"]) > 0


def _scaled(indexed: pd.DataFrame, task: str, encoder: str, metric: str) -> bool:
    """True when ``metric`` is the time per epoch and a finished run of the cell trained no whole
    epoch (its time is scaled from the batches it ran)."""
    key = (task, encoder, SCALED_SHARE)
    return metric == TIME_PER_EPOCH and key in indexed.index and indexed.loc[key, "mean"] > 0


def _partial(indexed: pd.DataFrame, task: str, encoder: str, metric: str) -> bool:
    """True when ``metric`` is a dev or test score and a finished run of the cell scored part of
    the split (the mean of its share, from :func:`summarize`, is below 1)."""
    key = (task, encoder, SCORED_SHARES.get(metric))
    return key in indexed.index and float(indexed.loc[key, "mean"]) < 1


def _marks(contended: bool, scaled: bool, partial: bool) -> dict[str, bool]:
    """The marks of a table cell and whether each applies (:func:`reports.numbers.marked`)."""
    return {CONTENDED_MARK: contended, SCALED_MARK: scaled, PARTIAL_MARK: partial}


def _with_mark_notes(table: Table, applied: Iterable[dict[str, bool]]) -> Table:
    """``table`` with :data:`CONTENDED_NOTE`, :data:`SCALED_NOTE` and :data:`PARTIAL_NOTE`
    when a cell was given their mark (``applied``: the marks of its cells that hold a value),
    not when some text reads like one (until 2026-11-30 any ``" c"`` in a cell, a paper row's
    included, said the contended note)."""
    given = {mark for marks in applied for mark, shown in marks.items() if shown}
    notes = {CONTENDED_MARK: CONTENDED_NOTE, SCALED_MARK: SCALED_NOTE, PARTIAL_MARK: PARTIAL_NOTE}
    table.notes += [note for mark, note in notes.items() if mark in given]
    return table


def render(spec: PaperTable, cells: pd.DataFrame) -> Table:
    header = ["model", "paper row"]
    for column in spec.columns:
        header += [f"{column.label} (ours)", f"{column.label} (paper)"]
    table = Table(spec.name, spec.title, header, notes=[*spec.notes, f"Paper: {spec.paper}."])
    digits = {column.label: column.digits for column in spec.columns}
    applied = []
    for encoder, group in cells.groupby("encoder", sort=False):
        rows = [row for row in group["paper_row"] if row]
        line = [str(encoder), rows[0] if rows else MISSING]
        for cell in group.itertuples(index=False):
            d = digits[cell.column]
            ours = mean_std_cell(_none(cell.ours_mean), _none(cell.ours_std), d)
            marks = _marks(cell.contended, cell.scaled, cell.partial)
            applied += [marks] if ours != MISSING else []
            line.append(marked(ours, marks))
            line.append(mean_std_cell(_none(cell.paper_mean), _none(cell.paper_std), d))
        table.rows.append(line)
    table.notes[len(spec.notes) : len(spec.notes)] = _fold_notes(cells)  # before 'Paper:'
    return _with_mark_notes(table, applied)


def _fold_notes(cells: pd.DataFrame) -> list[str]:
    """For each CV task of a table that ran fewer folds than its CV has: how many its cells
    average (the paper's are over all of them)."""
    notes = []
    for (label, task), group in cells.groupby(["column", "task"], sort=False):
        ran = sorted({int(n) for n in group["n"] if 0 < n < CV_FOLDS})
        if task in CV_TASKS and ran:
            counts = " to ".join(map(str, dict.fromkeys([ran[0], ran[-1]])))
            notes.append(
                f"{label} (ours): over {counts} of the {CV_FOLDS} folds only (the paper's: "
                f"all {CV_FOLDS})."
            )
    return notes


def missing_runs(grid: Sequence[tuple[str, ...]], results: pd.DataFrame) -> list[str]:
    """The runs of ``grid`` (their keys) with no finished row, as the manifest names them:
    ``task/encoder/replicate``."""
    done = set(map(tuple, finished(results)[list(KEY_COLUMNS)].itertuples(index=False)))
    return ["/".join(key) for key in grid if tuple(key) not in done]


def summary_table(
    summary: pd.DataFrame,
    runs: pd.Series,
    grid: Sequence[tuple[str, ...]] = (),
    missing: Sequence[str] = (),
) -> Table:
    """Every task x encoder that finished: the number of runs and the main metrics; with the
    grid's runs (``grid``, their keys) the ``missing`` ones named in a note and beside the
    runs of their row."""
    shown = (
        "train_acc",
        "dev_acc",
        "test_acc",
        "test_pearson",
        "test_spearman",
        "test_mse",
        "params",
        "train_time_per_epoch_s",
    )
    table = Table(
        "suite_summary",
        "Suite: every task x encoder",
        ["task", "encoder", "runs", *shown],
        notes=[ACC, *([missing_note(len(grid), missing)] if missing else [])],
    )
    indexed = summary.set_index(["task", "encoder", "metric"])
    applied = []
    for (task, encoder), n in runs.items():
        line = [str(task), str(encoder), runs_cell(n, missing, str(task), str(encoder))]
        for metric in shown:
            key = (task, encoder, metric)
            digits = 4 if metric.startswith(("test_p", "test_s", "test_m")) else 1
            digits = 0 if metric == "params" else digits
            found = key in indexed.index
            mean = float(indexed.loc[key, "mean"]) if found else None
            std = float(indexed.loc[key, "std"]) if found and metric != "params" else None
            marks = _marks(
                _contended(indexed, task, encoder, metric),
                _scaled(indexed, task, encoder, metric),
                _partial(indexed, task, encoder, metric),
            )
            cell = mean_std_cell(mean, std, digits)
            applied += [marks] if cell != MISSING else []
            line.append(marked(cell, marks))
        table.rows.append(line)
    return _with_mark_notes(table, applied)


def failures_table(failed: pd.DataFrame) -> Table:
    table = Table("failures", "Runs that failed (no successful retry)", [*KEY_COLUMNS, "error"])
    for row in failed.itertuples(index=False):
        table.rows.append([row.task, row.encoder, row.replicate, row.error])
    return table


def aggregate(
    out_dir: Path,
    param_encoders: Iterable[str] | None = None,
    grid: Sequence[tuple[str, ...]] = (),
) -> list[Path]:
    """Write the summary, the comparison and all tables into ``out_dir``; return the paths.
    The parameter table lists ``param_encoders``, by default the encoders of the results (an
    encoder variant ``NAME:KEY=VALUE`` by its name). ``grid``: the keys of the runs of the grid
    the manifest states, those without a finished row named in the summary table."""
    out_dir = Path(out_dir)
    results = load_results(out_dir)
    if param_encoders is None:
        ran = results["encoder"].astype(str).str.partition(":")[0] if len(results) else []
        param_encoders = list(dict.fromkeys(ran))
    summary = summarize(results)
    cells = {spec.name: comparison(summary, spec) for spec in PAPER_TABLES}
    runs = finished(results).groupby(["task", "encoder"], sort=True).size()
    tables = [summary_table(summary, runs, grid, missing_runs(grid, results))]
    tables += [
        render(spec, cells[spec.name]) for spec in PAPER_TABLES if not cells[spec.name].empty
    ]
    tables.append(params_table(param_rows(param_encoders)))
    failed = failures(results)
    if not failed.empty:
        tables.append(failures_table(failed))
    written = [out_dir / SUMMARY, out_dir / COMPARISON]
    write_text_atomic(written[0], summary.to_csv(index=False))
    frames = [frame for frame in cells.values() if not frame.empty]
    merged = pd.concat(frames) if frames else pd.DataFrame(columns=COMPARISON_COLUMNS)
    write_text_atomic(written[1], merged.to_csv(index=False))
    written += write_tables(tables, out_dir / "tables", "sanbench suite")
    return written
