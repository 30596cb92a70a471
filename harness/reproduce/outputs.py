"""Write the reproduction's data files (``reports.contracts.reproduction``: CSVs read by
``reports/``) and the markdown for ``docs/results.md``."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from datamodules.tasks import get_task
from harness.reproduce.comparison import Reproduction, reproduction
from harness.reproduce.preset import Preset
from harness.reproduce.stats import ALPHA
from harness.suite.grid import CV_FOLDS, CV_TASKS
from harness.suite.table_files import Table
from harness.training.settings.task_configs import task_defaults
from reports.contracts import reproduction as files
from reports.contracts.suite_results import KEY_COLUMNS
from reports.numbers import MISSING, mean_std_cell


def protocol(task: str, preset: Preset) -> str:
    """``folds 0-2 of 10-fold CV`` or ``seeds 0-2``."""
    if task in CV_TASKS:
        return f"folds 0-{preset.folds - 1} of {CV_FOLDS}-fold CV"
    return f"seeds 0-{preset.seeds - 1}"


def _width(preset: Preset) -> str:
    """How the preset sets the encoders' widths, against the papers' (empty: theirs)."""
    from harness.training.settings.task_model import paper_width  # builds on the encoder registry

    o = preset.overrides
    if "model.hidden_dim" in o:
        width = o["model.hidden_dim"]
        return (
            f"width {width} for every encoder instead of 300 (Multi-CNN {width} filters per "
            f"window instead of 200, MTSA {2 * width} instead of 600)"
        )
    if "model.width_scale" in o:
        scale = float(o["model.width_scale"])
        widths = ", ".join(
            f"{name} {round(paper_width(name) * scale)} instead of {paper_width(name)}"
            for name in preset.encoders
        )
        return f"every encoder at {scale:.3g} of its paper width ({widths})"
    return ""


def departures(preset: Preset, embeddings: str | None = None) -> str:
    """The footnote, printed once: where this protocol departs from the papers'.
    ``embeddings``: the vectors' file name (the papers use GloVe 6B 300d)."""
    o = preset.overrides
    vectors = "" if embeddings is None or "300d" in embeddings else f"{embeddings} vectors"
    step_caps = sorted(
        {
            f"{task} {cap['max_steps']}"
            for task, by_encoder in caps(preset).items()
            for cap in by_encoder.values()
            if cap["max_steps"] > 0
        }
    )
    parts = [
        f"{vectors} instead of GloVe 6B 300d" if vectors else "",
        _width(preset),
        f"at most {o['trainer.max_epochs']} epochs with early stopping on dev (patience "
        f"{o.get('run.early_stopping_patience', MISSING)})"
        if "trainer.max_epochs" in o
        else "",
        "step caps " + ", ".join(step_caps) if step_caps else "",
        f"CV: the first {preset.folds} of the {CV_FOLDS} folds (dev carved from the other nine)"
        if preset.folds < CV_FOLDS
        else "",
        f"{preset.seeds} seeds per cell instead of 5" if preset.seeds < 5 else "",
        "SST-1/SST-2 trained on whole sentences only (no phrase-level labels)",
        "TREC: dev is 10% of the training file; the score is on the 500-question set the "
        "papers call TREC's dev set",
        "neither paper has a row for Kim's Multi-CNN in these tables, MTSA reports no SST-2 "
        "(its SST-2 runs use its SST-5 settings)",
    ]
    return "Departures from the papers' protocol: " + "; ".join(p for p in parts if p) + "."


def _number(value: Any, digits: int = 1, sign: bool = False) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


def _rank(value: float) -> str:
    return MISSING if math.isnan(value) else f"{value:g}"


def not_separable(pairs: pd.DataFrame, task: str, encoder: str, column: str) -> list[str]:
    """Encoders that ``encoder`` is not separated from on ``task`` (ours or paper side)."""
    rows = pairs[pairs["task"] == task]
    found = []
    for row in rows.itertuples(index=False):
        tied = (not row.ours_separable) if column == "ours" else row.paper_within_spread is True
        if tied and encoder in (row.encoder_a, row.encoder_b):
            found.append(row.encoder_b if row.encoder_a == encoder else row.encoder_a)
    return found


