"""The suite page in a real Chromium names the runs of its grid that never finished (outside
check 9y item 3): in red in the lead, and beside the runs of the summary rows that lack them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from reports.site import build_site

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.slow  # builds a site and starts a browser

SUITE = Path(__file__).resolve().parents[1] / "fixtures" / "suite-tiny"
RED = "rgb(176, 0, 32)"  # .bad
MISSING = ["sst2/bi_blosan/seed1", "sst2/multi_cnn/seed1"]


def test_the_runs_of_the_grid_that_never_finished_are_read_in_the_lead_and_summary(
    browser: Browser, tmp_path: Path
) -> None:
    suite = tmp_path / "suite-tiny"
    shutil.copytree(SUITE, suite)
    manifest = json.loads((suite / "manifest.json").read_text())
    manifest["grid"]["seeds"] = 2  # sst2's second seed never ran (cr: 1 fold, all ran)
    manifest["missing"] = MISSING
    (suite / "manifest.json").write_text(json.dumps(manifest))
    build_site([suite], tmp_path / "site", "test")
    view = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        view.goto((tmp_path / "site" / "suite-tiny" / "index.html").resolve().as_uri())
        view.screenshot(path=tmp_path / "suite.png", full_page=True)
        said = view.locator("#missing")
        assert said.is_visible() and said.evaluate("e => getComputedStyle(e).color") == RED
        assert said.inner_text().startswith(f"2 runs of this grid never finished: {MISSING[0]}, ")
        rows = view.locator("#summary ~ div table tbody tr, #summary ~ table tbody tr")
        runs = {tuple(row.split("\t")[:3]) for row in rows.all_inner_texts()}
        assert ("sst2", "multi_cnn", "1, 1 missing") in runs, runs
        assert ("cr", "multi_cnn", "1") in runs, runs
    finally:
        view.close()
