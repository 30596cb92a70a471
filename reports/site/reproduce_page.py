"""The page of a ``sanbench reproduce`` folder: per task our accuracies beside Bi-BloSAN
Table 6 / MTSA Table 5 with Kendall's τ, pairs that cannot be ranked, gaps per encoder,
the protocol footnote and the command, machine, load and wall time of every session."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reports import numbers
from reports.contracts import reproduction
from reports.contracts.manifest import MANIFEST
from reports.contracts.reproduction import read_table
from reports.site.discover import Run
from reports.site.render import Page, copy_data, joined, render_run_page

CV_PROTOCOL = "folds"  # a CV task's protocol in taus.csv: "folds 0-2 of 10-fold CV"
TASK_HEADER = ["encoder", "runs", "ours", "paper", "gap", "rank ours", "rank paper"]
TASK_HEADER += ["ours not separable from", "paper within spread of"]


def _gap(value: float) -> str:
    return numbers.MISSING if pd.isna(value) else f"{value:+.1f}"


def _rank(value: float) -> str:
    return numbers.MISSING if pd.isna(value) else f"{value:g}"


def partners(pairs: pd.DataFrame, encoder: str, tied: pd.Series) -> str:
    """Encoders paired with ``encoder`` in the rows of ``pairs`` where ``tied`` holds."""
    chosen = pairs[tied & ((pairs["encoder_a"] == encoder) | (pairs["encoder_b"] == encoder))]
    pairs_of = zip(chosen["encoder_a"], chosen["encoder_b"], strict=True)
    names = [b if a == encoder else a for a, b in pairs_of]
    return ", ".join(names) or numbers.MISSING


def task_sections(folder: Path) -> list[dict]:
    cells = read_table(folder, reproduction.CELLS)
    taus = read_table(folder, reproduction.TAUS).set_index("task")
    pairs = read_table(folder, reproduction.PAIRS)
    sections = []
    for task in taus.index:
        task_pairs = pairs[pairs["task"] == task]
        ours_tied = ~task_pairs["ours_separable"].astype(bool)
        paper_tied = task_pairs["paper_within_spread"].astype(str) == "True"
        rows = []
        for cell in cells[cells["task"] == task].sort_values("ours_rank").itertuples():
            rows.append(
                [
                    cell.encoder,
                    str(cell.n),
                    numbers.mean_std_cell(cell.ours_mean, cell.ours_std),
                    numbers.mean_std_cell(cell.paper_mean, cell.paper_std),
                    _gap(cell.gap),
                    _rank(cell.ours_rank),
                    _rank(cell.paper_rank),
                    partners(task_pairs, cell.encoder, ours_tied),
                    partners(task_pairs, cell.encoder, paper_tied),
                ]
            )
        sections.append(
            {
                "task": task,
                "id": f"task-{task}",
                # the title the harness wrote (older tables: the task's name)
                "label": taus.loc[task].get("title", task),
                "protocol": taus.loc[task, "protocol"],
                "tau": numbers.fixed(taus.loc[task, "tau"], 2),
                "tau_value": taus.loc[task, "tau"],
                # one-sided p of "our order agrees with the paper's" (older folders: none)
                "tau_p": numbers.fixed(taus.loc[task, "p_value"], 3)
                if "p_value" in taus.columns
                else numbers.MISSING,
                "ranked": int(taus.loc[task, "encoders"]),
                "rows": rows,
            }
        )
    return sections


def encoder_rows(folder: Path) -> list[list[str]]:
    gaps = read_table(folder, reproduction.ENCODERS)
    return [
        [row.encoder, str(row.tasks), _gap(row.mean_gap), _gap(row.min_gap), _gap(row.max_gap)]
        for row in gaps.itertuples()
    ]


def sessions(manifest: dict) -> tuple[list[list[str]], str]:
    """One row per session (start, load at start and end, wall time) and the total wall."""
    rows, total = [], 0.0
    for session in manifest.get("sessions", []):
        wall = session.get("wall_s")
        total += float(wall or 0)
        rows.append(
            [
                session.get("started", numbers.MISSING),
                session.get("load_start", numbers.MISSING),
                session.get("load_end", "interrupted"),
                numbers.MISSING if wall is None else f"{float(wall) / 3600:.2f}",
            ]
        )
    return rows, f"{total / 3600:.2f}"


def runs_per_cell(preset: dict, tasks: list[dict]) -> str:
    """How many runs a cell of the grid has, for the ``tasks`` shown (:func:`task_sections`):
    seeds for a task with a test set, folds of a CV one (whose protocol names its folds); a
    manifest written before 2026-11-25 has one ``runs`` count for both."""
    if "runs" in preset:
        return f"{preset['runs']} runs"
    seeds, folds = preset.get("seeds", numbers.MISSING), preset.get("folds", numbers.MISSING)
    cv = [t["task"] for t in tasks if str(t["protocol"]).startswith(CV_PROTOCOL)]
    if not tasks:
        return f"{seeds} seeds or {folds} folds"
    if not cv:
        return f"{seeds} seeds"
    if len(cv) == len(tasks):
        return f"{folds} folds"
    return f"{seeds} seeds ({folds} folds of the CV tasks: {', '.join(cv)})"


def build(run: Run, page_dir: Path) -> Page:
    manifest = run.manifest
    preset = manifest.get("preset", {})
    title = f"Reproduction {run.name}"
    session_rows, wall_h = sessions(manifest)
    tasks = task_sections(run.folder)
    environment = {
        "machine": manifest.get("machine", ""),
        "workers": str(manifest.get("workers", "")),
        "threads per run": str(manifest.get("threads_per_run", "")),
        "wall time (h)": wall_h,
    }
    names = [f"{reproduction.FOLDER}/{name}" for name in reproduction.FILES] + [MANIFEST]
    render_run_page(
        "reproduce.html.j2",
        page_dir,
        run,
        title,
        environment,
        preset=preset,
        runs_per_cell=runs_per_cell(preset, tasks),
        tasks=tasks,
        mean_tau=numbers.fixed(pd.Series([t["tau_value"] for t in tasks]).mean(), 2),
        task_header=TASK_HEADER,
        encoders=encoder_rows(run.folder),
        sessions=session_rows,
        departures=manifest.get("departures", ""),
        files=copy_data(run.folder, names, page_dir),
    )
    return Page(
        run.slug,
        "reproduce",
        title,
        str(run.folder),
        {
            "tasks": joined(preset.get("tasks", [])),
            "encoders": joined(preset.get("encoders", [])),
            "runs per cell": runs_per_cell(preset, tasks),
            "wall time (h)": wall_h,
        },
    )
