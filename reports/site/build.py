"""Build the static site: one page per run, a comparison page for profile runs, the index."""

from __future__ import annotations

import platform
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import jinja2
import matplotlib
import pandas as pd

from reports.site import compare_page, profile_page, reproduce_page, study_page, training_page
from reports.site.discover import Run, discover
from reports.site.render import Page, render

BUILDERS: dict[str, Callable[[Run, Path], Page]] = {
    "profile": profile_page.build,
    "suite": training_page.build_suite,
    "reproduce": reproduce_page.build,
    "fit": training_page.build_fit,
    "study": study_page.build,
}
COMPARISON_SLUG = "compare-profiles"


def build_site(paths: list[Path], out: Path, command: str = "") -> Path:
    """Pages for every run under ``paths`` into ``out``; returns ``out/index.html``.

    Two or more profile runs also get a comparison page (baseline: the first one given).
    """
    out = Path(out)
    runs = discover([Path(p) for p in paths])
    pages = []
    for run in runs:
        (out / run.slug).mkdir(parents=True, exist_ok=True)
        pages.append(BUILDERS[run.kind](run, out / run.slug))
    profiles = [run for run in runs if run.kind == "profile"]
    comparisons = []
    if len(profiles) > 1:
        (out / COMPARISON_SLUG).mkdir(parents=True, exist_ok=True)
        comparisons.append(compare_page.build(profiles, out / COMPARISON_SLUG, COMPARISON_SLUG))
    return render(
        "index.html.j2",
        out / "index.html",
        title="sanbench report",
        root="",
        environment={
            "built": datetime.now(UTC).isoformat(timespec="seconds"),
            "python": platform.python_version(),
            "pandas": pd.__version__,
            "matplotlib": matplotlib.__version__,
            "jinja2": jinja2.__version__,
        },
        command=command or "not recorded",
        pages=pages,
        comparisons=comparisons,
        kinds=("profile", "suite", "reproduce", "study", "fit"),
        files=[],
    )


def build_profile_report(run_dir: Path) -> Path:
    """The report ``sanbench profile`` writes after a sweep: the site of that one run in
    ``run_dir/report``; returns the profile page's path."""
    run_dir = Path(run_dir)
    build_site([run_dir], run_dir / "report", f"sanbench report {run_dir} --out {run_dir}/report")
    (run,) = discover([run_dir])
    return run_dir / "report" / run.slug / "index.html"
