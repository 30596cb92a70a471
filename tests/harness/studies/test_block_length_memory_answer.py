"""The block-length study's answer: run small (n = 32, every r of its grid) with today's
defaults, it gives what the committed study in docs/studies/ gives, and that is Bi-BloSAN
Appendix A's answer for the naive attention (a U in r with its minimum next to cbrt(2n)). A
change of default that moves the study's answer (as the chunked attention did, unnoticed, on
e81e6e0) fails here."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from harness.cli import main
from harness.measurement.tensor_memory import MB
from harness.studies.options import ATTENTION_IMPLS, StudyOptions
from reports.contracts.study import StudyFolder

DOCS = Path(__file__).resolve().parents[3] / "docs" / "studies"
COMMITTED = {
    "naive": StudyFolder(DOCS / "block-length-memory"),
    "chunked": StudyFolder(DOCS / "block-length-memory-chunked"),
}
N = 32


def run_small(tmp_path: Path, *words: str) -> tuple[dict[int, float], dict]:
    """``sanbench tune --study block-length-memory`` at n = 32 over its whole r grid, as a user
    types it (plus ``words``): peak MB per r, and the summary's row for n = 32."""
    out = tmp_path / "study"
    argv = ["tune", "--study", "block-length-memory", "--lengths", str(N), *words]
    argv += ["--storage", f"sqlite:///{tmp_path / 'study.db'}", "--out", str(out)]
    assert main(argv) == 0
    trials = StudyFolder(out).read_trials()
    peaks = dict(zip(trials["params_block_len"], trials["value_peak_mem_mb"], strict=True))
    (row,) = StudyFolder(out).read_summary()["results"]["per_length"]
    return peaks, row


def in_bytes(peaks: dict[int, float]) -> dict[int, int]:
    """Peak MB per r as the bytes they are: memory is tensor bytes, the same on any CPU that
    runs the same kernels, so the check is exact (MB = bytes / 2**20 is exact in a float, and
    the CSV keeps every digit); a value that is not whole bytes fails here."""
    found = {r: mb * MB for r, mb in peaks.items()}
    assert all(value.is_integer() for value in found.values()), found
    return {r: int(value) for r, value in found.items()}


def committed(impl: str) -> tuple[dict[int, float], dict]:
    trials = COMMITTED[impl].read_trials()
    trials = trials[trials["params_seq_len"] == N]
    peaks = dict(zip(trials["params_block_len"], trials["value_peak_mem_mb"], strict=True))
    summary = COMMITTED[impl].read_summary()["results"]
    (row,) = [row for row in summary["per_length"] if row["seq_len"] == N]
    assert summary["attention_impl"] == impl
    return peaks, row


def test_the_study_offers_the_encoders_attentions() -> None:
    from encoders.layers.tanh_attention import IMPLS

    assert ATTENTION_IMPLS == IMPLS
    assert StudyOptions(study="block-length-memory").attention_impl == "naive"


@pytest.mark.slow  # 31 measured forwards
def test_by_default_the_study_gives_appendix_a_answer_and_the_committed_doc(
    tmp_path: Path,
) -> None:
    peaks, row = run_small(tmp_path)
    doc_peaks, doc_row = committed("naive")
    assert in_bytes(peaks) == in_bytes(doc_peaks)
    assert {k: row[k] for k in ("r_measured", "r_encoder")} == {
        k: doc_row[k] for k in ("r_measured", "r_encoder")
    }
    # Appendix A: a U in r, its bottom next to r = cbrt(2n) = 4, the ends far above it
    best = min(peaks, key=peaks.__getitem__)
    assert abs(best - math.cbrt(2 * N)) <= 1
    assert peaks[2] > 1.2 * peaks[best] and peaks[32] > 2.5 * peaks[best]


@pytest.mark.slow  # 31 measured forwards
def test_the_chunked_attention_gives_its_committed_flat_curve(tmp_path: Path) -> None:
    peaks, _ = run_small(tmp_path, "--attention-impl", "chunked")
    doc_peaks, _ = committed("chunked")
    naive, _ = committed("naive")
    assert in_bytes(peaks) == in_bytes(doc_peaks)

    # what the docs state: over r the memory varies less than half as much as the naive
    # attention's, and at long blocks it is a fraction of the naive attention's
    def spread(curve: dict[int, float]) -> float:
        return max(curve.values()) / min(curve.values())

    assert spread(peaks) < 0.5 * spread(naive)
    assert peaks[32] < 0.5 * naive[32]
