"""A LightningDataModule of your own, for data no task file describes:

    sanbench fit --data questions_datamodule.QuestionsDataModule --encoder bi_blosan --out runs/q

After ``setup("fit")`` sanbench's model reads ``task`` (a ``datamodules.TaskSpec``: name, kind,
classes), ``vocab`` (a ``datamodules.vocab.Vocab``, saved in checkpoints for ``sanbench
predict``), ``embedding_matrix`` (float [V, D]; row 0 the padding), ``length_stats`` (mean and std
of training lengths, for Bi-BloSAN's block length) and ``batch_size``; batches are the dicts
``datamodules.batches.collate`` makes (docs/data.md, "Any LightningDataModule"). This one makes
up its sentences in memory: questions or statements, seeded.
"""

from __future__ import annotations

import functools
import random

import lightning as L
import numpy as np
import torch
from torch.utils.data import DataLoader

from datamodules.batches import EncodedSplit, collate
from datamodules.embeddings import embedding_matrix
from datamodules.readers.base import Example
from datamodules.tasks import TaskSpec
from datamodules.vocab import build_vocab

WORDS = [
    "the",
    "a",
    "film",
    "cast",
    "plot",
    "music",
    "story",
    "scene",
    "actor",
    "ending",
    "good",
    "long",
]


def made_up(count: int, seed: int) -> list[Example]:
    """``count`` sentences, half of them questions (label 1), the rest statements (0)."""
    rng = random.Random(seed)
    examples = []
    for _ in range(count):
        words = rng.choices(WORDS, k=rng.randint(3, 9))
        question = rng.random() < 0.5
        sentence = ["why", "is", *words, "?"] if question else [*words, "."]
        examples.append(Example(tuple(sentence), int(question)))
    return examples


class QuestionsDataModule(L.LightningDataModule):
    """Questions or statements (two classes), made up in memory.

    Args:
        batch_size: training and evaluation batch size.
        seed: the seed of the sentences, the random word vectors and the batch order.
        size: training examples (dev and test get a quarter each).
        embedding_dim: the width of the (random, learned) word vectors.
    """

    def __init__(
        self, batch_size: int = 32, seed: int = 0, size: int = 400, embedding_dim: int = 50
    ) -> None:
        super().__init__()
        self.batch_size, self.seed, self.size, self.embedding_dim = (
            batch_size,
            seed,
            size,
            embedding_dim,
        )
        self.task = TaskSpec("questions", "single", 2, ("statement", "question"))
        self.splits: dict[str, EncodedSplit] = {}

    def setup(self, stage: str | None = None) -> None:
        if self.splits:
            return
        sizes = {"train": self.size, "val": self.size // 4, "test": self.size // 4}
        data = {name: made_up(n, self.seed + i) for i, (name, n) in enumerate(sizes.items())}
        self.vocab = vocab = build_vocab(example.a for example in data["train"])
        self.embedding_matrix, _ = embedding_matrix(vocab, None, self.embedding_dim, self.seed)
        lengths = np.array([len(example.a) for example in data["train"]], dtype=np.float64)
        self.length_stats = {"mean": float(lengths.mean()), "std": float(lengths.std())}
        self.splits = {
            name: EncodedSplit(examples, vocab, False) for name, examples in data.items()
        }

    def _loader(self, split: str, shuffle: bool) -> DataLoader:
        return DataLoader(
            self.splits[split],
            batch_size=self.batch_size,
            shuffle=shuffle,
            collate_fn=functools.partial(collate, self.task.kind),
            generator=torch.Generator().manual_seed(self.seed),
        )

    def train_dataloader(self) -> DataLoader:
        return self._loader("train", shuffle=True)

    def val_dataloader(self) -> DataLoader:
        return self._loader("val", shuffle=False)

    def test_dataloader(self) -> DataLoader:
        return self._loader("test", shuffle=False)
