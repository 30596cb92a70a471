"""A trained model (a ``fit`` checkpoint) applied to a file of new sentences: ``sanbench
predict``'s labels or ``encode``'s vectors, through ``Trainer.predict`` at the precision the model
was trained with (``16-mixed`` without CUDA: in float32, see :func:`inference_precision`)."""

from __future__ import annotations

import warnings
from pathlib import Path

import lightning.pytorch as pl
import torch
from lightning.pytorch.callbacks import BasePredictionWriter
from torch.utils.data import DataLoader

from datamodules.vocab import Vocab
from harness.errors import RunInterruptedError
from harness.inference.sentences import Sentence, collate_sentences, read_sentences
from harness.training.callbacks.prediction_writers import LabelWriter, VectorWriter
from harness.training.checkpoint_file import check_readable
from harness.training.checkpoints import WEIGHTS_ONLY, refused_if_unsafe
from harness.training.module import TaskModule


class PrecisionWarning(UserWarning):
    """The model runs at another precision than it was trained at (this machine lacks its)."""


def inference_precision(trained: str | None) -> str:
    """The precision to run a model trained at ``trained`` with here: the same, except fp16
    autocast (``16-mixed``) without CUDA, which runs in float32 with a
    :class:`PrecisionWarning`. The CPU has no fp16 autocast, and Lightning would swap in
    ``bf16-mixed``, whose 8-bit significand is coarser than fp16's 11 bits: float32 computes
    every value fp16 can hold, and more exactly."""
    precision = trained or "32-true"
    if precision in ("16-mixed", "16") and not torch.cuda.is_available():
        warnings.warn(
            f"the model was trained at {precision} (fp16 autocast, which needs CUDA); this "
            "machine has no CUDA, so it runs it in float32 (32-true)",
            PrecisionWarning,
            stacklevel=2,
        )
        return "32-true"
    return precision


class SentenceVectors(pl.LightningModule):
    """The pooled sentence vector of a trained model's encoder (SentEval-style use)."""

    def __init__(self, task: TaskModule):
        super().__init__()
        self.task = task

    def predict_step(self, batch: dict[str, torch.Tensor], batch_idx: int) -> torch.Tensor:
        return self.task.encode(batch["tokens"], batch["mask"])


def load_model(checkpoint: Path) -> TaskModule:
    """The checkpoint's model on CPU in eval mode; a clear error when it is truncated, holds
    more than tensors and built-in values, or has no vocabulary."""
    check_readable(checkpoint, "give a checkpoint of a finished `sanbench fit` (--ckpt)")
    with refused_if_unsafe(checkpoint):
        module = TaskModule.load_from_checkpoint(
            checkpoint, map_location="cpu", weights_only=WEIGHTS_ONLY
        )
    if module.vocabulary is None:
        raise ValueError(
            f"{checkpoint} stores no vocabulary (it was not written by `sanbench fit`): "
            "new sentences cannot be mapped to its embedding rows"
        )
    return module.eval()


def _predict(
    model: pl.LightningModule,
    loader: DataLoader,
    writer: BasePredictionWriter,
    precision: str | None,
    progress: bool,
) -> None:
    trainer = pl.Trainer(
        accelerator="auto",
        devices=1,
        precision=inference_precision(precision),
        logger=False,
        callbacks=[writer],
        enable_progress_bar=progress,
        enable_model_summary=False,
    )
    try:
        trainer.predict(model, dataloaders=loader, return_predictions=False)
    except SystemExit:  # Lightning ends a Ctrl-C with exit status 1, after its on_exception hooks
        if trainer.interrupted:
            raise RunInterruptedError("interrupted; nothing was written") from None
        raise


def _sentences(
    module: TaskModule, sentences: Path, pair: bool, encoding: str | None
) -> list[Sentence]:
    vocabulary = module.vocabulary
    assert vocabulary is not None  # load_model checked it
    itos, lowercase = Vocab(vocabulary["itos"]), vocabulary["lowercase"]
    return read_sentences(sentences, itos, lowercase, pair, encoding)


def _loader(items: list[Sentence], batch_size: int) -> DataLoader:
    return DataLoader(items, batch_size=batch_size, collate_fn=collate_sentences)


def predict_file(
    checkpoint: Path,
    sentences: Path,
    out: Path,
    batch_size: int,
    progress: bool,
    encoding: str | None = None,
) -> Path:
    """Label and class probabilities (score for relatedness) of every line of ``sentences``
    (decoded with ``encoding``, None: UTF-8) -> ``out`` CSV."""
    module = load_model(checkpoint)
    items = _sentences(module, sentences, module.kind != "single", encoding)
    writer = LabelWriter(out, [item.text for item in items])
    _predict(module, _loader(items, batch_size), writer, module.trained_precision, progress)
    return out


def encode_file(
    checkpoint: Path,
    sentences: Path,
    out: Path,
    batch_size: int,
    progress: bool,
    encoding: str | None = None,
) -> Path:
    """Pooled encoder vectors of every line -> ``out`` (.npy, float32 [lines, output_dim])."""
    module = load_model(checkpoint)
    loader = _loader(_sentences(module, sentences, False, encoding), batch_size)
    writer = VectorWriter(out, len(loader.dataset))
    _predict(SentenceVectors(module), loader, writer, module.trained_precision, progress)
    return out
