"""Length-bucketed batching: little padding, deterministic under a seed."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
from torch.utils.data import Sampler


class BucketBatchSampler(Sampler[list[int]]):
    """Shuffled batches of similar-length examples.

    Per epoch (seed + epoch): shuffle all indices, cut them into chunks of
    ``chunk_batches`` batches, sort each chunk by length, cut it into batches and shuffle
    the batch order. Each pass over the sampler moves on to the next epoch;
    :meth:`set_epoch` jumps to a given epoch (e.g. when resuming).

    Distributed training: with ``num_replicas`` > 1, every replica draws the same epoch order
    and takes batches ``rank, rank + num_replicas, ...``; the list is first topped up with its
    own leading batches to a multiple of ``num_replicas`` so all replicas step equally often.
    """

    def __init__(
        self,
        lengths: Sequence[int],
        batch_size: int,
        seed: int,
        chunk_batches: int = 50,
        drop_last: bool = False,
        num_replicas: int = 1,
        rank: int = 0,
    ) -> None:
        if batch_size < 1 or chunk_batches < 1:
            raise ValueError("batch_size and chunk_batches must be positive")
        if not 0 <= rank < num_replicas:
            raise ValueError(f"rank {rank} is outside 0..{num_replicas - 1}")
        self.lengths = np.asarray(lengths)
        self.batch_size = batch_size
        self.seed = seed
        self.chunk_batches = chunk_batches
        self.drop_last = drop_last
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        """Use the order of epoch ``epoch`` on the next pass."""
        self.epoch = epoch

    def __len__(self) -> int:
        full, rest = divmod(len(self.lengths), self.batch_size)
        batches = full + (1 if rest and not self.drop_last else 0)
        return -(-batches // self.num_replicas)

    def __iter__(self) -> Iterator[list[int]]:
        rng = np.random.default_rng([self.seed, self.epoch])
        self.epoch += 1
        order = rng.permutation(len(self.lengths))
        chunk = self.batch_size * self.chunk_batches
        batches = []
        for start in range(0, len(order), chunk):
            part = order[start : start + chunk]
            part = part[np.argsort(self.lengths[part], kind="stable")]
            batches += [part[i : i + self.batch_size] for i in range(0, len(part), self.batch_size)]
        if self.drop_last:
            batches = [b for b in batches if len(b) == self.batch_size]
        shuffled = [batches[index].tolist() for index in rng.permutation(len(batches))]
        if self.num_replicas > 1:
            shuffled += shuffled[: -len(shuffled) % self.num_replicas]
            shuffled = shuffled[self.rank :: self.num_replicas]
        return iter(shuffled)


def sorted_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Evaluation batches: indices sorted by length (stable), fixed order."""
    order = np.argsort(np.asarray(lengths), kind="stable")
    return [order[i : i + batch_size].tolist() for i in range(0, len(order), batch_size)]
