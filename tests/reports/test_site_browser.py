"""The headless-Chromium check: event parsing always; real pages when Chromium is installed."""

from __future__ import annotations

from pathlib import Path

import pytest

from reports.browser_check import check_pages, console_problem, find_browser, site_pages
from reports.site import build_site

FIXTURES = Path(__file__).parent / "fixtures"


def test_console_problem_reads_errors_only() -> None:
    error = {
        "method": "Runtime.consoleAPICalled",
        "params": {"type": "error", "args": [{"type": "string", "value": "boom"}]},
    }
    assert console_problem(error) == "console.error: boom"
    info = {"method": "Runtime.consoleAPICalled", "params": {"type": "log", "args": []}}
    assert console_problem(info) is None
    failed_load = {
        "method": "Log.entryAdded",
        "params": {
            "entry": {
                "level": "error",
                "source": "network",
                "text": "Failed to load resource",
                "url": "file:///x.png",
            }
        },
    }
    assert console_problem(failed_load) == "network: Failed to load resource file:///x.png"
    thrown = {
        "method": "Runtime.exceptionThrown",
        "params": {"exceptionDetails": {"text": "Uncaught", "exception": {"description": "E"}}},
    }
    assert console_problem(thrown) == "exception: E"
    assert console_problem({"id": 3, "result": {}}) is None


def test_site_pages_puts_index_first(tmp_path: Path) -> None:
    for name in ("b/index.html", "index.html", "a/index.html"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("<p>x</p>")
    assert [p.relative_to(tmp_path).as_posix() for p in site_pages(tmp_path)] == [
        "index.html",
        "a/index.html",
        "b/index.html",
    ]


@pytest.mark.skipif(find_browser() is None, reason="chromium is not installed")
def test_chromium_flags_broken_pages_and_passes_the_report(tmp_path: Path) -> None:
    bad = tmp_path / "bad.html"
    bad.write_text('<img src="missing.png"><script>console.error("boom")</script>')
    site = tmp_path / "site"
    build_site([FIXTURES / "study-block-length-memory"], site)
    pages = [bad, *site_pages(site)]
    checks = check_pages(pages, find_browser(), tmp_path / "shots", timeout=60)
    assert not checks[0].ok
    assert checks[0].broken_images == ["missing.png"]
    assert any("boom" in e for e in checks[0].errors)
    assert any("ERR_FILE_NOT_FOUND" in e for e in checks[0].errors)
    assert all(check.ok for check in checks[1:]), [(c.page, c.errors) for c in checks]
    for check in checks:
        assert check.screenshot is not None and check.screenshot.stat().st_size > 1000
