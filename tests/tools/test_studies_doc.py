"""docs/studies.md's block-length-memory tables are generated from the committed study folders."""

from __future__ import annotations

import pytest

from tools import studies_doc


@pytest.mark.parametrize("impl", list(studies_doc.RUNS))
def test_studies_doc_holds_the_tables_the_committed_study_gives(impl: str) -> None:
    """Fails when a study folder or the doc's section changes without the other (regenerate
    with ``python -m tools.studies_doc``)."""
    assert studies_doc.SECTIONS[impl].written() == studies_doc.generated(impl)


@pytest.mark.parametrize("impl", list(studies_doc.RUNS))
def test_the_study_ran_the_whole_grid_with_its_attention(impl: str) -> None:
    run = studies_doc.RUNS[impl]
    trials = run.read_trials()
    assert len(trials) == 93 and set(trials["state"]) == {"COMPLETE"}
    assert sorted(set(trials["params_seq_len"])) == [32, 64, 128]
    assert run.read_summary()["results"]["attention_impl"] == impl
