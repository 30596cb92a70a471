"""A profile sweep's page: time and memory vs length (Bi-BloSAN Fig. 6, MTSA Fig. 1(a)(b)).

Figures, growth exponents and the longest-length summary come from ``reports.profile``.
"""

from __future__ import annotations

from pathlib import Path

from reports.profile.data import CSV_NAME, load_run
from reports.profile.figures import write_figures
from reports.profile.growth import growth_table
from reports.profile.render import environment, longest_points
from reports.site.discover import MANIFEST, Run
from reports.site.render import Page, copy_data, render_run_page


def build(run: Run, page_dir: Path) -> Page:
    """Write ``page_dir/index.html`` with its figures and copies of the run's data."""
    profile = load_run(run.folder)
    rows = profile.rows
    counts = rows["status"].value_counts()
    env = environment(profile)
    title = f"Profile {run.name}"
    render_run_page(
        "profile.html.j2",
        page_dir,
        run,
        title,
        env,
        counts={s: int(counts.get(s, 0)) for s in ("ok", "oom", "skipped_oom", "error")},
        figures=write_figures(rows, page_dir),
        growth=growth_table(rows).to_dict("records"),
        summary=longest_points(rows),
        files=copy_data(run.folder, [CSV_NAME, MANIFEST], page_dir),
    )
    lengths = sorted(rows["seq_len"].dropna().astype(int).unique())
    return Page(
        run.slug,
        "profile",
        title,
        str(run.folder),
        {
            "encoders": str(rows["encoder"].nunique()),
            "lengths": f"{lengths[0]}–{lengths[-1]}" if lengths else "",
            "device": env.get("device_name") or env.get("device", ""),
            "dtype": env.get("dtype", ""),
            "commit": env.get("commit", ""),
        },
    )
