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
from reports.site import build_site, training_page
from reports.site.discover import discover

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


@pytest.mark.slow  # draws the suite's figures
def test_the_commands_that_changed_the_grid_are_shown_below_the_one_that_made_it(
    tmp_path: Path,
) -> None:
    """Outside check 7y, item 4: the page said "3 seeds" under the two ``--seeds 2`` commands
    that made its runs; the ``--seeds 3`` rerun that set the grid, listed in ``reruns``, was not
    shown. Outside check 8y, item 3: it said "the grid above is the last command's" where the
    last command, a ``--seeds 2 --aggregate-only``, changed no grid."""
    suite = tmp_path / "suite"
    shutil.copytree(SUITE, suite)
    manifest = json.loads((suite / "manifest.json").read_text())
    command = f"{manifest['command']} --seeds 3 --shard 1/3"
    rerun = {"command": command, "updated": "", "commit": "", "overrides": {}, "runs": []}
    manifest["grid"]["seeds"] = 3
    aggregation = {"command": f"{manifest['command']} --seeds 2 --aggregate-only", "updated": ""}
    manifest = {**manifest, "reruns": [rerun], "aggregations": [aggregation]}
    (suite / "manifest.json").write_text(json.dumps(manifest))
    (run,) = discover([suite])
    training_page.build_suite(run, tmp_path / "page")
    html = " ".join((tmp_path / "page" / "index.html").read_text().split())
    assert f"{command} # trained no run" in html
    assert "the grid above is the one the last of them ran" in html
    assert "<code>--aggregate-only</code> changing no grid" in html
