"""Bi-BloSAN Appendix A's own study read right (issue 56, "Pages"): ``tune --study
block-length-memory`` drew block lengths longer than the sentence (r = 17 at n = 16), its
"Best trial" was one (n, r) picked across lengths, and its page drew the memory on a linear
axis labelled ``peak_mem_mb``; Appendix A asks, per length n, which r needs the least memory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from harness.cli import main
from harness.studies.plans import R_RANGE
from reports.contracts.study import StudyFolder
from reports.site import build_site
from reports.site.study_page import history_figure, slice_figure

if TYPE_CHECKING:
    from playwright.sync_api import Browser


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The whole grid at n = 4 and 8 (tiny shapes: seconds)."""
    tmp = tmp_path_factory.mktemp("study")
    out = tmp / "st1"
    argv = ["tune", "--study", "block-length-memory", "--lengths", "4,8", "--batch-size", "2"]
    argv += ["--dim", "8", "--storage", f"sqlite:///{tmp / 's.db'}", "--out", str(out)]
    assert main(argv) == 0
    return out


@pytest.mark.slow  # measures a grid of forwards
def test_no_block_is_longer_than_the_sentence(study: Path) -> None:
    trials = StudyFolder(study).read_trials()
    pairs = set(zip(trials["params_seq_len"], trials["params_block_len"], strict=True))
    assert pairs == {(n, r) for n in (4, 8) for r in range(R_RANGE[0], n + 1)}
    assert len(trials) == len(pairs) == 3 + 7  # the default budget: the whole grid, once


@pytest.mark.slow
def test_the_best_block_length_is_given_per_length(
    study: Path, tmp_path: Path, browser: Browser, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = json.loads((study / "summary.json").read_text())
    argmin = {row["seq_len"]: row["r_measured"] for row in summary["results"]["per_length"]}
    best = {trial["params"]["seq_len"]: trial["params"]["block_len"] for trial in summary["best"]}
    assert summary["best_per"] == "seq_len" and best == argmin and len(summary["best"]) == 2

    build_site([study], tmp_path / "site", "study")
    view = browser.new_page()
    try:
        view.goto((tmp_path / "site" / "study-st1" / "index.html").as_uri())
        heading = view.locator("#best").inner_text()
        rows = view.locator("#best ~ div table").first.locator("tbody tr").all_inner_texts()
    finally:
        view.close()
    assert heading == "Best trial per n (seq_len)", heading
    assert [row.split("\t")[1] for row in rows] == [
        f"n (seq_len) = {n}, r (block_len) = {argmin[n]}" for n in (4, 8)
    ]


@pytest.mark.slow
def test_the_memory_is_drawn_as_memory_on_every_page(study: Path) -> None:
    trials = StudyFolder(study).read_trials()
    column, params = "value_peak_mem_mb", ["params_block_len", "params_seq_len"]
    for figure in (history_figure(trials, column, "minimize", "seq_len"),
                   slice_figure(trials, column, params)):  # fmt: skip
        axes = figure.axes[0]
        assert axes.get_yscale() == "log"
        assert axes.get_ylabel() == "peak memory (MB), log scale"


@pytest.mark.slow
def test_the_page_gives_the_block_lengths_really_tried(study: Path, tmp_path: Path) -> None:
    """Outside check of issue 56, item 13: the page said "r up to n", though n = 40 was tried
    up to r = 32 only (the grid is 2..min(32, n), docs/studies.md)."""
    build_site([study], tmp_path / "site", "study")
    html = " ".join((tmp_path / "site" / "study-st1" / "index.html").read_text().split())
    assert "r = 2..min(32, n) (a block no longer than the sentence)" in html
    assert "r up to n" not in html
