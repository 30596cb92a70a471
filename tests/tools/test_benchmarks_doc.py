"""docs/benchmarks.md's generated sections come from the committed runs and stay so."""

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


def test_the_long_section_holds_what_the_committed_long_runs_give() -> None:
    """The same for the long preset's eager and compiled runs."""
    assert benchmarks_doc.LONG_SECTION.written() == benchmarks_doc.long_generated()


def test_the_long_runs_are_quiet_and_their_predictions_exact() -> None:
    from reports.profile.data import load_run
    from reports.profile.tables import prediction_errors

    for folder in (benchmarks_doc.LONG_RUN, benchmarks_doc.LONG_COMPILED_RUN):
        rows = load_run(folder).rows
        timed = rows[rows["status"] == "ok"]
        assert not timed["contended"].any(), folder
        assert prediction_errors(rows)["error_pct"].abs().max() <= 0.5, folder
    eager = load_run(benchmarks_doc.LONG_RUN).rows
    assert set(eager["seq_len"]) == {256, 512, 1024, 2048} and eager["batch_size"].eq(8).all()
    assert eager["label"].nunique() == 4 and (eager["status"] == "ok").sum() == 32


def test_the_held_out_section_holds_what_the_held_out_runs_give() -> None:
    assert benchmarks_doc.HELD_OUT_SECTION.written() == benchmarks_doc.held_out_generated()


def test_the_held_out_runs_are_predicted_within_half_a_percent() -> None:
    """Every measured point of the held-out runs, every encoder and mode: within 0.5%; no
    prediction leaves a kernel out."""
    from reports.profile.data import load_run
    from reports.profile.tables import prediction_errors
    from tests.harness.memory_prediction.test_step import within_the_bound

    for folder in benchmarks_doc.HELD_OUT_RUNS:
        rows = load_run(folder).rows
        assert rows["predicted_leaves_out"].eq("").all(), folder
        errors = prediction_errors(rows)
        assert errors["label"].nunique() == 19, folder
        rounding = 0.01 * 2**20  # the CSV keeps 6 digits: 10 KB above 1,000 MB
        for row in errors.itertuples():
            predicted, measured = row.peak_mem_mb_predicted * 2**20, row.peak_mem_mb * 2**20
            assert within_the_bound(predicted, measured, rounding), row


def test_the_attention_and_tile_sections_hold_what_their_runs_give() -> None:
    assert benchmarks_doc.ATTENTION_SECTION.written() == benchmarks_doc.attention_generated()
    assert benchmarks_doc.TILES_SECTION.written() == benchmarks_doc.tiles_generated()


def test_the_attention_run_compares_naive_and_chunked_quietly_and_exactly() -> None:
    """Both of DiSAN's and Bi-BloSAN's attentions at every measured point, none contended, every
    prediction exact; the default (a plain label) is the chunked attention (its tiles ran)."""
    from reports.profile.data import load_run
    from reports.profile.tables import prediction_errors

    for folder in (benchmarks_doc.ATTENTION_RUN, benchmarks_doc.TILES_RUN):
        rows = load_run(folder).rows
        timed = rows[rows["status"] == "ok"]
        assert not timed["contended"].any(), folder
        assert prediction_errors(rows)["error_pct"].abs().max() <= 0.5, folder
    rows = load_run(benchmarks_doc.ATTENTION_RUN).rows
    timed = rows[rows["status"] == "ok"]
    assert set(timed["label"]) == {
        "disan",
        "disan:attention_impl=naive",
        "bi_blosan",
        "bi_blosan:attention_impl=naive",
    }
    assert len(timed) == 4 * 2 * 3
    default = timed[~timed["label"].str.contains(":")]
    assert default["attention_tiles"].str.startswith("compiled tiles").all()
    assert timed[timed["label"].str.contains("naive")]["attention_tiles"].eq("").all()
