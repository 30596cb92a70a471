"""What the suite page says where a figure cannot be drawn (issue 56: "No run has a
``curve.csv``" where every run had one, holding its header only: no validation had run)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reports.site import training_page
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
