"""Pages of training results: a suite (many runs) and a single ``sanbench fit`` run.

Both show a summary table (mean (std) over seeds or folds), the efficiency scatter figures,
the validation curves and accuracy by sentence length; the suite page adds the paper-layout
tables that ``sanbench suite`` wrote (ours beside the papers' numbers) and parameter counts.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from reports import aggregation, numbers
from reports.contracts import suite_results
from reports.contracts.fit_folder import FIT_SECTIONS, FitRunFolder
from reports.contracts.manifest import MANIFEST
from reports.palette import styles
from reports.profile.data import load_run
from reports.site.cost_figures import FRONT_RULE, cost_figures
from reports.site.discover import Run
from reports.site.overrides_text import overrides_text, value_text
from reports.site.render import Page, copy_data, joined, render_run_page
from reports.site.training_data import (
    failed_runs,
    first_metrics,
    load_fit_result,
    load_suite_results,
    read_run_file,
)
from reports.site.training_figures import (
    LENGTH_LABELS,
    accuracy_by_length,
    curve_figures,
    efficiency_figures,
    length_figures,
    partial_test_shares,
)

# (column, header, formatter) of the summary table
SUMMARY = (
    ("train_acc", "train acc (%)", numbers.percent),
    ("dev_acc", "dev acc (%)", numbers.percent),
    ("test_acc", "test acc (%)", numbers.percent),
    ("test_pearson", "test r", numbers.score),
    ("test_spearman", "test ρ", numbers.score),
    ("test_mse", "test MSE", numbers.score),
    ("params", "|θ|", numbers.count),
    ("train_time_per_epoch_s", "time/epoch (s)", numbers.quantity),
    ("peak_train_mem_mb", "peak train memory (MB)", numbers.quantity),
    ("dev_infer_time_s", "dev inference (s)", numbers.quantity),
)
ONE_VALUE = {"params"}  # the same in every run of a cell (one model): no std, as tables.md
ENV_KEYS = ("device", "device_name", "torch", "cuda", "python", "lightning", "torchmetrics")
ENV_KEYS += ("threads", "allocator", "world_size", "commit")


def summary_rows(
    results: pd.DataFrame, missing: Sequence[str] = ()
) -> tuple[list[str], list[list[str]]]:
    """task, encoder, runs (``2, 1 missing`` when runs of the grid's for it, ``missing``, have
    no row: as tables.md says it) and every summary column any run has; a time some of whose runs
    were contended carries :data:`~reports.contracts.suite_results.CONTENDED_MARK`, a time per
    epoch some of whose runs trained no whole epoch
    :data:`~reports.contracts.suite_results.SCALED_MARK`, a dev or test score some of whose runs
    scored part of the split :data:`~reports.contracts.suite_results.PARTIAL_MARK`."""
    shown = [c for c in SUMMARY if c[0] in results and results[c[0]].notna().any()]
    header = ["task", "encoder", "runs", *(h for _, h, _ in shown)]
    rows = []
    for (task, encoder), group in results.groupby(["task", "encoder"], sort=True):
        cells = [
            str(task),
            str(encoder),
            suite_results.runs_cell(len(group), missing, str(task), str(encoder)),
        ]
        for column, _, fmt in shown:
            per_epoch = column == suite_results.TIME_PER_EPOCH
            marks = {
                suite_results.CONTENDED_MARK: suite_results.contended(group, column).any(),
                suite_results.SCALED_MARK: per_epoch
                and suite_results.scaled_epoch_time(group).any(),
                suite_results.LEGACY_MARK: per_epoch
                and suite_results.legacy_epoch_time(group).any(),
                suite_results.PARTIAL_MARK: suite_results.partly_scored(group, column).any(),
            }
            stats = aggregation.mean_std(group[column])
            std = None if column in ONE_VALUE else stats.std
            cells.append(numbers.marked(numbers.mean_std_cell(stats.mean, std, shown=fmt), marks))
        rows.append(cells)
    return header, rows


def run_names(runs: pd.DataFrame) -> list[str]:
    """``task / encoder / seed`` (or fold) of each of ``runs``."""
    return [
        " / ".join(str(run[k]) for k in suite_results.KEY_COLUMNS if k in run)
        for _, run in runs.iterrows()
    ]


def scaled_runs(results: pd.DataFrame) -> list[str]:
    """The runs that trained no whole epoch, whose time per epoch is scaled from their batches."""
    return run_names(results[suite_results.scaled_epoch_time(results)])


def partial_runs(results: pd.DataFrame) -> list[str]:
    """Each run that scored part of its dev or test split, with the shares it scored:
    ``trec / multi_cnn / seed0 (dev 33.3%, test 40%)``."""
    found = []
    shares = {"dev": "dev_scored_share", "test": "test_scored_share"}
    for name, (_, run) in zip(run_names(results), results.iterrows(), strict=True):
        said = [
            f"{split} {numbers.percent(run[column])}%"
            for split, column in shares.items()
            if column in run and pd.to_numeric(run[column], errors="coerce") < 1
        ]
        if said:
            found.append(f"{name} ({', '.join(said)})")
    return found


def contended_rows(results: pd.DataFrame) -> list[dict[str, str]]:
    """The evidence behind each mark: every run and time that was contended, with the CPU
    share its threads got and the load average around it where recorded."""
    found = []
    for column, label in (
        ("train_time_per_epoch_s", "training epochs"),
        ("dev_infer_time_s", "dev inference"),
    ):
        prefix = suite_results.TIMED_PREFIXES[column]
        for _, run in results[suite_results.contended(results, column)].iterrows():
            before, after = (run.get(f"{prefix}load_avg_{when}") for when in ("before", "after"))
            recorded = not (pd.isna(before) and pd.isna(after))
            found.append(
                {
                    "run": f"{run['task']} / {run['encoder']} / {run.get('replicate', '')}",
                    "timed": label,
                    "granted": numbers.percent(run.get(f"{prefix}cpu_granted")),
                    "load": (
                        f"{numbers.fixed(before)} → {numbers.fixed(after)}"
                        if recorded
                        else numbers.MISSING
                    ),
                }
            )
    return found


def partly_tested(results: pd.DataFrame) -> set[tuple[str, str]]:
    """Each task and encoder some of whose runs scored part of the test split."""
    partial = results[suite_results.partly_scored(results, "test_acc")]
    return set(zip(partial["task"].astype(str), partial["encoder"].astype(str), strict=True))


def length_rows(table: pd.DataFrame, results: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    """Accuracy (%) and example count per length bin, one row per task and encoder; the cells
    of one some of whose runs (``results``) tested part of the split (their predictions are of
    the sentences tested) carry :data:`~reports.contracts.suite_results.PARTIAL_MARK`."""
    bins = [b for b in LENGTH_LABELS if b in set(table["bin"])]
    marked = partly_tested(results)
    rows = []
    for (task, encoder), group in table.groupby(["task", "encoder"], sort=True):
        mark = {suite_results.PARTIAL_MARK: (str(task), str(encoder)) in marked}
        cells = {
            row.bin: numbers.marked(f"{numbers.percent(row.accuracy)} ({row.examples})", mark)
            for row in group.itertuples()
        }
        rows.append([str(task), str(encoder), *(cells.get(b, numbers.MISSING) for b in bins)])
    return ["task", "encoder", *bins], rows


def flat_config(config: dict[str, Any]) -> dict[str, Any]:
    """A fit config's sections (``trainer:``, ``model:`` ...) as dotted keys; a flat config
    (runs written before the LightningCLI layout) as it is."""
    flat: dict[str, Any] = {}
    for key, value in config.items():
        if isinstance(value, dict) and key in FIT_SECTIONS:
            flat.update({f"{key}.{k}": v for k, v in value.items()})
        else:
            flat[key] = value
    return flat


def environment(results: pd.DataFrame, metrics: dict, manifest: dict) -> dict[str, str]:
    """Device, dtype (Lightning precision), versions and commit of the runs."""
    versions = {k: str(v) for k, v in (metrics.get("versions") or {}).items()}
    env = {key: versions[key] for key in ENV_KEYS if key in versions}
    for key in suite_results.ENVIRONMENT_COLUMNS:
        if key in results and joined(results[key]):
            env[key] = joined(results[key])
    config = flat_config(metrics.get("config") or {})
    precision = config.get("trainer.precision", config.get("precision"))  # older runs: flat
    if precision:
        env["dtype"] = f"precision {precision}"
    if manifest.get("commit") and "commit" not in env:
        env["commit"] = str(manifest["commit"])
    return env


def paper_tables(folder: Path, names: list[str]) -> list[dict[str, Any]]:
    """The suite's ``tables/NAME.csv`` (cells as written) with title and notes from ``.md``."""
    tables = []
    for name in names:
        csv_path = folder / name
        frame = pd.read_csv(csv_path, dtype=str, keep_default_na=False)
        markdown = csv_path.with_suffix(".md")
        lines = markdown.read_text().splitlines() if markdown.is_file() else []
        titles = [line[4:] for line in lines if line.startswith("### ")]
        tables.append(
            {
                "id": csv_path.stem,
                "title": titles[0] if titles else csv_path.stem,
                "header": list(frame.columns),
                "rows": frame.values.tolist(),
                "notes": [line[2:] for line in lines if line.startswith("- ")],
            }
        )
    return tables