def task_table(result: Reproduction, task: str, preset: Preset) -> Table:
    tau = result.taus.set_index("task").loc[task]
    label = get_task(task).title
    title = (
        f"{label} ({protocol(task, preset)}): Kendall's τ = {_number(tau['tau'], 2)} "
        f"(one-sided p = {_number(tau['p_value'], 3)}, {tau.get('p_method', 'exact')}) over "
        f"{int(tau['encoders'])} encoders with a paper number"
    )
    table = Table(
        f"reproduce_{task}",
        title,
        ["encoder", "runs", "ours", "paper", "gap", "rank ours", "rank paper",
         f"ours not separable from (Holm-corrected p ≥ {ALPHA})", "paper within spread of"],
    )  # fmt: skip
    cells = result.cells[result.cells["task"] == task].sort_values("ours_rank")
    for cell in cells.itertuples(index=False):
        table.rows.append(
            [
                cell.encoder,
                str(cell.n),
                mean_std_cell(_float(cell.ours_mean), _float(cell.ours_std)),
                mean_std_cell(_float(cell.paper_mean), _float(cell.paper_std)),
                _number(cell.gap, sign=True),
                _rank(cell.ours_rank),
                _rank(cell.paper_rank),
                ", ".join(not_separable(result.pairs, task, cell.encoder, "ours")) or MISSING,
                ", ".join(not_separable(result.pairs, task, cell.encoder, "paper")) or MISSING,
            ]
        )
    return table


def _float(value: Any) -> float | None:
    return None if value is None or pd.isna(value) else float(value)


def encoder_table(result: Reproduction) -> Table:
    table = Table(
        "reproduce_encoders",
        "Per encoder: gap to the paper (ours - paper, accuracy points) over tasks",
        ["encoder", "tasks", "mean gap", "min gap", "max gap"],
    )
    for row in result.encoders.itertuples(index=False):
        table.rows.append(
            [
                row.encoder,
                str(row.tasks),
                _number(row.mean_gap, sign=True),
                _number(row.min_gap, sign=True),
                _number(row.max_gap, sign=True),
            ]
        )
    return table


def table6(result: Reproduction, encoders: list[str], tasks: list[str]) -> Table:
    """Bi-BloSAN Table 6's layout: encoders x tasks, each cell ours mean (std) and rank beside
    the paper's mean (std) and rank, then a row of Kendall's τ (one-sided p) per task."""
    titles = [get_task(task).title for task in tasks]
    table = Table(
        "reproduce_table6",
        "Encoders x tasks: ours mean (std) #rank · paper mean (std) #rank (accuracy, %)",
        ["encoder", *titles],
    )
    cells = result.cells.set_index(["task", "encoder"])
    for encoder in encoders:
        row = [encoder]
        for task in tasks:
            cell = cells.loc[(task, encoder)]
            ours = mean_std_cell(_float(cell.ours_mean), _float(cell.ours_std))
            paper = mean_std_cell(_float(cell.paper_mean), _float(cell.paper_std))
            row.append(
                f"{ours} #{_rank(cell.ours_rank)} · {paper}"
                + ("" if paper == MISSING else f" #{_rank(cell.paper_rank)}")
            )
        table.rows.append(row)
    taus = result.taus.set_index("task")
    table.rows.append(
        ["Kendall's τ (p)"]
        + [
            f"{_number(taus.loc[t, 'tau'], 2)} ({_number(taus.loc[t, 'p_value'], 3)})"
            for t in tasks
        ]
    )
    return table


