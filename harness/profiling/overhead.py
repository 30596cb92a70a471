"""Training throughput through the harness vs a minimal hand-written PyTorch loop.

Both paths train the same ``TaskModule`` (same encoder, head, optimizer and L2 groups) on the
same in-memory batches, in one process. The Lightning path runs as ``run_fit`` configures it
(progress bar off, CSV logging every 50 steps, torchmetrics accuracy and loss logged every
step); checkpointing and validation are off because a timed loop of training steps has none.
The bare loop does forward, cross-entropy, backward and step only, the least a user writes.
"""

from __future__ import annotations

import statistics
import tempfile
from pathlib import Path
from typing import Any

import lightning.pytorch as pl
import torch
from lightning.pytorch.loggers import CSVLogger
from torch.nn import functional as F
from torch.utils.data import DataLoader

from harness.measurement.elapsed import Elapsed
from harness.training.module import TaskModule


def synthetic_batches(
    count: int, batch_size: int, seq_len: int, vocab: int, classes: int, seed: int
) -> list[dict[str, torch.Tensor]]:
    """``count`` single-sentence batches with random lengths in [seq_len // 2, seq_len]."""
    generator = torch.Generator().manual_seed(seed)
    batches = []
    for _ in range(count):
        lengths = torch.randint(seq_len // 2, seq_len + 1, (batch_size,), generator=generator)
        mask = torch.arange(seq_len).unsqueeze(0) < lengths.unsqueeze(1)
        tokens = torch.randint(2, vocab, (batch_size, seq_len), generator=generator) * mask
        label = torch.randint(0, classes, (batch_size,), generator=generator)
        batches.append({"tokens": tokens, "mask": mask, "label": label})
    return batches


class _StepTimer(pl.Callback):
    """Seconds from the start of step ``warmup`` to the end of the last step."""

    def __init__(self, warmup: int):
        self.warmup = warmup
        self.elapsed: Elapsed | None = None
        self.seconds = 0.0

    def on_train_batch_start(self, trainer: pl.Trainer, *args: Any) -> None:
        if trainer.global_step == self.warmup:
            self.elapsed = Elapsed()

    def on_train_batch_end(self, trainer: pl.Trainer, *args: Any) -> None:
        if self.elapsed is not None:
            self.seconds = self.elapsed.seconds


def _lightning_rate(module: TaskModule, loader: DataLoader, warmup: int, log_dir: Path) -> float:
    timer = _StepTimer(warmup)
    trainer = pl.Trainer(
        accelerator="cpu",
        devices=1,
        max_epochs=1,
        logger=CSVLogger(log_dir, name="overhead"),
        log_every_n_steps=50,
        callbacks=[timer],
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        limit_val_batches=0,
    )
    trainer.fit(module, train_dataloaders=loader)
    return (len(loader) - warmup) / timer.seconds


def _bare_rate(module: TaskModule, loader: DataLoader, warmup: int) -> float:
    optimizer = module.configure_optimizers()
    module.train()
    elapsed = Elapsed()
    for step, batch in enumerate(loader):
        if step == warmup:
            elapsed.restart()
        optimizer.zero_grad()
        loss = F.cross_entropy(module(batch), batch["label"])
        loss.backward()
        optimizer.step()
    return (len(loader) - warmup) / elapsed.seconds


def measure_overhead(
    encoder: str = "bi_blosan",
    steps: int = 60,
    warmup: int = 10,
    batch_size: int = 32,
    seq_len: int = 24,
    input_dim: int = 50,
    hidden_dim: int = 100,
    vocab: int = 2000,
    classes: int = 6,
    repeats: int = 5,
    seed: int = 0,
) -> dict[str, float | str | int]:
    """Steps/s of both paths (median of ``repeats``, alternating; min and max beside it) and
    ``overhead = 1 - L / bare`` of the medians."""
    batches = synthetic_batches(warmup + steps, batch_size, seq_len, vocab, classes, seed)
    loader = DataLoader(batches, batch_size=None, shuffle=False)
    embedding = torch.randn(vocab, input_dim, generator=torch.Generator().manual_seed(seed))

    def fresh() -> TaskModule:
        torch.manual_seed(seed)
        module = TaskModule(
            encoder,
            "single",
            classes,
            vocab,
            input_dim,
            lr=1e-3,
            encoder_options={"hidden_dim": hidden_dim},
            optimizer="adam",
        )
        module.set_embeddings(embedding)
        return module

    bare, lightning = [], []
    with tempfile.TemporaryDirectory() as log_dir:
        for _ in range(repeats):
            bare.append(_bare_rate(fresh(), loader, warmup))
            lightning.append(_lightning_rate(fresh(), loader, warmup, Path(log_dir)))
    mid_bare, mid_lightning = statistics.median(bare), statistics.median(lightning)
    return {
        "encoder": encoder,
        "batch_size": batch_size,
        "seq_len": seq_len,
        "hidden_dim": hidden_dim,
        "threads": torch.get_num_threads(),
        "bare_steps_per_s": mid_bare,
        "bare_steps_per_s_range": f"{min(bare):.1f}-{max(bare):.1f}",
        "lightning_steps_per_s": mid_lightning,
        "lightning_steps_per_s_range": f"{min(lightning):.1f}-{max(lightning):.1f}",
        "ratio": mid_lightning / mid_bare,
        "overhead": 1.0 - mid_lightning / mid_bare,
    }


if __name__ == "__main__":
    print(measure_overhead())
