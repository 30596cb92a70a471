"""What the suite page says where a figure cannot be drawn (issue 56: "No run has a
``curve.csv``" where every run had one, holding its header only: no validation had run)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reports.site import training_page
from reports.site.cost_figures import FRONT_RULE
from reports.site.discover import discover

SUITE = Path(__file__).resolve().parents[1] / "fixtures" / "suite-tiny"


def page(tmp_path: Path, suite: Path) -> str:
    (run,) = discover([suite])
    training_page.build_suite(run, tmp_path / "page")
    return (tmp_path / "page" / "index.html").read_text()


@pytest.mark.slow  # draws the suite's figures
def test_header_only_curves_read_as_no_validation(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(SUITE, suite)
    curves = sorted(suite.glob("runs/*/*/*/curve.csv"))
    for curve in curves:
        curve.write_text(curve.read_text().splitlines()[0] + "\n")
    html = " ".join(page(tmp_path, suite).split())
    assert "No validation ran: every run's <code>curve.csv</code> holds its header only" in html
    assert f"({len(curves)} runs)" in html and "No run has a" not in html
    for curve in curves:
        curve.unlink()
    html = " ".join(page(tmp_path / "again", suite).split())
    assert "No run has a <code>curve.csv</code>" in html


def _failed_row(task: str, encoder: str, replicate: str, error: str) -> str:
    run_dir = f"runs/{task}/{encoder}/{replicate}"
    return f"{task},{encoder},{replicate},0,,failed,{error}," + "," * 20 + f"{run_dir}\n"


@pytest.mark.slow  # draws the suite's figures
def test_runs_that_failed_are_said_with_why_and_a_task_with_none_finished_is_named(
    tmp_path: Path,
) -> None:
    """Issue 56 (H11.5): a suite whose every run of a task failed read only "4 finished runs"."""
    suite = tmp_path / "suite"
    shutil.copytree(SUITE, suite)
    (results,) = suite.glob("results-*.csv")
    lines = results.read_text().splitlines(keepends=True)
    finished = next(i for i, line in enumerate(lines) if line.startswith("cr,multi_cnn,fold0,"))
    # cr multi_cnn fold0 failed, then finished: not a failed run
    lines.insert(finished, _failed_row("cr", "multi_cnn", "fold0", "ValueError: retried since"))
    lines += [_failed_row("trec", "bilstm", seed, "RuntimeError: out of memory") for seed in
              ("seed0", "seed1")]  # fmt: skip
    lines.append(_failed_row("sst2", "bilstm", "seed0", ""))  # why: only in its error.txt; sst2
    # has finished runs of other encoders: not a task without results
    results.write_text("".join(lines))
    traceback = suite / "runs/sst2/bilstm/seed0/error.txt"
    traceback.parent.mkdir(parents=True)
    traceback.write_text("Traceback (most recent call last):\n  ...\nOSError: disk full\n")
    html = " ".join(page(tmp_path, suite).split())
    lead = html.split('class="lead"', 1)[1].split("</p>", 1)[0]
    assert "3 runs failed and did not finish since: every run of trec" in lead, lead
    assert "<td>RuntimeError: out of memory</td>" in html
    assert "<td>OSError: disk full</td>" in html
    assert "retried since" not in html


def test_the_grid_names_a_task_file_by_its_name_with_its_path_on_hover() -> None:
    """Issue 56 (H17.12): the Grid line read ``/home/me/reviews.yaml`` where the tables say
    ``reviews``; a manifest written before the names were recorded shows the tasks as given."""
    grid = {"tasks": ["trec", "/home/me/reviews.yaml"], "task_names": ["trec", "reviews"]}
    assert training_page.grid_tasks(grid) == [("trec", ""), ("reviews", "/home/me/reviews.yaml")]
    assert training_page.grid_tasks({"tasks": ["trec"]}) == [("trec", "")]


@pytest.mark.slow  # draws the suite's figures
def test_the_page_says_who_is_on_the_pareto_front_as_the_figure_rings_it(tmp_path: Path) -> None:
    """Outside check 56h, item 1: the page's words ("no other encoder is both as cheap or
    cheaper and more accurate") put every one of equally accurate encoders on the front; the
    figure rings the cheapest."""
    html = " ".join(page(tmp_path, SUITE).split())
    assert f"A point is ringed, on the Pareto front, when {FRONT_RULE}." in html
    assert "as cheap or cheaper and more accurate" not in html
