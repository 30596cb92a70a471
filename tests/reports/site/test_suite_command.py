"""The suite page's command is the one that trained its runs (issue 56, "Pages"): after
``suite --aggregate-only`` the page showed that line, which trains nothing."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from harness.cli import main
from reports.site import build_site

if TYPE_CHECKING:
    from playwright.sync_api import Browser

SUITE = Path(__file__).resolve().parents[1] / "fixtures" / "suite-tiny"


@pytest.mark.slow  # builds a site and starts a browser
def test_an_aggregation_keeps_the_command_that_trained(
    browser: Browser, tmp_path: Path, figures_not_drawn: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = tmp_path / "suite-tiny"
    shutil.copytree(SUITE, suite)
    trained = json.loads((suite / "manifest.json").read_text())
    words = ["suite", "--out", str(suite), "--aggregate-only"]
    monkeypatch.setattr(sys, "argv", ["sanbench", *words])  # the command line recorded
    assert main(words) == 0
    manifest = json.loads((suite / "manifest.json").read_text())
    assert manifest["command"] == trained["command"]
    assert manifest["grid"] == trained["grid"] and manifest["overrides"] == trained["overrides"]
    (aggregation,) = manifest["aggregations"]
    assert "--aggregate-only" in aggregation["command"] and aggregation["updated"]
    assert main(words) == 0
    manifest = json.loads((suite / "manifest.json").read_text())
    assert manifest["command"] == trained["command"] and len(manifest["aggregations"]) == 2

    build_site([suite], tmp_path / "site", "suite")
    view = browser.new_page()
    try:
        view.goto((tmp_path / "site" / "suite-tiny" / "index.html").as_uri())
        command = view.locator("#provenance ~ pre").first.inner_text()
    finally:
        view.close()
    assert command == trained["command"]
