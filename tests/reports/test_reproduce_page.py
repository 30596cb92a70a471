"""The page of a ``sanbench reproduce`` folder (fixture ``reproduce-tiny``: hand-made per-run
rows for CR and TREC x DiSAN, Bi-BloSAN, Multi-CNN, tables written by the harness)."""

from __future__ import annotations

import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from reports.site import build_site

FIXTURES = Path(__file__).parent / "fixtures"
REPRODUCE = FIXTURES / "reproduce-tiny"


class Tables(HTMLParser):
    """Every table of a page as rows of cell texts, with the h2/h3 heading before it."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[tuple[str, list[list[str]]]] = []
        self.heading = ""
        self._text: list[str] | None = None
        self._row: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "table":
            self.tables.append((self.heading, []))
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th", "h2", "h3"):
            self._text = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._row is not None and self._text is not None:
            self._row.append("".join(self._text).strip())
        elif tag == "tr" and self._row is not None:
            self.tables[-1][1].append(self._row)
            self._row = None
        elif tag in ("h2", "h3") and self._text is not None:
            self.heading = " ".join("".join(self._text).split())
        if tag in ("td", "th", "h2", "h3"):
            self._text = None

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("site")
    build_site([REPRODUCE], out, "sanbench report reproduce-tiny")
    index = (out / "index.html").read_text()
    assert "Reproductions" in index and "reproduce-tiny/index.html" in index
    for name in ("cells.csv", "taus.csv", "pairs.csv", "encoders.csv", "runs.csv"):
        assert (out / "reproduce-tiny" / "reproduction" / name).is_file()
    return (out / "reproduce-tiny" / "index.html").read_text()


def test_one_table_per_task_with_tau_beside_the_paper(page: str) -> None:
    parser = Tables()
    parser.feed(page)
    by_heading = {heading: rows for heading, rows in parser.tables}
    trec = by_heading["TREC (seeds 0-2): Kendall's τ = 1.00 (one-sided p = 0.500) over 2 encoders"]
    assert trec[0][:5] == ["encoder", "runs", "ours", "paper", "gap"]
    # ours bi_blosan 90/92/94 and disan 89/90/93; Bi-BloSAN Table 6: 94.8 (0.2), 94.2 (0.1)
    assert trec[1][:7] == ["bi_blosan", "3", "92.0 (2.0)", "94.8 (0.2)", "-2.8", "1", "1"]
    assert trec[1][7] == "disan"  # paired t over seeds: p = 0.057, not ranked
    assert trec[3][:4] == ["multi_cnn", "3", "81.0 (1.0)", "–"]
    cr = by_heading[
        "CR (folds 0-2 of 10-fold CV): Kendall's τ = – (one-sided p = –) over 2 encoders"
    ]
    assert [row[0] for row in cr[1:]] == ["bi_blosan", "disan", "multi_cnn"]
    assert cr[1][8] == "disan"  # both 84.8 in the paper
    assert by_heading["Per encoder: gap to the paper over tasks"][1:] == [
        ["disan", "2", "-6.7", "-9.8", "-3.5"],
        ["bi_blosan", "2", "-4.3", "-5.8", "-2.8"],
    ]


def test_footnote_once_and_the_sessions_machine_and_wall_time(page: str) -> None:
    assert page.count('id="departures"') == 1
    assert page.count("Departures from the papers") == 1
    assert "no phrase-level labels" in page and "50d" in page
    assert "AMD EPYC (hand-made fixture)" in page
    assert re.search(r"<dt>wall time \(h\)</dt><dd>0.50</dd>", page)
    assert "2.10 1.50 1.20" in page and "interrupted" in page
    assert "sanbench reproduce --data-dir DATA" in page
    assert "Mean Kendall's τ over the tasks where it is defined: 1.00." in page


def test_a_manifest_of_today_counts_seeds_and_folds(tmp_path: Path) -> None:
    """A reproduction's manifest has counted seeds and folds apart since 2026-11-25; its page
    read the old ``runs`` count and ``sanbench report`` failed on every reproduce folder made
    since ('internal error: UndefinedError: 'dict object' has no attribute 'runs'', exit 1,
    a site without its index; outside check of 2026-11-30)."""
    folder = tmp_path / "reproduce-tiny"
    shutil.copytree(REPRODUCE, folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    preset = manifest["preset"]
    preset["seeds"], preset["folds"] = preset.pop("runs"), 10
    (folder / "manifest.json").write_text(json.dumps(manifest))
    build_site([folder], tmp_path / "site", "sanbench report reproduce-tiny")
    page = (tmp_path / "site" / "reproduce-tiny" / "index.html").read_text()
    assert "3 seeds (10 folds of the CV tasks: cr) per\ncell" in page
    assert (
        "3 seeds (10 folds of the CV tasks: cr)" in (tmp_path / "site" / "index.html").read_text()
    )


def test_the_runs_per_cell_are_those_of_the_tasks_shown(tmp_path: Path) -> None:
    """Outside check 56i of #56, item 11: the index's row of a TREC-only reproduction said '3
    seeds (or 3 folds, for a task without a test set)', though TREC has a test set."""
    folder = tmp_path / "reproduce-tiny"
    shutil.copytree(REPRODUCE, folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    preset = manifest["preset"]
    preset["seeds"], preset["folds"], preset["tasks"] = preset.pop("runs"), 3, ["trec"]
    (folder / "manifest.json").write_text(json.dumps(manifest))
    taus = folder / "reproduction" / "taus.csv"
    taus.write_text("".join(line for line in taus.read_text().splitlines(True) if "CV" not in line))
    build_site([folder], tmp_path / "site", "sanbench report reproduce-tiny")
    index = (tmp_path / "site" / "index.html").read_text()
    assert '"text">3 seeds</td>' in index and "folds" not in index
    page = (tmp_path / "site" / "reproduce-tiny" / "index.html").read_text()
    assert "3 seeds per\ncell" in page


def test_the_budget_and_a_lone_encoder_read_as_words(tmp_path: Path) -> None:
    """Outside check 56h item 8: the lead read 'budget model.width_scale=0.3333333333333333'
    (the footnote: '0.333 of its paper width'), and a task with one encoder of the paper's
    'Kendall's τ = – (one-sided p = –) over 1 encoders'."""
    folder = tmp_path / "reproduce-tiny"
    shutil.copytree(REPRODUCE, folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["preset"]["overrides"] = {"model.width_scale": 1 / 3, "trainer.max_steps": 3}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    taus = folder / "reproduction" / "taus.csv"
    taus.write_text(taus.read_text().replace("trec,2,1.0,0.5,", "trec,1,,,"))
    build_site([folder], tmp_path / "site", "sanbench report reproduce-tiny")
    page = (tmp_path / "site" / "reproduce-tiny" / "index.html").read_text()
    lead = " ".join(page.split('class="lead"', 1)[1].split("</p>", 1)[0].split())
    assert "budget model.width_scale=0.333, trainer.max_steps=3." in lead, lead
    parser = Tables()
    parser.feed(page)
    headings = [heading for heading, _ in parser.tables]
    assert "TREC (seeds 0-2): Kendall's τ = – (1 encoder with both numbers; τ needs two)" in (
        headings
    ), headings
    assert "CR (folds 0-2 of 10-fold CV): Kendall's τ = – (one-sided p = –) over 2 encoders" in (
        headings
    )
