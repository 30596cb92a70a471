"""A run's training memory is the allocator's tensor peak of its own steps: the same alone in a
fresh process and after other runs in one (a suite), which the process-wide RSS high-water mark
it replaced was not (issue 35: 0.0 MB for every run after the first)."""

from __future__ import annotations

import multiprocessing
import types
from pathlib import Path

import pytest
import torch

from harness.measurement.training_memory import StepMemory
from harness.training.callbacks.efficiency_callback import EfficiencyCallback
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


def _measured_steps(device: torch.device, sizes: list[tuple[int, int]]) -> list[bool]:
    """Which of steps of these batch sizes ``StepMemory`` measures (SGD, no optimizer state) for
    a model whose memory follows from shapes."""
    model = torch.nn.Linear(4, 4)
    trainer = types.SimpleNamespace(optimizers=[torch.optim.SGD(model.parameters(), lr=0.1)])
    memory = StepMemory(device, every_step=False)
    chosen = []
    for batch_size, length in sizes:
        batch = {"tokens": torch.zeros(batch_size, length, dtype=torch.long)}
        chosen.append(memory.wanted(trainer, model, batch))
        model(torch.randn(batch_size * length, 4)).sum().backward()  # gradients held from now
    return chosen


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_steps_are_measured_once_per_larger_batch_or_more_gradients_on_every_device(
    device: str,
) -> None:
    """The first step holds no gradients, the second holds the first's: both are measured,
    then only a batch larger in some dimension (issue 57.6: CUDA measured every step)."""
    sizes = [(8, 10), (8, 10), (8, 5), (4, 12), (8, 10), (8, 12)]
    assert _measured_steps(torch.device(device), sizes) == [True, True, False, True, False, True]


@pytest.mark.parametrize("later_kib", [128, 512])
def test_a_measured_step_counts_the_gradients_it_holds_until_they_are_freed(
    later_kib: int,
) -> None:
    """A CPU step starts holding gradients, allocates a forward's activation, frees the
    gradients (Lightning's zero_grad after the forward) and then allocates ``later_kib``: its
    peak is the larger of the two moments, to the byte (the profiler does not see the free of
    a block allocated before it started; the step is told)."""
    model = torch.nn.Linear(256, 256, bias=False)  # 256 KiB of weight, as much of gradient
    trainer = types.SimpleNamespace(optimizers=[torch.optim.SGD(model.parameters(), lr=0.1)])
    model.weight.grad = torch.ones_like(model.weight)
    memory = StepMemory(torch.device("cpu"))
    batch = {"tokens": torch.zeros(512, 1, dtype=torch.long)}
    assert memory.wanted(trainer, model, batch)
    memory.begin(trainer, model, batch)
    activation = torch.ones(512, 256)
    model.weight.grad = None
    memory.gradients_freed(trainer, model)
    later = torch.ones(later_kib * 256)
    del activation, later
    memory.end(model)
    weight = gradient = 256 * 256 * 4
    own = weight + 512 * 8  # the batch: 512 int64 tokens
    assert memory.peak_bytes == own + 512 * 1024 + max(gradient, later_kib * 1024)