def verdicts(result: Reproduction) -> list[str]:
    """What the tests support, as sentences: rank agreement per task and pooled, and how many
    encoder pairs our runs separate. Nothing is claimed that a test does not support."""
    taus = result.taus.dropna(subset=["p_value"])
    agreeing = [
        f"{get_task(row.task).title} (τ {row.tau:.2f}, p {row.p_value:.3f})"
        for row in taus.itertuples(index=False)
        if row.p_value < ALPHA
    ]
    pooled = result.pooled_p
    lines = [
        f"- Rank agreement per task (Kendall's τ, one-sided, p < {ALPHA}): "
        + (
            f"{len(agreeing)} of {len(taus)} tasks, " + "; ".join(agreeing)
            if agreeing
            else f"none of the {len(taus)} tasks"
        )
        + ".",
        f"- Pooled over the {len(taus)} tasks (Fisher's method, which takes the tasks' p-values "
        f"as independent: different data, the same encoders and code): p = {_number(pooled, 3)}: "
        + (
            "our order of the encoders agrees with the papers' beyond chance."
            if pooled < ALPHA
            else "no evidence at this budget that our order agrees with the papers' beyond chance."
        ),
    ]
    pairs = result.pairs
    if len(pairs):
        tested = pairs.dropna(subset=["p_value"])
        uncorrected = int((tested["p_value"] < ALPHA).sum())
        separated = int(pairs["ours_separable"].sum())
        paper_apart = int(pairs["paper_within_spread"].map(lambda within: within is False).sum())
        lines.append(
            f"- Encoder pairs our runs separate (two-sided paired t-test over shared seeds; over "
            "shared CV folds Nadeau and Bengio's corrected resampled t-test; Holm's correction "
            f"over all {len(tested)} tests, family-wise error {ALPHA}): {separated} of "
            f"{len(pairs)}. Uncorrected, {uncorrected} have p < {ALPHA}, where chance alone, "
            f"if no pair differed, would give about {ALPHA * len(tested):.1f}. Pairs the "
            f"papers' numbers separate (difference beyond the larger printed std): "
            f"{paper_apart}. Orders within the other pairs are not results."
        )
    return lines
    return lines


def caps(preset: Preset) -> dict[str, dict[str, dict[str, int]]]:
    """``{task: {encoder: {"max_epochs": E, "max_steps": S}}}``: the caps each run of
    ``preset`` trains under (its task config, per-encoder values, the preset's overrides;
    S = -1: no step cap). ``sanbench reproduce`` records them in its manifest, so the tables
    of a finished reproduction do not change when a config changes later."""
    budgets: dict[str, dict[str, dict[str, int]]] = {}
    for task in preset.tasks:
        for encoder in preset.encoders:
            values = task_defaults(task, encoder) | preset.overrides
            budgets.setdefault(task, {})[encoder] = {
                "max_epochs": int(values.get("trainer.max_epochs", -1)),
                "max_steps": int(values.get("trainer.max_steps", -1)),
            }
    return budgets


def ended_on_cap(runs: pd.DataFrame, budgets: dict[str, dict[str, dict[str, int]]]) -> pd.Series:
    """bool per run: it stopped at its epoch or step cap (:func:`caps`), not by early
    stopping on dev."""

    def capped(row: Any) -> bool:
        cap = budgets[row.task][row.encoder]
        at_epochs = cap["max_epochs"] > 0 and int(row.epochs) >= cap["max_epochs"]
        at_steps = cap["max_steps"] > 0 and int(row.steps) >= cap["max_steps"]
        return at_epochs or at_steps

    return pd.Series([capped(row) for row in runs.itertuples(index=False)], index=runs.index)


