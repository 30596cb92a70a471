"""A tiny in-memory LightningDataModule that follows the batch contract of docs/architecture.md
(plus ``index``, the row in the split, as the real datamodules emit).

Labels are a function of the tokens, so a model that learns beats the majority class.
"""

from __future__ import annotations

import lightning.pytorch as pl
import torch
from torch.utils.data import DataLoader

from datamodules.tasks import TaskSpec

VOCAB = 14
DIM = 8
KEY = 2  # the token whose presence decides the label


def _sentence(generator: torch.Generator) -> list[int]:
    length = int(torch.randint(2, 7, (1,), generator=generator))
    return torch.randint(3, VOCAB, (length,), generator=generator).tolist()


def _with_key(tokens: list[int], generator: torch.Generator) -> list[int]:
    if torch.rand(1, generator=generator) < 0.5:
        tokens[int(torch.randint(0, len(tokens), (1,), generator=generator))] = KEY
    return tokens


def sparse_target(score: float, classes: int = 5) -> torch.Tensor:
    """Bi-BloSAN App. C eq. (26): mass split between floor(y) and floor(y) + 1."""
    target = torch.zeros(classes)
    low = int(score)
    if low >= classes:
        target[classes - 1] = 1.0
        return target
    target[low - 1] = low - score + 1
    target[low] = score - low
    return target


def _examples(kind: str, count: int, generator: torch.Generator) -> list[dict]:
    rows: list[dict] = []
    for index in range(count):
        a = _with_key(_sentence(generator), generator)
        if kind == "single":
            rows.append({"index": index, "tokens": a, "label": int(KEY in a)})
            continue
        b = _with_key(_sentence(generator), generator)
        hits = int(KEY in a) + int(KEY in b)
        if kind == "pair":
            rows.append({"index": index, "tokens_a": a, "tokens_b": b, "label": hits})
        else:
            score = 1.0 + 2.0 * hits
            target = sparse_target(score)
            rows.append(
                {"index": index, "tokens_a": a, "tokens_b": b, "label": score, "target": target}
            )
    return rows


def _pad(sentences: list[list[int]]) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(len(s) for s in sentences)
    tokens = torch.zeros(len(sentences), width, dtype=torch.long)
    for row, sentence in enumerate(sentences):
        tokens[row, : len(sentence)] = torch.tensor(sentence)
    return tokens, tokens != 0


def collate(rows: list[dict]) -> dict[str, torch.Tensor]:
    batch: dict[str, torch.Tensor] = {}
    for key in ("tokens", "tokens_a", "tokens_b"):
        if key in rows[0]:
            tokens, mask = _pad([r[key] for r in rows])
            batch[key] = tokens
            batch["mask" + key.removeprefix("tokens")] = mask
    labels = [r["label"] for r in rows]
    is_float = isinstance(labels[0], float)
    batch["label"] = torch.tensor(labels, dtype=torch.float if is_float else torch.long)
    if "target" in rows[0]:
        batch["target"] = torch.stack([r["target"] for r in rows])
    batch["index"] = torch.tensor([r["index"] for r in rows])
    return batch


class ToyDataModule(pl.LightningDataModule):
    """``kind`` in single | pair | relatedness; even split sizes (no DDP padding duplicates)."""

    def __init__(
        self, kind: str = "single", n_train: int = 96, n_eval: int = 32, batch_size: int = 16
    ):
        super().__init__()
        classes = {"single": 2, "pair": 3, "relatedness": 5}[kind]
        self.task = TaskSpec("toy", kind, classes)
        self.batch_size = batch_size
        generator = torch.Generator().manual_seed(1234)
        self.embedding_matrix = torch.randn(VOCAB, DIM, generator=generator)
        self.embedding_matrix[0] = 0.0
        self.splits = {
            "train": _examples(kind, n_train, generator),
            "val": _examples(kind, n_eval, generator),
            "test": _examples(kind, n_eval, generator),
        }

    def _loader(self, split: str, shuffle: bool) -> DataLoader:
        return DataLoader(
            self.splits[split], batch_size=self.batch_size, shuffle=shuffle, collate_fn=collate
        )

    def train_dataloader(self) -> DataLoader:
        return self._loader("train", shuffle=True)

    def val_dataloader(self) -> DataLoader:
        return self._loader("val", shuffle=False)

    def test_dataloader(self) -> DataLoader:
        return self._loader("test", shuffle=False)
