"""Build the static site: one page per run, a comparison page for profile runs, the index."""

from __future__ import annotations

import functools
import platform
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import jinja2
import matplotlib
import pandas as pd

from reports.contracts.manifest import (
    FIT_RUN,
    PROFILE_RUN,
    REPRODUCE_RUN,
    RUN_KINDS,
    STUDY_RUN,
    SUITE_RUN,
)
from reports.site import compare_page, profile_page, reproduce_page, study_page, training_page
from reports.site.discover import Run, Skipped, discover
from reports.site.ledger import INDEX, SiteLedger
from reports.site.render import Page, render

BUILDERS: dict[str, Callable[[Run, Path], Page]] = {
    PROFILE_RUN: profile_page.build,
    SUITE_RUN: training_page.build_suite,
    REPRODUCE_RUN: reproduce_page.build,
    FIT_RUN: training_page.build_fit,
    STUDY_RUN: study_page.build,
}
COMPARISON_SLUG = "compare-profiles"


def build_site(
    paths: list[Path],
    out: Path,
    command: str = "",
    skipped: list[Skipped] | None = None,
    made: list[str] | None = None,
) -> Path:
    """Pages for every run under ``paths`` into ``out``; returns ``out/index.html``.

    Two or more profile runs that measured something also get a comparison page (baseline: the
    first of them given); a profile run that measured nothing (``--predict-only``) is named on
    the index, and on the comparison, as not compared. A run that cannot be read yet (a
    half-written folder) is left out and listed on the index page with the reason, as is a path
    without a manifest; ``skipped`` receives them too. Pages an
    earlier build made in ``out`` are replaced or, when no longer built, removed; a page folder
    or index that it did not make is never written over (``ValueError``, nothing written).
    Each page is moved into ``out`` when whole (``made`` receives its slug): a build stopped
    midway keeps the whole pages, recorded, and no half one.
    """
    out = Path(out)
    skipped = [] if skipped is None else skipped
    runs = discover([Path(p) for p in paths], skipped, site=out)
    ledger = SiteLedger(out, made)
    slugs = [run.slug for run in runs]
    if sum(run.kind == PROFILE_RUN for run in runs) > 1:
        slugs.append(COMPARISON_SLUG)
    taken = ledger.not_made(slugs)
    if taken:
        raise ValueError(
            f"{out} holds {', '.join(taken)}, which no sanbench report made; nothing was "
            "written. Give another --out (a new or empty folder, or a site sanbench built)"
        )
    pages = []
    built: list[Run] = []
    profile_runs = [run for run in runs if run.kind == PROFILE_RUN]  # lend a suite their memory
    for run in runs:
        lent = {"profiles": profile_runs} if run.kind == SUITE_RUN else {}
        build = functools.partial(BUILDERS[run.kind], run, **lent)
        page = _build_page(ledger, run.slug, build, skipped, run)
        if page is not None:
            pages.append(page)
            built.append(run)
    if not pages:
        raise ValueError("no run could be read: " + "; ".join(s.reason for s in skipped))
    profiles = [run for run in built if run.kind == PROFILE_RUN]
    comparisons: list[Page] = []
    compared, not_compared = compare_page.comparable(profiles) if len(profiles) > 1 else ([], [])
    if len(compared) > 1:
        build = functools.partial(
            compare_page.build, compared, slug=COMPARISON_SLUG, not_compared=not_compared
        )
        comparison = _build_page(ledger, COMPARISON_SLUG, build, skipped, None)
        comparisons = [comparison] if comparison is not None else []
    ledger.finish()
    return render(
        "index.html.j2",
        out / INDEX,
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
        not_compared=not_compared,
        kinds=RUN_KINDS,
        skipped=skipped,
        files=[],
    )


def _build_page(
    ledger: SiteLedger,
    slug: str,
    build: Callable[[Path], Page],
    skipped: list[Skipped],
    run: Run | None,
) -> Page | None:
    """``build(page_dir)`` in a folder of its own, moved to ``out/slug`` when whole (a stop
    keeps no half page); a run whose files cannot be read is noted in ``skipped``."""
    page_dir = ledger.page_dir(slug)
    try:
        page = build(page_dir)
    except (OSError, ValueError) as error:  # half-written: empty CSV, missing table, ...
        ledger.drop_page(page_dir)
        skipped.append(Skipped(str(run.folder if run else slug), str(error)))
        return None
    except BaseException:  # a Ctrl-C or SIGTERM: the page being built is not kept
        ledger.drop_page(page_dir)
        raise
    ledger.built_page(slug, page_dir)
    return page


def build_profile_report(run_dir: Path, command: str) -> Path:
    """The report ``sanbench profile`` writes after a sweep: the site of that one run in
    ``run_dir/report``, ``command`` the line that builds it (its index names it); returns the
    profile page's path."""
    run_dir = Path(run_dir)
    build_site([run_dir], run_dir / "report", command)
    (run,) = discover([run_dir])
    return run_dir / "report" / run.slug / INDEX
