"""docs/benchmarks.md's quick-preset section is generated from the committed run and stays so."""

from __future__ import annotations

from tools import benchmarks_doc


def test_benchmarks_doc_holds_what_the_committed_run_gives() -> None:
    """Fails when the run or the doc's section changes without the other (regenerate with
    ``python -m tools.benchmarks_doc``)."""
    assert benchmarks_doc.SECTION.written() == benchmarks_doc.generated()


def test_every_measured_median_of_the_run_is_in_the_doc() -> None:
    from reports.profile.data import load_run

    rows = load_run(benchmarks_doc.RUN).rows
    timed = rows[rows["status"] == "ok"]
    section = benchmarks_doc.SECTION.written()
    assert len(timed) == 54  # 9 encoders x 3 lengths x 2 modes
    assert all(f"{median:,.0f}" in section for median in timed["time_ms_median"])
    assert "0 contended" in section  # the committed run is a quiet one
