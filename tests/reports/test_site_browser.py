"""The report in a real headless Chromium, driven by Playwright: console errors, exceptions,
failed loads and broken images fail a page; every page leaves a full-page screenshot.

Playwright drives the Chromium installed on the machine (``executable_path``; nothing is
downloaded). ``nox -s browser`` runs the browser tests alone and keeps the screenshots under
``runs/report-browser``; ``nox -s tests`` runs it with the rest. The ``browser`` fixture is in
``conftest.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from reports.site import build_site

if TYPE_CHECKING:
    from playwright.sync_api import Browser, ConsoleMessage, Error, Request

pytestmark = pytest.mark.slow  # starts a browser

FIXTURES = Path(__file__).parent / "fixtures"
FIT = FIXTURES / "suite-tiny" / "runs" / "sst2" / "bi_blosan" / "seed0"
BROKEN_IMAGES = (
    "Array.from(document.images)"
    ".filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src'))"
)
VIEWPORT = {"width": 1280, "height": 900}


@dataclass
class PageCheck:
    """What one page showed: errors (console, exceptions, failed loads) and broken images."""

    page: Path
    errors: list[str] = field(default_factory=list)
    broken_images: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors and not self.broken_images


def check_page(browser: Browser, path: Path, screenshot: Path) -> PageCheck:
    """Load ``path``, collect what went wrong until the load event, save a screenshot."""
    check = PageCheck(path)
    page = browser.new_page(viewport=VIEWPORT)

    def on_console(message: ConsoleMessage) -> None:
        if message.type in ("error", "assert"):
            url = message.location.get("url", "")
            check.errors.append(f"console.{message.type}: {message.text} {url}")

    def on_failed_load(request: Request) -> None:
        check.errors.append(f"failed load: {request.url} {request.failure}")

    def on_exception(error: Error) -> None:
        check.errors.append(f"exception: {error}")

    page.on("console", on_console)
    page.on("pageerror", on_exception)
    page.on("requestfailed", on_failed_load)
    try:
        page.goto(path.resolve().as_uri(), wait_until="load")
        check.broken_images = page.evaluate(BROKEN_IMAGES)
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=screenshot, full_page=True)
    finally:
        page.close()
    return check


def test_a_broken_page_fails_on_every_kind_of_problem(browser: Browser, tmp_path: Path) -> None:
    bad = tmp_path / "bad.html"
    bad.write_text(
        '<link rel="stylesheet" href="missing.css"><img src="missing.png">'
        '<script>console.error("boom")</script><script>throw new Error("thrown")</script>'
    )
    check = check_page(browser, bad, tmp_path / "bad.png")
    assert not check.ok
    assert check.broken_images == ["missing.png"]
    assert any(e.startswith("console.error: boom") for e in check.errors), check.errors
    assert any(e.startswith("exception: thrown") for e in check.errors), check.errors
    failed = [e for e in check.errors if e.startswith("failed load:")]
    assert {e.split()[2].rsplit("/", 1)[1] for e in failed} == {"missing.css", "missing.png"}
    assert all("ERR_FILE_NOT_FOUND" in e for e in failed)


def test_a_clean_page_passes(browser: Browser, tmp_path: Path) -> None:
    good = tmp_path / "good.html"
    good.write_text('<p>fine</p><script>console.log("not an error")</script>')
    check = check_page(browser, good, tmp_path / "good.png")
    assert check.ok, check.errors


def test_every_page_of_the_report_loads_clean(browser: Browser, tmp_path: Path) -> None:
    site = tmp_path / "site"
    build_site([FIXTURES, FIT], site, "sanbench report tests/reports/fixtures")
    pages = sorted(site.rglob("*.html"))
    assert len(pages) >= 7  # index, two profiles, their comparison, suite, study, fit, ...
    shots = tmp_path / "screenshots"
    checks = [
        check_page(browser, page, shots / f"{'_'.join(page.relative_to(site).parts)}.png")
        for page in pages
    ]
    assert [(c.page, c.errors, c.broken_images) for c in checks if not c.ok] == []
    assert all(shot.stat().st_size > 1000 for shot in shots.iterdir())
    assert len(list(shots.iterdir())) == len(pages)


def test_the_papers_tables_fit_a_1400_pixel_window(browser: Browser, tmp_path: Path) -> None:
    """Issue 35: Bi-BloSAN Table 6 (14 columns) needed horizontal scrolling at 1400 px."""
    site = tmp_path / "site"
    build_site([FIXTURES / "suite-tiny"], site, "test")
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        page.goto((site / "suite-tiny" / "index.html").resolve().as_uri(), wait_until="load")
        overflowing = page.evaluate(
            "Array.from(document.querySelectorAll('.scroll'))"
            ".filter(box => box.querySelector('table') && /Table/.test(box.previousElementSibling"
            "?.textContent ?? '') && box.scrollWidth > box.clientWidth)"
            ".map(box => box.previousElementSibling.textContent)"
        )
        paper_tables = page.evaluate(
            "Array.from(document.querySelectorAll('h3'))"
            ".filter(h => /Table \\d/.test(h.textContent)).length"
        )
    finally:
        page.close()
    assert paper_tables >= 2 and overflowing == []
