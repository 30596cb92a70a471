"""Prediction files written by ``Trainer.predict`` (``TaskModule.predict_step``), batch by batch.

``test_predictions.csv`` of a fit (:class:`TestPredictionWriter`): ``index`` (row in the test
split), ``length`` (real tokens of the sentence, the first one of a pair), ``length_b`` (pairs
only), ``label``, ``prediction`` (the argmax class, or the Bi-BloSAN App. C eq. (25) score for
relatedness); DiSAN's accuracy-vs-length figure reads it.

``sanbench predict`` (:class:`LabelWriter`): ``line`` (1-based line of the input file),
``sentence`` (the line as given; a pair's two sentences keep their tab), then ``label`` and one
``p_<class>`` column per class, or ``score`` for relatedness.
``sanbench encode`` (:class:`VectorWriter`): the pooled sentence vectors as one ``.npy`` array.
"""

from __future__ import annotations

import csv
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any

import lightning.pytorch as pl
import numpy as np
import torch
from lightning.pytorch.callbacks import BasePredictionWriter

from reports.contracts.atomic import open_new_beside, write_atomic


class _CsvWriter(BasePredictionWriter, ABC):
    """Rows appended per batch to a hidden file of the writer's own (a new random name: a
    user's file beside ``path`` is never opened), renamed into place when the loop ends.

    Only global rank 0 writes (in a distributed fit every rank predicts the unsharded loader).
    """

    def __init__(self, path: Path):
        super().__init__(write_interval="batch")
        self.path = Path(path)
        self._tmp: Path | None = None
        self._handle: Any = None

    @abstractmethod
    def columns(self, module: pl.LightningModule) -> list[str]:
        """The header row."""

    @abstractmethod
    def rows(self, prediction: torch.Tensor, batch: dict[str, torch.Tensor]) -> list[list]:
        """One row per example of ``batch``."""

    def on_predict_epoch_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if not trainer.is_global_zero:
            return
        self._handle, self._tmp = open_new_beside(self.path, "w", newline="")
        self._writer = csv.writer(self._handle)
        self._writer.writerow(self.columns(pl_module))

    def write_on_batch_end(
        self,
        trainer: pl.Trainer,
        pl_module: pl.LightningModule,
        prediction: Any,
        batch_indices: Any,
        batch: Any,
        batch_idx: int,
        dataloader_idx: int,
    ) -> None:
        if trainer.is_global_zero:
            self._writer.writerows(self.rows(prediction.cpu(), batch))

    def on_predict_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if not trainer.is_global_zero:
            return
        self._handle.close()
        self._tmp.replace(self.path)

    def on_exception(
        self, trainer: pl.Trainer, pl_module: pl.LightningModule, exception: BaseException
    ) -> None:
        """A failed or interrupted loop leaves no hidden half-written file behind."""
        if self._handle is not None:
            self._handle.close()
        if self._tmp is not None:
            self._tmp.unlink(missing_ok=True)


def _predicted(prediction: torch.Tensor) -> list:
    """The argmax class of probabilities [B, C], or the scores [B] as they are."""
    return prediction.argmax(dim=-1).tolist() if prediction.ndim == 2 else prediction.tolist()


class TestPredictionWriter(_CsvWriter):
    """``test_predictions.csv`` of a fit (see the module docstring)."""

    def columns(self, module: pl.LightningModule) -> list[str]:
        pair = module.kind != "single"
        return ["index", "length", *(["length_b"] if pair else []), "label", "prediction"]

    def rows(self, prediction: torch.Tensor, batch: dict[str, torch.Tensor]) -> list[list]:
        pair = "mask_a" in batch
        lengths = [batch["mask_a" if pair else "mask"].sum(dim=-1).tolist()]
        lengths += [batch["mask_b"].sum(dim=-1).tolist()] if pair else []
        columns = (
            batch["index"].tolist(),
            *lengths,
            batch["label"].tolist(),
            _predicted(prediction),
        )
        return [list(row) for row in zip(*columns, strict=True)]


class LabelWriter(_CsvWriter):
    """``sanbench predict`` output (see the module docstring); ``texts``: the input's lines."""

    def __init__(self, path: Path, texts: list[str]):
        super().__init__(path)
        self.texts = texts

    def columns(self, module: pl.LightningModule) -> list[str]:
        self.labels = module.labels or [str(k) for k in range(module.hparams.num_classes)]
        if module.kind == "relatedness":
            return ["line", "sentence", "score"]
        return ["line", "sentence", "label", *(f"p_{label}" for label in self.labels)]

    def rows(self, prediction: torch.Tensor, batch: dict[str, torch.Tensor]) -> list[list]:
        indices = batch["index"].tolist()
        heads = [[index + 1, self.texts[index]] for index in indices]
        if prediction.ndim == 1:
            return [
                [*head, round(score, 6)]
                for head, score in zip(heads, prediction.tolist(), strict=True)
            ]
        return [
            [*head, self.labels[int(p.argmax())], *(round(x, 6) for x in p.tolist())]
            for head, p in zip(heads, prediction, strict=True)
        ]


class VectorWriter(BasePredictionWriter):
    """``sanbench encode`` output: float32 [sentences, output_dim] in input order, one ``.npy``."""

    def __init__(self, path: Path, count: int):
        super().__init__(write_interval="batch")
        self.path = Path(path)
        self._vectors: np.ndarray | None = None
        self._count = count

    def write_on_batch_end(
        self,
        trainer: pl.Trainer,
        pl_module: pl.LightningModule,
        prediction: Any,
        batch_indices: Any,
        batch: Any,
        batch_idx: int,
        dataloader_idx: int,
    ) -> None:
        pooled = prediction.float().cpu().numpy()
        if self._vectors is None:
            self._vectors = np.zeros((self._count, pooled.shape[1]), dtype=np.float32)
        # the batch is on the model's device (a GPU's under accelerator="auto")
        self._vectors[batch["index"].cpu().numpy()] = pooled

    def on_predict_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        write_atomic(self.path, self._save)

    def _save(self, tmp: Path) -> None:
        with tmp.open("wb") as handle:  # a path would have np.save append ".npy" to its name
            np.save(handle, self._vectors)
