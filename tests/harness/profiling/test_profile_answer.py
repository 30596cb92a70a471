"""The profile's answer: the quick preset, predicted with today's defaults (no timing: memory
is tensor bytes, the same on a busy machine), covers the committed quick run's points and
answers the papers' claims of its report as the committed run does, claim for claim. A change
of default (an attention kernel, a preset's encoders or lengths, what is measured) that moves
the report's answer fails here.

The megabytes themselves are not compared across machines: oneDNN's kernels hold other
buffers on other instruction sets (the committed run is the AVX-512 VM's; on the AVX2 one the
CNNs' inference peaks were up to 0.76% lower, measured and predicted alike). The prediction's
own 0.5% is held on whatever CPU runs the tests by tests/harness/memory_prediction/test_step.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.profiling.options import ProfileOptions
from harness.profiling.profile import run_profile
from reports.profile.claims import papers_claims
from reports.profile.data import load_run

COMMITTED = Path(__file__).resolve().parents[3] / "docs" / "benchmarks" / "cpu-quick"


def points(rows) -> set[tuple[str, str, int]]:
    return set(zip(rows["label"], rows["mode"], rows["seq_len"], strict=True))


@pytest.mark.slow  # about 25 s of predictions on meta tensors
def test_the_quick_preset_answers_the_papers_claims_as_the_committed_run(tmp_path: Path) -> None:
    options = ProfileOptions(
        preset="quick", predict_only=True, out=tmp_path, progress=False, report=False
    )
    ours = load_run(run_profile(options)).rows
    committed = load_run(COMMITTED).rows
    assert points(ours) == points(committed)  # the same encoders, labels, modes and lengths
    memory_claims = [claim for claim in papers_claims(committed) if "MB" in claim.basis]
    memory_claims += [
        c for c in papers_claims(committed) if c.claim.endswith("grows nearly linearly")
    ]
    expected = {(claim.claim, claim.verdict) for claim in papers_claims(committed)}
    answered = {(claim.claim, claim.verdict) for claim in papers_claims(ours)}
    assert answered and answered <= expected  # every memory claim, with the committed verdict
    assert {claim for claim, _ in answered} >= {claim.claim for claim in memory_claims}
