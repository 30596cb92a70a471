"""docs/studies.md's block-length-memory tables are generated from the committed study folder."""

from __future__ import annotations

from tools import studies_doc


def test_studies_doc_holds_the_tables_the_committed_study_gives() -> None:
    """Fails when the study folder or the doc's section changes without the other (regenerate
    with ``python -m tools.studies_doc``)."""
    assert studies_doc.SECTION.written() == studies_doc.generated()


def test_the_study_ran_the_whole_grid() -> None:
    trials = studies_doc.RUN.read_trials()
    assert len(trials) == 93 and set(trials["state"]) == {"COMPLETE"}
    assert sorted(set(trials["params_seq_len"])) == [32, 64, 128]
