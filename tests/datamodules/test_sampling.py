"""Length-bucketed batches, evaluation order, stratified folds and dev carving."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from datamodules.sampler import BucketBatchSampler, sorted_batches
from datamodules.splits import carve, fold_problems, stratified_folds

LENGTHS = np.random.default_rng(0).integers(1, 60, size=1003)


def _padding(lengths, batches):
    return sum(len(b) * max(lengths[i] for i in b) - sum(lengths[i] for i in b) for b in batches)


def test_every_index_once_and_deterministic():
    sampler = BucketBatchSampler(LENGTHS, batch_size=10, seed=3)
    first = list(sampler)
    assert sorted(i for b in first for i in b) == list(range(len(LENGTHS)))
    assert len(first) == len(sampler) == 101
    again = BucketBatchSampler(LENGTHS, batch_size=10, seed=3)
    assert list(again) == first
    assert list(again) != first  # the next epoch reshuffles
    again.set_epoch(0)
    assert list(again) == first


def test_bucketing_reduces_padding():
    bucketed = list(BucketBatchSampler(LENGTHS, batch_size=10, seed=0, chunk_batches=20))
    shuffled = np.random.default_rng(0).permutation(len(LENGTHS))
    random_batches = [shuffled[i : i + 10] for i in range(0, len(shuffled), 10)]
    assert _padding(LENGTHS, bucketed) < 0.3 * _padding(LENGTHS, random_batches)


def test_drop_last():
    sampler = BucketBatchSampler(LENGTHS, batch_size=10, seed=0, drop_last=True)
    batches = list(sampler)
    assert len(batches) == len(sampler) == 100 and all(len(b) == 10 for b in batches)


def test_sorted_batches_are_fixed_and_complete():
    batches = sorted_batches(LENGTHS, 64)
    flat = [i for b in batches for i in b]
    assert sorted(flat) == list(range(len(LENGTHS)))
    assert list(LENGTHS[flat]) == sorted(LENGTHS)


def test_stratified_folds_partition_and_balance():
    labels = [0] * 73 + [1] * 27
    folds = stratified_folds(labels, 10, seed=1)
    sizes = np.bincount(folds, minlength=10)
    assert sizes.max() - sizes.min() <= 1
    positives = np.bincount(folds[73:], minlength=10)
    assert positives.max() - positives.min() <= 1
    assert np.array_equal(folds, stratified_folds(labels, 10, seed=1))
    assert not np.array_equal(folds, stratified_folds(labels, 10, seed=2))


def test_carve_is_stratified_and_disjoint():
    labels = [0] * 50 + [1] * 30
    kept, carved = carve(labels, 0.1, seed=0)
    assert len(carved) == 8 and sorted([*kept, *carved]) == list(range(80))
    assert sum(labels[i] for i in carved) == 3
    with pytest.raises(ValueError, match="fraction"):
        carve(labels, 1.0, seed=0)


def test_replicas_partition_one_epoch_and_step_equally() -> None:
    from datamodules.sampler import BucketBatchSampler

    lengths = list(range(1, 24))  # 23 examples, batch 4 -> 6 batches, topped up to 3 x 2
    single = list(BucketBatchSampler(lengths, 4, seed=3))
    shards = [
        list(BucketBatchSampler(lengths, 4, seed=3, num_replicas=4, rank=r)) for r in range(4)
    ]
    assert {len(shard) for shard in shards} == {2}
    assert all(
        len(BucketBatchSampler(lengths, 4, 3, num_replicas=4, rank=r)) == 2 for r in range(4)
    )
    seen = [tuple(batch) for shard in shards for batch in shard]
    assert set(seen) == {tuple(batch) for batch in single}
    assert len(seen) == 8  # 6 distinct batches, 2 repeated to even out the replicas


def test_an_epoch_cut_by_the_trainers_limit_is_saved_as_finished() -> None:
    from datamodules.sampler import ResumableLoader

    lengths = list(range(1, 41))  # 10 batches of 4
    for limit, length in ((3, 3), (0.5, 5), (None, 10), (1.0, 10), (50, 10)):
        sampler = BucketBatchSampler(lengths, 4, seed=0, limit=limit)
        assert sampler.epoch_length == length, limit
    sampler = BucketBatchSampler(lengths, 4, seed=0, limit=3)
    loader = ResumableLoader(lengths, sampler, collate_fn=lambda batch: batch)
    for _ in zip(range(3), loader, strict=False):  # Lightning stops after 3 batches
        pass
    assert loader.state_dict() == {"epoch": 1, "batches": 0}  # not {"epoch": 0, "batches": 3}
    again = ResumableLoader(lengths, BucketBatchSampler(lengths, 4, seed=0, limit=3))
    again.load_state_dict({"epoch": 0, "batches": 3})  # a checkpoint written before this fix
    assert again.batch_sampler.epoch == 1 and again.batch_sampler.start == 0


def test_a_loader_draws_nothing_from_the_global_generator() -> None:
    import torch

    from datamodules.sampler import ResumableLoader

    lengths = list(range(1, 41))
    loader = ResumableLoader(lengths, BucketBatchSampler(lengths, 4, seed=0))
    torch.manual_seed(0)
    expected = torch.rand(1)
    torch.manual_seed(0)
    list(loader)
    list(loader)
    assert torch.equal(torch.rand(1), expected)


@given(
    counts=st.lists(st.integers(1, 12), min_size=2, max_size=5),
    folds=st.integers(2, 10),
    seed=st.integers(0, 2**32 - 1),
)
def test_fold_problems_name_every_fold_that_would_test_nothing_or_train_without_a_class(
    counts: list[int], folds: int, seed: int
) -> None:
    """Issue 54.9: the one-class check ran on the whole file, not on each fold's training
    part. Every fold is named that holds no example or whose training part lacks a class (the
    outside check of #54 part B: a third class of one example left a fold training on two of
    three, exit 0), and with every class of two examples or more (and an example per fold)
    none is."""
    labels = np.repeat(np.arange(len(counts)), counts)
    assignment = stratified_folds(labels, folds, seed)
    problems = fold_problems(labels, assignment, folds, [f"c{c}" for c in range(len(counts))])
    unusable = [
        fold
        for fold in range(folds)
        if not (assignment == fold).any() or len(set(labels[assignment != fold])) < len(counts)
    ]
    assert [int(problem.split()[1]) for problem in problems] == unusable
    if min(counts) >= 2 and len(labels) >= folds:
        assert problems == []