def test_a_step_that_starts_with_more_state_is_measured_again() -> None:
    """At one batch shape, the second step starts with Adam's moments, which the first made:
    it is measured, and its peak (the moments held through its forward and backward) is the
    run's. A third step starting with no more state than the second is left out."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Embedding(500, 64), torch.nn.Linear(64, 64))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
    trainer = types.SimpleNamespace(optimizers=[optimizer])
    memory = StepMemory(torch.device("cpu"), every_step=False)
    moments = 2 * sum(p.numel() * p.element_size() for p in model.parameters())

    def step() -> tuple[bool, int]:
        batch = {"tokens": torch.randint(0, 500, (16, 40))}
        measured = memory.wanted(trainer, model, batch)
        if measured:
            memory.begin(trainer, model, batch)
        output = model(batch["tokens"]).pow(2).sum()
        optimizer.zero_grad()
        if measured:
            memory.gradients_freed(trainer, model)
        output.backward()
        optimizer.step()
        if measured:
            memory.end(model)
        return measured, memory.peak_bytes

    (first, peak_1), (second, peak_2), (third, peak_3) = step(), step(), step()
    assert (first, second, third) == (True, True, False)
    assert peak_2 >= peak_1 + moments // 2 and peak_3 == peak_2


class _CudaModel(torch.nn.Linear):
    """A CPU model that says it is on CUDA (the callback reads ``pl_module.device``) and that
    its memory follows from shapes."""

    device = torch.device("cuda")

    def memory_by_shape(self) -> bool:
        return True


def test_cuda_synchronises_only_around_measured_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 57.6: every CUDA step was measured, with six ``synchronize`` calls, so the epoch
    time was not a normal run's. Now ten equal steps synchronise around the two measured ones
    only (the first, and the second holding the first's gradients), and at the epoch's ends.
    What only a GPU shows (the time saved) is in docs/training.md."""
    synchronised: list[int] = []
    monkeypatch.setattr(torch.cuda, "synchronize", lambda *a: synchronised.append(1))
    monkeypatch.setattr(torch.cuda, "memory_allocated", lambda *a: 0)
    monkeypatch.setattr(torch.cuda, "max_memory_allocated", lambda *a: 0)
    monkeypatch.setattr(torch.cuda, "reset_peak_memory_stats", lambda *a: None)
    model = _CudaModel(4, 4)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    progress = types.SimpleNamespace(is_last_batch=True)
    loop = types.SimpleNamespace(
        restarted_on_epoch_end=False, epoch_loop=types.SimpleNamespace(batch_progress=progress)
    )
    trainer = types.SimpleNamespace(optimizers=[optimizer], fit_loop=loop)
    callback = EfficiencyCallback()
    callback.on_train_start(trainer, model)
    callback.on_train_epoch_start(trainer, model)
    per_step = []
    for index in range(10):
        before = len(synchronised)
        batch = {"tokens": torch.zeros(8, 10, dtype=torch.long)}
        callback.on_train_batch_start(trainer, model, batch, index)
        loss = model(torch.randn(80, 4)).sum()
        optimizer.zero_grad()
        callback.on_before_backward(trainer, model, loss)
        loss.backward()
        optimizer.step()
        callback.on_train_batch_end(trainer, model, None, batch, index)
        per_step.append(len(synchronised) - before)
    callback.on_train_epoch_end(trainer, model)
    assert per_step == [4, 4] + [0] * 8
    assert callback.memory is not None and callback.memory.steps == 2


class _Undeclared(torch.nn.Linear):
    """A CPU model that declares nothing of its memory."""

    device = torch.device("cpu")


def test_a_model_that_does_not_declare_its_memory_by_shape_is_measured_on_every_step() -> None:
    """A model without ``memory_by_shape`` (or whose encoder does not declare it: a plugin's
    ``x[mask]``, MTSA's split by spread) may take more memory on a step of a shape measured
    before (issue 54, outside check B, item 2): every step is measured."""
    model = _Undeclared(4, 4)
    trainer = types.SimpleNamespace(optimizers=[torch.optim.SGD(model.parameters(), lr=0.1)])
    callback = EfficiencyCallback()
    callback.on_train_start(trainer, model)
    batch = {"tokens": torch.zeros(8, 10, dtype=torch.long)}
    assert callback.memory is not None
    assert [callback.memory.wanted(trainer, model, batch) for _ in range(4)] == [True] * 4


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


def test_the_summary_says_over_how_many_steps_the_memory_peak_was_taken() -> None:
    """Outside tester (issue 57): metrics.json gave the peak without the number of steps
    measured for it (on CUDA each measured step is synchronised)."""
    callback = EfficiencyCallback()
    assert callback.summary()["peak_train_mem_steps"] == 0
    callback.memory = StepMemory(torch.device("cpu"))
    callback.memory.steps = 3
    assert callback.summary()["peak_train_mem_steps"] == 3
