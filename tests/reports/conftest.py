"""The ``browser`` fixture: one headless Chromium, driven by Playwright, for the tests that
open report pages (``test_*browser.py``; ``nox -s browser`` runs them); ``figures_not_drawn``
for the tests of what a site holds, not of its figures."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser

CHROMIUM_NAMES = ("chromium", "chromium-browser")


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """One headless Chromium for the session (skips, saying which part is missing)."""
    executable = next(filter(None, map(shutil.which, CHROMIUM_NAMES)), None)
    if executable is None:
        pytest.skip(
            "Chromium not found on PATH: apt-get install chromium (nox -s tests and "
            "nox -s browser install it when run as root)"
        )
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="Playwright missing: pip install 'sanbench[browser]'"
    )
    with sync_api.sync_playwright() as playwright:
        # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start
        chromium = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture
def figures_not_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each figure file a site saves holds a stand-in, undrawn: matplotlib's drawing of a site's
    figures (PNG and SVG, about 60% of a build) is left to the tests of figures and pages in a
    browser, where these tests check which pages and files a build writes."""
    from matplotlib.figure import Figure

    def save(figure: Figure, path: str | Path, *args: Any, **kwargs: Any) -> None:
        Path(path).write_bytes(b"figure not drawn by the test")

    monkeypatch.setattr(Figure, "savefig", save)