def readable_profiles(profiles: Sequence[Run]) -> list[tuple[str, pd.DataFrame]]:
    """(name, rows) of each profile run that can be read; one half-written is its own page's
    problem (left out of the report with the reason), not the suite's."""
    found = []
    for run in profiles:
        try:
            found.append((run.name, load_run(run.folder).rows))
        except (OSError, ValueError):
            continue
    return found


def _sections(
    folder: Path,
    results: pd.DataFrame,
    page_dir: Path,
    profiles: Sequence[Run] | None = None,
    precision: str = "",
    missing: Sequence[str] = (),
) -> dict[str, Any]:
    """What a suite page (``profiles``: the report's profile runs, maybe none) and a fit page
    (``profiles`` None: one encoder, no accuracy against cost) show."""
    style = styles(sorted(results["encoder"].unique()))
    predictions = read_run_file(folder, results, FitRunFolder.read_predictions)
    lengths = accuracy_by_length(predictions)
    curves = read_run_file(folder, results, FitRunFolder.read_curve)
    curve_files = sum(FitRunFolder(folder / str(d)).curve.is_file() for d in results["run_dir"])
    header, rows = summary_rows(results, missing)
    length_header, length_table = length_rows(lengths, results)
    costs = None
    if profiles is not None:
        lent = readable_profiles(profiles)
        costs = cost_figures(results, predictions, lent, style, page_dir, precision)
    return {
        "summary_header": header,
        "summary_rows": rows,
        "contended": contended_rows(results),
        "scaled": scaled_runs(results),
        "partial": partial_runs(results),
        "partial_note": suite_results.PARTIAL_NOTE,
        "legacy_times": run_names(results[suite_results.legacy_epoch_time(results)]),
        "legacy_note": suite_results.LEGACY_NOTE,
        "costs": costs,
        "front_rule": FRONT_RULE,
        "efficiency": efficiency_figures(results, style, page_dir),
        "curves": curve_figures(curves, style, page_dir),
        "header_only_curves": curve_files if not curves else 0,
        "lengths": length_figures(lengths, style, page_dir, partial_test_shares(results)),
        "length_header": length_header,
        "length_rows": length_table,
        "partial_lengths": any(tuple(row[:2]) in partly_tested(results) for row in length_table),
    }


