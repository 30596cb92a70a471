"""Length-bucketed batching: little padding, deterministic under a seed."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, Sampler


class BucketBatchSampler(Sampler[list[int]]):
    """Shuffled batches of similar-length examples.

    Per epoch (seed + epoch): shuffle all indices, cut them into chunks of
    ``chunk_batches`` batches, sort each chunk by length, cut it into batches and shuffle
    the batch order. Each pass over the sampler moves on to the next epoch (a pass starts when
    its first batch is drawn, not when ``iter`` is called); :meth:`set_epoch` jumps to another
    one and :meth:`resume_at` to a position inside one (a resumed run: :class:`ResumableLoader`
    saves and restores it). Lightning's own ``set_epoch`` calls do not reach a batch sampler, and
    after some restarts its epoch counter runs one ahead: the saved position is the truth.
    ``limit`` is the trainer's ``limit_train_batches`` (an int: that many batches, a float: that
    share): an epoch ends after :attr:`epoch_length` batches, as Lightning's does.

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
        limit: int | float | None = None,
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
        self.limit = limit
        self.epoch = 0
        self.start = 0  # batches of ``epoch`` the next pass leaves out (already trained on)
        self.pass_started = (0, 0)  # (epoch, start) of the latest pass

    def set_epoch(self, epoch: int) -> None:
        """Use the order of epoch ``epoch`` on the next pass (from its first batch unless
        :meth:`resume_at` chose a position in this same epoch)."""
        if epoch != self.epoch:
            self.epoch, self.start = epoch, 0

    @property
    def epoch_length(self) -> int:
        """Batches an epoch trains on: all of them, or ``limit``'s count or share (the rule of
        Lightning's ``limit_train_batches``: an int caps the count, a float keeps
        ``int(share * batches)``)."""
        if self.limit is None:
            return len(self)
        if isinstance(self.limit, int):
            return min(len(self), self.limit)
        return int(len(self) * self.limit)

    def position(self, epoch: int, batches_done: int) -> tuple[int, int]:
        """(epoch, batches done) with a finished epoch as the start of the next one."""
        if batches_done >= self.epoch_length:
            return epoch + 1, 0
        return epoch, batches_done

    def resume_at(self, epoch: int, batches_done: int) -> None:
        """The next pass continues epoch ``epoch`` after its first ``batches_done`` batches
        (the next epoch from its start when ``epoch`` was complete)."""
        self.epoch, self.start = self.position(epoch, batches_done)

    def __len__(self) -> int:
        full, rest = divmod(len(self.lengths), self.batch_size)
        batches = full + (1 if rest and not self.drop_last else 0)
        return -(-batches // self.num_replicas)

    def __iter__(self) -> Iterator[list[int]]:
        epoch, start = self.epoch, self.start
        self.epoch, self.start, self.pass_started = epoch + 1, 0, (epoch, start)
        yield from self.batches(epoch)[start:]

    def batches(self, epoch: int) -> list[list[int]]:
        """This replica's batches of epoch ``epoch``, in order."""
        rng = np.random.default_rng([self.seed, epoch])
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
        return shuffled


class ResumableLoader(DataLoader):
    """A training loader over a :class:`BucketBatchSampler` whose place (epoch and batches
    consumed) is saved in Lightning checkpoints and restored on resume.

    Lightning's fit loop stores ``state_dict()`` of every training loader that has one with the
    loop's state, but restores it only when it restarts inside an epoch; the datamodule saves
    and restores it too (``BenchmarkDataModule.state_dict``), so a checkpoint taken at an
    epoch's end resumes with the next epoch's order. Batches are counted as the consumer
    receives them, so batches that worker processes fetched ahead are not counted as trained on;
    an epoch cut short by ``limit_train_batches`` is saved as finished.

    The loader draws nothing from torch's global generator, which dropout draws from: the base
    seed of its worker processes comes from its own generator, seeded per pass with (``seed``,
    epoch), so a resumed epoch's workers are seeded as the uninterrupted run's were.
    """

    def __init__(self, dataset: Dataset, batch_sampler: BucketBatchSampler, **options: Any):
        options.setdefault("generator", torch.Generator())
        super().__init__(dataset, batch_sampler=batch_sampler, **options)
        self._consumed: int | None = None  # batches handed out by the pass in progress

    def __iter__(self) -> Iterator[Any]:
        sampler = self.batch_sampler
        self.generator.manual_seed(pass_seed(sampler.seed, sampler.epoch))
        self._consumed = 0
        for batch in super().__iter__():
            self._consumed += 1
            yield batch

    def state_dict(self) -> dict[str, int]:
        sampler = self.batch_sampler
        if self._consumed is None:  # no pass yet: where the first one will start
            return {"epoch": sampler.epoch, "batches": sampler.start}
        epoch, start = sampler.pass_started
        epoch, batches = sampler.position(epoch, start + self._consumed)
        return {"epoch": epoch, "batches": batches}

    def load_state_dict(self, state_dict: dict[str, int]) -> None:
        self.batch_sampler.resume_at(int(state_dict["epoch"]), int(state_dict["batches"]))
        self._consumed = None


def pass_seed(seed: int, epoch: int) -> int:
    """The seed of a loader's own generator for epoch ``epoch`` of a run seeded ``seed``."""
    return int(np.random.SeedSequence([seed, epoch]).generate_state(1)[0])


def sorted_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Evaluation batches: indices sorted by length (stable), fixed order."""
    order = np.argsort(np.asarray(lengths), kind="stable")
    return [order[i : i + batch_size].tolist() for i in range(0, len(order), batch_size)]
