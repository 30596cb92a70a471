"""Issue 56 in a real Chromium: what the suite, profile and study pages tell a reader, on a
report of a busy machine's quick profile, a suite beside it and a study (fixtures made by the
real commands). Screenshots land in the test's folder."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from reports.site import build_site

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.slow  # builds a site and starts a browser

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RUNS = [FIXTURES / name for name in ("profile-quick-contended", "suite-sst2-contended")]
RUNS.append(FIXTURES / "study-dropout-trec")
RED = "rgb(176, 0, 32)"  # .bad


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    build_site(RUNS, out, "sanbench report (issue 56 fixtures)")
    return out


def opened(browser: Browser, page: Path, shot: Path) -> Page:
    view = browser.new_page(viewport={"width": 1280, "height": 900})
    view.goto(page.resolve().as_uri(), wait_until="load")
    view.screenshot(path=shot, full_page=True)
    return view


def test_the_suite_pages_contended_evidence_is_one_click_away_and_complete(
    browser: Browser, site: Path
) -> None:
    view = opened(browser, site / "suite-sst2-contended" / "index.html", site / "suite.png")
    try:
        evidence = view.locator("#contended table")
        assert not evidence.is_visible()  # folded under the figures
        view.get_by_role("link", name="The runs, the CPU they got and the load").click()
        assert evidence.is_visible()
        rows = evidence.locator("tbody tr").all_inner_texts()
        assert len(rows) == 12  # six runs, each contended in training and in dev inference
        assert all(re.search(r"\t\d+\.\d\t\d+\.\d\d → \d+\.\d\d$", row) for row in rows), rows
        assert sum("dev inference" in row for row in rows) == 6
    finally:
        view.close()


def test_the_suite_page_draws_accuracy_against_cost(browser: Browser, site: Path) -> None:
    view = opened(browser, site / "suite-sst2-contended" / "index.html", site / "suite-cost.png")
    try:
        figure = view.locator("#costs ~ div figure").first
        assert figure.locator("img").evaluate("i => i.complete && i.naturalWidth > 0")
        caption = figure.locator("figcaption").inner_text()
        assert caption.startswith("sst2: test accuracy (%) (mean; bars: 95% interval over 2 runs")
        assert "memory from the profile profile-quick-contended at L = 8" in caption
        captions = view.locator("figcaption").all_inner_texts()
        assert not [c for c in captions if "DiSAN accuracy" in c or c.startswith("MTSA Fig")]
    finally:
        view.close()


def test_the_profile_page_reads_right(browser: Browser, site: Path) -> None:
    view = opened(browser, site / "profile-quick-contended" / "index.html", site / "profile.png")
    try:
        lead = view.locator("p.lead span", has_text="out of memory")
        assert lead.inner_text() == "0 out of memory"
        assert lead.evaluate("e => getComputedStyle(e).color") != RED
        time_cells = view.locator("#growth ~ div table td", has_text="lengths contended")
        assert time_cells.count() == 18
        assert time_cells.first.evaluate("e => getComputedStyle(e).color") == RED
        points = view.locator("#contended table")
        assert not points.is_visible()
        view.get_by_role("link", name="the points").click()
        assert points.is_visible() and points.locator("tbody tr").count() == 54
    finally:
        view.close()


def test_the_study_page_gives_accuracies_in_percent(browser: Browser, site: Path) -> None:
    view = opened(browser, site / "study-dropout-trec" / "index.html", site / "study.png")
    try:
        best = view.locator("#best ~ div table tbody tr").first.inner_text()
        header = view.locator("#best ~ div table thead").first.inner_text()
        assert best.endswith("54.2") and "dev acc (%)" in header, (header, best)  # 9d30570
    finally:
        view.close()
