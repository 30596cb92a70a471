"""The suite grid: each task's protocol, and shards that cover the grid exactly once."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.suite.grid import CV_FOLDS, RunSpec, Shard, expand_grid, grid_size


def test_cv_tasks_run_ten_folds_with_one_seed_and_others_run_seeds() -> None:
    runs = expand_grid(["cr", "trec", "mr"], ["bi_blosan", "mtsa"], seeds=3)
    by_task = Counter(run.task for run in runs)
    assert by_task == {"cr": 2 * CV_FOLDS, "mr": 2 * CV_FOLDS, "trec": 2 * 3}
    cr = [run for run in runs if run.task == "cr" and run.encoder == "mtsa"]
    assert [run.fold for run in cr] == list(range(CV_FOLDS))
    assert {run.seed for run in cr} == {0}
    trec = [run for run in runs if run.task == "trec" and run.encoder == "mtsa"]
    assert [(run.seed, run.fold) for run in trec] == [(0, None), (1, None), (2, None)]


def test_replicate_names_and_run_folders() -> None:
    assert RunSpec("cr", "disan", 0, 3).replicate == "fold3"
    assert RunSpec("trec", "disan", 4).replicate == "seed4"
    assert RunSpec("trec", "disan", 4).run_dir(Path("out")) == Path("out/runs/trec/disan/seed4")


def test_folds_option_keeps_the_first_folds_and_duplicates_collapse() -> None:
    runs = expand_grid(["subj", "subj"], ["mtsa"], seeds=5, folds=2)
    assert [run.key for run in runs] == [("subj", "mtsa", "fold0"), ("subj", "mtsa", "fold1")]


@pytest.mark.parametrize(("seeds", "folds"), [(0, 10), (1, 0), (1, 11)])
def test_bad_grid_sizes_are_refused(seeds: int, folds: int) -> None:
    with pytest.raises(ValueError, match="--"):
        expand_grid(["trec"], ["mtsa"], seeds=seeds, folds=folds)


@pytest.mark.parametrize("text", ["0/2", "3/2", "1", "a/b", "1/0"])
def test_bad_shards_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="shard"):
        Shard.parse(text)


def test_shard_parse_and_label() -> None:
    assert Shard.parse(" 2/5 ") == Shard(2, 5)
    assert Shard(2, 5).label == "2-of-5"


@settings(deadline=None)  # a property, not a timing: no deadline on a loaded machine
@given(
    tasks=st.lists(st.sampled_from(["cr", "trec", "sst2", "sick", "mpqa"]), min_size=1),
    encoders=st.lists(st.sampled_from(["a", "b", "c"]), min_size=1),
    seeds=st.integers(1, 4),
    count=st.integers(1, 7),
)
def test_shards_cover_the_grid_exactly_once(
    tasks: list[str], encoders: list[str], seeds: int, count: int
) -> None:
    runs = expand_grid(tasks, encoders, seeds)
    parts = [Shard(k, count).select(runs) for k in range(1, count + 1)]
    flat = [run for part in parts for run in part]
    assert sorted(flat) == sorted(runs)
    assert len(set(flat)) == len(flat)
    sizes = [len(part) for part in parts]
    assert max(sizes) - min(sizes) <= 1


def test_shard_split_ignores_the_order_tasks_and_encoders_were_given() -> None:
    one = Shard(2, 3).select(expand_grid(["trec", "cr"], ["mtsa", "disan"], 2))
    two = Shard(2, 3).select(expand_grid(["cr", "trec"], ["disan", "mtsa"], 2))
    assert set(one) == set(two)


def test_runs_come_in_the_order_given() -> None:
    """Before: sorted, so ``--encoders mtsa,disan`` ran DiSAN first."""
    runs = expand_grid(["trec", "cr"], ["mtsa", "disan", "mtsa"], 2, folds=1)
    assert [(r.task, r.encoder, r.replicate) for r in runs] == [
        ("trec", "mtsa", "seed0"),
        ("trec", "mtsa", "seed1"),
        ("trec", "disan", "seed0"),
        ("trec", "disan", "seed1"),
        ("cr", "mtsa", "fold0"),
        ("cr", "disan", "fold0"),
    ]
    shard = Shard(1, 2).select(runs)
    assert shard == [run for run in runs if run in set(shard)]  # a shard keeps that order


@settings(max_examples=30, deadline=None)
@given(
    tasks=st.lists(st.sampled_from(["trec", "sst2", "cr", "subj", "sick"]), min_size=1),
    encoders=st.lists(st.sampled_from(["disan", "bilstm", "multi_cnn"]), min_size=1),
    seeds=st.integers(1, 12),
    folds=st.integers(1, CV_FOLDS),
)
def test_the_grid_size_is_the_expanded_grids_length(
    tasks: list[str], encoders: list[str], seeds: int, folds: int
) -> None:
    """What ``suite`` checks against MAX_RUNS before expanding the grid (issue 56, H11.3)."""
    assert grid_size(tasks, encoders, seeds, folds) == len(
        expand_grid(tasks, encoders, seeds, folds)
    )
