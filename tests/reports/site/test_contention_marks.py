"""Every page that shows a time, or a ratio of times, marks a contended one and links to the
evidence (on e81e6e0 only the profile page did: the fit, suite and comparison pages printed
contended times, and ratios between them, bare)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from reports.site import build_site

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SUITE = FIXTURES / "suite-tiny"
FIT = SUITE / "runs" / "sst2" / "bi_blosan" / "seed0"
PROFILES = [FIXTURES / "profile-cpu-fp32", FIXTURES / "profile-cpu-bf16"]


def contended_fit(tmp_path: Path) -> Path:
    """The fixture fit with its training epochs contended (31% of the CPU, load 3.5 -> 4.25)."""
    fit = tmp_path / "fit-contended"
    shutil.copytree(FIT, fit)
    metrics = json.loads((fit / "metrics.json").read_text())
    metrics.update(
        train_contended=True,
        train_cpu_granted=0.31,
        train_load_avg_before=3.5,
        train_load_avg_after=4.25,
        dev_infer_contended=False,
        train_epochs_timed=1,  # a run of today (an older one's time is marked o as well)
    )
    (fit / "metrics.json").write_text(json.dumps(metrics))
    return fit


def page(site: Path, slug_part: str) -> str:
    (found,) = [p for p in site.rglob("index.html") if slug_part in p.parent.name]
    return found.read_text()


def summary_cells(html: str) -> list[str]:
    summary = html.split('id="summary"', 1)[1].split("</table>", 1)[0]
    return re.findall(r"<td[^>]*>([^<]*)</td>", summary)


@pytest.mark.slow  # builds a site (its pages: figures left undrawn)
@pytest.mark.usefixtures("figures_not_drawn")
def test_a_fit_page_marks_its_contended_times_and_shows_why(tmp_path: Path) -> None:
    fit = contended_fit(tmp_path)
    html = page(build_site([fit], tmp_path / "site").parent, "fit-contended")
    marked = [cell for cell in summary_cells(html) if cell.endswith(" c")]
    assert len(marked) == 1  # the epoch time; inference was not contended
    assert re.fullmatch(r"[\d.,]+ c", marked[0])  # the mark beside the time, not instead
    assert 'href="#contended"' in html and 'id="contended"' in html
    evidence = html.split('id="contended"', 1)[1].split("</table>", 1)[0]
    assert "training epochs" in evidence and "31.0" in evidence and "3.50 → 4.25" in evidence


@pytest.mark.slow  # builds a site (its pages: figures left undrawn)
@pytest.mark.usefixtures("figures_not_drawn")
def test_a_suite_page_marks_a_cell_with_a_contended_run(tmp_path: Path) -> None:
    suite = tmp_path / "suite-contended"
    shutil.copytree(SUITE, suite)
    results = suite / "results-1-of-1.csv"
    frame = pd.read_csv(results)
    frame["train_contended"] = [1] + [0] * (len(frame) - 1)
    frame["train_cpu_granted"] = [0.2] + [0.9] * (len(frame) - 1)
    frame["train_epochs_timed"] = 1  # runs of today (an older one's time is marked o as well)
    frame.to_csv(results, index=False)
    html = page(build_site([suite], tmp_path / "site").parent, "suite-contended")
    assert sum(cell.endswith(" c") for cell in summary_cells(html)) == 1
    evidence = html.split('id="contended"', 1)[1].split("</table>", 1)[0]
    first = frame.iloc[0]
    assert f"{first['task']} / {first['encoder']}" in evidence and "20.0" in evidence


@pytest.mark.slow  # builds a site (its pages: figures left undrawn)
@pytest.mark.usefixtures("figures_not_drawn")
def test_a_ratio_of_contended_timings_is_marked_with_links_to_the_points(tmp_path: Path) -> None:
    copies = []
    for profile in PROFILES:
        copies.append(tmp_path / profile.name)
        shutil.copytree(profile, copies[-1])
    rows = pd.read_csv(copies[1] / "profile.csv")
    rows["contended"] = False
    ok = rows.index[rows["status"] == "ok"]
    rows.loc[ok[0], "contended"] = True
    rows.to_csv(copies[1] / "profile.csv", index=False)
    html = page(build_site(copies, tmp_path / "site").parent, "compare")
    assert "(1 of" in html and "contended)" in html
    assert "index.html#contended" in html


@pytest.mark.slow  # starts a browser
def test_in_the_browser_the_mark_is_shown_and_its_evidence_one_click_away(
    browser, tmp_path: Path
) -> None:
    site = build_site([contended_fit(tmp_path)], tmp_path / "site").parent
    (found,) = [p for p in site.rglob("index.html") if "fit-contended" in p.parent.name]
    view = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        view.goto(found.resolve().as_uri(), wait_until="load")
        marked = view.locator("#summary ~ div table td", has_text=" c").first
        assert marked.is_visible()
        view.get_by_role("link", name="The runs, the CPU they got and the load").click()
        assert view.url.endswith("#contended")
        evidence = view.locator("#contended table")  # folded under the figures, opened
        assert evidence.is_visible() and "31.0" in evidence.inner_text()
        assert "training epochs" in evidence.inner_text()
    finally:
        view.close()


@pytest.mark.slow  # builds a site (its pages: figures left undrawn)
@pytest.mark.usefixtures("figures_not_drawn")
def test_a_study_page_marks_the_duration_of_a_contended_trial(tmp_path: Path) -> None:
    study = tmp_path / "study-contended"
    shutil.copytree(FIXTURES / "study-block-length-memory", study)
    trials = pd.read_csv(study / "trials.csv")
    trials["user_attrs_train_contended"] = [True] + [False] * (len(trials) - 1)
    trials.to_csv(study / "trials.csv", index=False)
    html = page(build_site([study], tmp_path / "site").parent, "study-contended")
    table = html.split('id="trials"', 1)[1].split("</table>", 1)[0]
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", table)
    assert sum(cell.endswith(" c") for cell in cells) == 1
    assert "1 trial had contended training" in html and "user_attrs_train_cpu_granted" in html
