"""A run's training memory is the allocator's tensor peak of its own steps: the same alone in a
fresh process and after other runs in one (a suite), which the process-wide RSS high-water mark
it replaced was not (issue 35: 0.0 MB for every run after the first)."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from harness.training.fit import run_fit
from tests.harness.training.test_fit import tiny_run


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
    assert after["peak_train_mem_mb"] == alone  # to the byte, as docs/training.md says
    # more than its parameters and their Adam state: activations and gradients are in
    assert after["peak_train_mem_mb"] * 2**20 > 3 * 4 * after["params"]


def test_cpu_steps_are_measured_once_per_larger_batch_and_never_while_accumulating() -> None:
    import types

    import torch

    from harness.training.callbacks.efficiency_callback import StepMemory

    model = torch.nn.Linear(4, 4)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    trainer = types.SimpleNamespace(optimizers=[optimizer], accumulate_grad_batches=1)
    memory = StepMemory(torch.device("cpu"))

    def step(batch_size: int, length: int) -> bool:
        batch = {"tokens": torch.zeros(batch_size, length, dtype=torch.long)}
        if not memory.begin(trainer, model, batch):
            return False
        model(torch.randn(batch_size * length, 4)).sum().backward()
        memory.end()
        return True

    assert [step(8, 10), step(8, 5), step(4, 12), step(8, 12)] == [True, False, True, True]
    assert memory.steps == 3 and memory.peak_bytes > 8 * 12 * 4 * 4  # activations counted
    trainer.accumulate_grad_batches = 2  # gradients in the making: nothing may clear them
    model.weight.grad = torch.ones(4, 4)
    assert not step(16, 16) and model.weight.grad is not None


def test_a_step_that_starts_with_more_state_is_measured_again() -> None:
    """At one batch shape, the second step starts with Adam's moments, which the first made:
    it is measured, and its peak (the moments held through its forward and backward) is the
    run's. A third step starting with no more state than the second is left out."""
    import types

    import torch

    from harness.training.callbacks.efficiency_callback import StepMemory

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Embedding(500, 64), torch.nn.Linear(64, 64))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
    trainer = types.SimpleNamespace(optimizers=[optimizer], accumulate_grad_batches=1)
    memory = StepMemory(torch.device("cpu"))
    moments = 2 * sum(p.numel() * p.element_size() for p in model.parameters())

    def step() -> tuple[bool, int]:
        batch = {"tokens": torch.randint(0, 500, (16, 40))}
        measured = memory.begin(trainer, model, batch)
        model(batch["tokens"]).pow(2).sum().backward()
        optimizer.step()
        if measured:
            memory.end()
        return measured, memory.peak_bytes

    (first, peak_1), (second, peak_2), (third, peak_3) = step(), step(), step()
    assert (first, second, third) == (True, True, False)
    assert peak_2 >= peak_1 + moments // 2 and peak_3 == peak_2


@pytest.mark.slow  # two short fits through the command line
def test_a_fit_of_equal_batches_reports_the_peak_with_adams_state(tmp_path: Path) -> None:
    """Every batch [32, 30] and a fine-tuned embedding: a 3-step `sanbench fit` reports more
    than a 1-step one, by at least Adam's two moments of the embedding (on e81e6e0 both
    reported the first step's peak, taken before the moments exist)."""
    import json
    import random

    from harness.cli import main

    rng = random.Random(0)
    words = [f"w{i}" for i in range(400)]
    for split, count in (("train", 256), ("test", 16)):
        lines = [f"{i % 6} " + " ".join(rng.choices(words, k=30)) for i in range(count)]
        (tmp_path / f"TREC.{split}.all").write_text("\n".join(lines) + "\n")
    vectors = "".join(
        f"{w} " + " ".join(f"{rng.uniform(-1, 1):.3f}" for _ in range(50)) + "\n" for w in words
    )
    (tmp_path / "vectors.txt").write_text(vectors)
    peaks = {}
    for steps in (1, 3):
        out = tmp_path / f"fit-{steps}"
        argv = ["fit", "--task", "trec", "--encoder", "multi_head", "--data-dir", str(tmp_path)]
        argv += ["--embeddings", str(tmp_path / "vectors.txt"), "--out", str(out)]
        argv += ["--data.batch_size", "32", "--model.hidden_dim", "32", "--model.optimizer", "adam"]
        argv += ["--trainer.max_steps", str(steps)]
        assert main(argv) == 0
        metrics = json.loads((out / "metrics.json").read_text())
        peaks[steps] = metrics["peak_train_mem_mb"] * 2**20
    # Adam's two fp32 moments of the embedding: its 400 words all occur in 7,680 tokens drawn
    # from them (50 features each)
    moments = 2 * 4 * 400 * 50
    assert peaks[3] >= peaks[1] + moments