def grid_tasks(grid: dict) -> list[tuple[str, str]]:
    """The grid's tasks as (name, the path it was given by, or ""): a task file by the name its
    tables use, its path shown on hover; a manifest without ``task_names`` (written before
    they were recorded) by the tasks as given."""
    tasks = grid.get("tasks", [])
    names = grid.get("task_names", tasks)
    return [(name, "" if name == task else task) for task, name in zip(tasks, names, strict=True)]


def build_suite(run: Run, page_dir: Path, profiles: Sequence[Run] = ()) -> Page:
    """The suite's page; ``profiles`` (profile runs of the same report) may lend the accuracy
    vs cost figure their tensor memory (:mod:`reports.site.cost_figures`)."""
    results = load_suite_results(run.folder)
    metrics = first_metrics(run.folder, results)
    env = environment(results, metrics, run.manifest)
    table_files = sorted(str(p.relative_to(run.folder)) for p in (run.folder / "tables").glob("*"))
    shown = [
        name
        for name in table_files
        if name.endswith(".csv") and not re.search(r"(suite_summary|failures)\.csv$", name)
    ]
    data = [p.name for p in suite_results.shard_paths(run.folder)]
    data += [suite_results.SUMMARY, suite_results.COMPARISON, MANIFEST, *table_files]
    title = run.name if "suite" in run.name.lower() else f"Suite {run.name}"  # not "Suite suite"
    grid = run.manifest.get("grid", {})
    missing = [str(label) for label in run.manifest.get("missing", [])]
    render_run_page(
        "training.html.j2",
        page_dir,
        run,
        title,
        env,
        grid=grid,
        grid_tasks=grid_tasks(grid),
        reruns=run.manifest.get("reruns", []),
        overrides=overrides_text(run.manifest.get("overrides", {})),
        runs=len(results),
        failed=failed_runs(run.folder),
        finished_tasks=sorted(set(results["task"])) if "task" in results else [],
        paper_tables=paper_tables(run.folder, shown),
        config={},
        files=copy_data(run.folder, data, page_dir),
        missing=missing,
        **_sections(run.folder, results, page_dir, profiles, env.get("dtype", ""), missing),
    )
    figures, notes = suite_key_figures(results)
    return Page(
        run.slug,
        "suite",
        title,
        str(run.folder),
        {
            "tasks": joined(results["task"]),
            "encoders": joined(results["encoder"]),
            "runs": str(len(results)),
            **figures,
            "device": env.get("device_name", env.get("device", "")),
            "commit": env.get("commit", ""),
        },
        notes,
    )


