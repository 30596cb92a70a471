"""The ``browser`` fixture: one headless Chromium, driven by Playwright, for the tests that
open report pages (``test_*browser.py``; ``nox -s browser`` runs them)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import TYPE_CHECKING

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
