"""A run's training memory is the allocator's tensor peak of its own steps: the same alone in a
fresh process and after other runs in one (a suite), which the process-wide RSS high-water mark
it replaced was not (issue 35: 0.0 MB for every run after the first)."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from harness.training.run import run_fit
from tests.harness.training.test_run import tiny_run


def _peak_alone(trec_dir: Path, out: Path, encoder: str, queue) -> None:
    queue.put(run_fit(tiny_run(trec_dir, out, encoder, model__dropout=0.2))["peak_train_mem_mb"])


@pytest.mark.slow  # three short fits, one in a fresh process
def test_a_run_after_another_reads_what_it_reads_alone(trec_dir: Path, tmp_path: Path) -> None:
    first = run_fit(tiny_run(trec_dir, tmp_path / "first", "bi_blosan", model__dropout=0.2))
    after = run_fit(tiny_run(trec_dir, tmp_path / "after", "mtsa", model__dropout=0.2))
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(target=_peak_alone, args=(trec_dir, tmp_path / "alone", "mtsa", queue))
    child.start()
    alone = queue.get(timeout=300)
    child.join()
    assert first["peak_train_mem_kind"] == after["peak_train_mem_kind"] == "cpu_tensor_peak"
    assert after["peak_train_mem_mb"] == pytest.approx(alone, rel=0.005)
    # more than its parameters and their Adam state: activations and gradients are in
    assert after["peak_train_mem_mb"] * 2**20 > 3 * 4 * after["params"]