# a suite's index figures, per task as the papers give them (until 2026-11-30 the mean of every
# run: a binary CR's 63.8% pooled with a 6-class TREC's 17.5%, a number no page showed)
BEST_PER_TASK = {
    "dev_acc": ("best dev acc % per task", numbers.percent),
    "test_acc": ("best test acc % per task", numbers.percent),
    "test_pearson": ("best test r per task", numbers.score),
}


def suite_key_figures(results: pd.DataFrame) -> tuple[dict[str, str], list[str]]:
    """What the index shows of a suite: per task, the best encoder's mean over its runs (as
    the page's Summary gives it, marked as it marks it) and which encoder that is, ``cr 63.8
    (3 tied); trec 18.6 (multi_cnn) p``; "–" for a metric no task recorded; and the notes of
    the marks applied (until 2026-11-30 a partly scored best read unmarked on the index)."""
    figures, partial = {}, False
    for column, (key, shown) in BEST_PER_TASK.items():
        said = []
        if column in results:
            values = results.assign(value=pd.to_numeric(results[column], errors="coerce"))
            for task, rows in values.dropna(subset=["value"]).groupby("task", sort=True):
                means = rows.groupby("encoder", sort=True)["value"].mean()
                texts = means.map(shown)
                best = texts[texts == texts[means.idxmax()]]  # a tie as the page shows it
                who = ", ".join(best.index) if len(best) <= 2 else f"{len(best)} tied"
                part = suite_results.partly_scored(rows[rows["encoder"].isin(best.index)], column)
                partial = partial or bool(part.any())
                mark = {suite_results.PARTIAL_MARK: bool(part.any())}
                said.append(numbers.marked(f"{task} {best.iloc[0]} ({who})", mark))
        figures[key] = "; ".join(said) or numbers.MISSING
    return figures, [suite_results.PARTIAL_NOTE] if partial else []