def results_block(runs: pd.DataFrame, record: dict[str, Any]) -> str:
    """docs/results.md's generated section from the per-run rows (``RUN_COLUMNS`` of
    ``reports.contracts.reproduction``) and the reproduction's record (its manifest's
    ``preset``, ``caps`` and ``departures``): the Table 6 grid, what the tests support, the
    gaps per encoder, the runs that ended on a cap, and every remaining confound."""
    preset = Preset.from_dict(record["preset"])
    result = reproduction(runs, list(preset.tasks), list(preset.encoders))
    capped = runs[ended_on_cap(runs, record["caps"])]
    per_task = capped.groupby("task").size()
    cap_line = (
        f"- Runs that ended on a cap (epochs or steps) instead of early stopping on dev: "
        f"{len(capped)} of {len(runs)}"
        + (
            " ("
            + ", ".join(
                f"{get_task(t).title} {per_task.get(t, 0)}/{(runs['task'] == t).sum()}"
                for t in preset.tasks
            )
            + ")"
            if len(capped)
            else ""
        )
        + "."
    )
    return "\n".join(
        [
            table6(result, list(preset.encoders), list(preset.tasks)).to_markdown(),
            *verdicts(result),
            cap_line,
            "",
            encoder_table(result).to_markdown(),
            f"Confounds: {record['departures']}",
        ]
    )


def facts_lines(facts: dict[str, Any]) -> list[str]:
    """Command, machine, load and wall time as markdown bullet lines."""
    sessions = facts.get("sessions", [])
    loads = "; ".join(
        f"{s['started']}: {s['load_start']} -> {s['load_end']}" for s in sessions if "load_end" in s
    )
    wall = sum(float(s.get("wall_s", 0)) for s in sessions)
    killed = sum("wall_s" not in s for s in sessions)
    return [
        f"- Command: `{facts.get('command', MISSING)}`",
        f"- Machine: {facts.get('machine', MISSING)}",
        f"- Load average (1, 5, 15 min) at start -> end of each session: {loads or MISSING}",
        f"- Wall time: {wall / 3600:.2f} h over {len(sessions)} session(s)"
        + (f" ({killed} killed before recording its time)" if killed else ""),
    ]


def markdown(result: Reproduction, preset: Preset, facts: dict[str, Any]) -> str:
    parts = [
        "Accuracies in %, mean (std) over the runs; gap = ours - paper; ranks 1 = best "
        "(ties share the mean rank); Kendall's τ-b compares our order of the encoders with the "
        "paper's over the encoders with both numbers, with its exact one-sided permutation "
        "p-value (ties included). Pairs whose paired test over shared folds/seeds has a "
        f"Holm-corrected p ≥ {ALPHA} are listed as not separable: their order is not a result. "
        "On the paper side, pairs whose difference is within the larger std are listed.[^dep]",
        "",
    ]
    for task in preset.tasks:
        parts.append(task_table(result, task, preset).to_markdown())
    taus = result.taus["tau"].dropna()
    parts.append(
        f"Mean Kendall's τ over the {len(taus)} tasks where it is defined: "
        f"{_number(taus.mean() if len(taus) else math.nan, 2)}.\n"
    )
    parts += [*verdicts(result), ""]
    parts.append(encoder_table(result).to_markdown())
    note = facts.get("departures") or departures(preset)
    parts += [*facts_lines(facts), "", f"[^dep]: {note}", ""]
    return "\n".join(parts)


def write_outputs(
    out_dir: Path, result: Reproduction, finished: pd.DataFrame, preset: Preset, facts: dict
) -> list[Path]:
    """Every file of ``reports.contracts.reproduction`` under ``out_dir``; returns the paths."""
    runs = finished.reindex(columns=files.RUN_COLUMNS)
    runs = runs.sort_values(list(KEY_COLUMNS))
    taus = result.taus.assign(
        title=[get_task(task).title for task in result.taus["task"]],
        protocol=[protocol(task, preset) for task in result.taus["task"]],
    )
    return files.write_tables(
        out_dir,
        {
            files.CELLS: result.cells.to_csv(index=False),
            files.TAUS: taus.to_csv(index=False),
            files.PAIRS: result.pairs.to_csv(index=False),
            files.ENCODERS: result.encoders.to_csv(index=False),
            files.RUNS: runs.to_csv(index=False),
            files.MARKDOWN: markdown(result, preset, facts),
        },
    )
