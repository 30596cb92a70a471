"""``index.html`` of a profile run: figures, growth-exponent table, summary, environment."""

from __future__ import annotations

from pathlib import Path

import jinja2
import pandas as pd

from reports.profile.data import ProfileRun, load_run
from reports.profile.figures import write_figures
from reports.profile.growth import growth_table

ENV_COLUMNS = ("device", "device_name", "dtype", "torch", "cuda", "python", "threads")
ENV_COLUMNS += ("allocator", "commit", "batch_size", "dim")
TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
)


def longest_points(rows: pd.DataFrame) -> list[dict[str, object]]:
    """Per (encoder, mode): the longest measured length and the first out-of-memory length."""
    summary = []
    for (encoder, mode), group in rows.groupby(["encoder", "mode"], sort=False):
        ok = group[group["status"] == "ok"].sort_values("seq_len")
        oom = group[group["status"] == "oom"]["seq_len"]
        if ok.empty:
            continue
        last = ok.iloc[-1]
        summary.append(
            {
                "encoder": encoder,
                "mode": mode,
                "params": int(last["params"]),
                "seq_len": int(last["seq_len"]),
                "time_ms_median": float(last["time_ms_median"]),
                "peak_mem_mb": float(last["peak_mem_mb"]),
                "oom_at": int(oom.min()) if not oom.empty else "",
            }
        )
    return summary


def environment(run: ProfileRun) -> dict[str, str]:
    """The manifest's environment, overridden by the values the rows actually record."""
    env = {str(k): str(v) for k, v in run.manifest.get("environment", {}).items()}
    for column in ENV_COLUMNS:
        if column in run.rows.columns:
            values = run.rows[column].dropna().astype(str).unique()
            env[column] = ", ".join(sorted(values))
    return env


def build_report(folder: Path) -> Path:
    """Write the figures and ``index.html`` into ``folder``; returns the page's path."""
    run = load_run(folder)
    counts = run.rows["status"].value_counts()
    page = TEMPLATES.get_template("profile.html.j2").render(
        folder=str(run.folder),
        command=run.manifest.get("command", ""),
        counts={s: int(counts.get(s, 0)) for s in ("ok", "oom", "skipped_oom", "error")},
        figures=write_figures(run.rows, run.folder),
        growth=growth_table(run.rows).to_dict("records"),
        summary=longest_points(run.rows),
        environment=environment(run),
    )
    index = run.folder / "index.html"
    index.write_text(page)
    return index