def key_figures(results: pd.DataFrame) -> tuple[dict[str, str], list[str]]:
    """What the index shows of a fit (one run, one task) to compare runs without opening them:
    dev and test accuracy (%), and SICK's test Pearson r where there is one, marked as the
    page marks them; and the notes of the marks applied."""

    def mean(column: str) -> float | None:
        if column not in results:
            return None
        values = pd.to_numeric(results[column], errors="coerce").dropna()
        return float(values.mean()) if len(values) else None

    shown = {"dev acc %": "dev_acc", "test acc %": "test_acc", "test r": "test_pearson"}
    figures, partial = {}, False
    for key, column in shown.items():
        write = numbers.score if column == "test_pearson" else numbers.percent
        cell = write(mean(column))
        part = bool(suite_results.partly_scored(results, column).any())
        partial = partial or (part and cell != numbers.MISSING)
        figures[key] = numbers.marked(cell, {suite_results.PARTIAL_MARK: part})
    return figures, [suite_results.PARTIAL_NOTE] if partial else []


def _fit_files(folder: Path) -> list[str]:
    """The fit run's data files a page offers, relative to ``folder``."""
    run = FitRunFolder(folder)
    return [path.name for path in (run.metrics, run.curve, run.predictions)]


def config_rerun(folder: Path, made_in: str | None) -> tuple[str, str | None]:
    """The line that reruns a fit from its folder's ``fit_config.yaml`` (the file its command
    read may be gone or changed), every path resolved, so it runs from any folder with no
    ``cd`` (a renamed folder the fit or the report was made from does not stop it), and the
    folder the run was made in when it is not ``folder`` resolved (moved or copied). ``--out``
    is given unless the config names the folder as the line does (``made_in``, as recorded)."""
    here = os.path.realpath(folder)
    words = ["sanbench", "fit", "--config", str(FitRunFolder(Path(here)).config)]
    if made_in != here:
        words += ["--out", here]
    made = os.path.realpath(made_in) if made_in else None
    return shlex.join(words), made if made and made != here else None


def build_fit(run: Run, page_dir: Path) -> Page:
    results, metrics = load_fit_result(run.folder)
    env = environment(results, metrics, run.manifest)
    title = f"Fit {run.name}: {metrics.get('task', '')} / {metrics.get('encoder', '')}"
    config = {
        k: numbers.MISSING if v is None else value_text(v)
        for k, v in flat_config(metrics.get("config") or {}).items()
    }
    render_run_page(
        "training.html.j2",
        page_dir,
        run,
        title,
        env,
        grid={},
        overrides=({}, {}),
        runs=1,
        paper_tables=[],
        config=config,
        rerun=config_rerun(run.folder, (metrics.get("config") or {}).get("out")),
        files=copy_data(run.folder, [*_fit_files(run.folder), MANIFEST], page_dir),
        **_sections(run.folder, results, page_dir),
    )
    figures, notes = key_figures(results)
    return Page(
        run.slug,
        "fit",
        title,
        str(run.folder),
        {
            "tasks": str(metrics.get("task", "")),
            "encoders": str(metrics.get("encoder", "")),
            "runs": "1",
            **figures,
            "device": env.get("device_name", env.get("device", "")),
            "commit": env.get("commit", ""),
        },
        notes,
    )
