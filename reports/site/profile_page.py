"""A profile sweep's page: time and memory vs length (Bi-BloSAN Fig. 6, MTSA Fig. 1(a)(b)),
predicted vs measured memory, the longest length that fits a GPU, growth exponents and the
papers' efficiency claims beside our numbers. The one renderer of profile runs: ``sanbench
profile`` builds its report through ``reports.site.build_site`` too."""

from __future__ import annotations

import shlex
from dataclasses import asdict
from pathlib import Path

import pandas as pd

from reports.contracts.manifest import MANIFEST
from reports.contracts.profile_run import (
    MEASURED_STATUSES,
    POINT_ORDER,
    PREDICTED,
    PROFILE_CSV,
    STATUSES,
)
from reports.numbers import RANGE_DASH
from reports.profile.claims import papers_claims
from reports.profile.data import environment, load_run, longest_points
from reports.profile.figures import figures
from reports.profile.growth import MIN_R2, growth_table
from reports.profile.tables import (
    BUDGETS_GB,
    compile_gains,
    longest_fitting,
    prediction_errors,
    ratios_to_reference,
    tile_costs,
)
from reports.site.discover import Run
from reports.site.render import Page, copy_data, joined, render_run_page, save_figure

CONTENDED_COLUMNS = [*POINT_ORDER, "time_ms_median", "threads", "cpu_granted"]
CONTENDED_COLUMNS += ["cpu_share", "load_avg_before", "load_avg_after"]


FURTHER = ["--predict-lengths", "16:4096:16"]  # the lengths the fits table's hint predicts


def predict_further(rows: pd.DataFrame) -> list[str]:
    """The commands that predict the page's encoders at its shapes (batch size and width, one
    command per pair the run holds) to longer lengths."""
    encoders = ",".join(dict.fromkeys(rows["label"]))
    modes = ",".join(dict.fromkeys(rows["mode"]))
    shapes = rows[["batch_size", "dim"]].drop_duplicates().itertuples(index=False)
    words = ["sanbench", "profile", "--predict-only", "--encoders", encoders, "--modes", modes]
    return [
        shlex.join([*words, "--batch-size", str(batch), "--dim", str(dim), *FURTHER])
        for batch, dim in shapes
    ]


def build(run: Run, page_dir: Path) -> Page:
    """Write ``page_dir/index.html`` with its figures and copies of the run's data."""
    profile = load_run(run.folder)
    rows = profile.rows
    counts = rows["status"].value_counts()
    env = environment(profile)
    title = f"Profile {run.name}"
    errors = prediction_errors(rows)
    render_run_page(
        "profile.html.j2",
        page_dir,
        run,
        title,
        env,
        counts={s: int(counts.get(s, 0)) for s in STATUSES},
        timed=bool(rows["status"].isin(MEASURED_STATUSES).any()),  # else times go unsaid
        predict_only=bool((rows["status"] == PREDICTED).all()),
        noisy=int(rows["noisy"].sum()),
        contended=int(rows["contended"].sum()),
        contended_points=rows[rows["contended"]]
        .reindex(columns=CONTENDED_COLUMNS)
        .sort_values(POINT_ORDER)
        .to_dict("records"),
        batch_sizes=joined(rows["batch_size"]),
        dims=joined(rows["dim"]),
        figures=[save_figure(f, page_dir, stem, t) for stem, t, f in figures(rows)],
        growth=growth_table(rows).to_dict("records"),
        min_r2=MIN_R2,
        errors=errors.to_dict("records"),
        compile_gains=compile_gains(rows).to_dict("records"),
        tile_costs=tile_costs(rows).to_dict("records"),
        ratios=ratios_to_reference(rows).to_dict("records"),
        lower_bounds=rows[rows["predicted_leaves_out"] != ""]
        .sort_values(POINT_ORDER)
        .to_dict("records"),
        worst_error=float(errors["error_pct"].abs().max()) if not errors.empty else None,
        fitting=longest_fitting(rows),
        predict_further=predict_further(rows),
        budgets=[f"{b} GB" for b in BUDGETS_GB],
        claims=[asdict(c) for c in papers_claims(rows)],
        summary=longest_points(rows),
        files=copy_data(run.folder, [PROFILE_CSV, MANIFEST], page_dir),
    )
    lengths = sorted(rows["seq_len"].dropna().astype(int).unique())
    return Page(
        run.slug,
        "profile",
        title,
        str(run.folder),
        {
            "encoders": str(rows["label"].nunique()),
            "lengths": f"{lengths[0]}{RANGE_DASH}{lengths[-1]}" if lengths else "",
            "device": env.get("device_name") or env.get("device", ""),
            "dtype": env.get("dtype", ""),
            "commit": env.get("commit", ""),
        },
    )
