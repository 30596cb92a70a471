"""Exact counts on the real benchmark files in ../shared/datasets (skipped when absent)."""

import pytest

from datamodules import build_datamodule, get_task
from datamodules.readers.layouts import load_split, resolve_layout

pytestmark = pytest.mark.data

COUNTS = {
    "sst1": {"train": 8544, "dev": 1101, "test": 2210},
    "sst2": {"train": 6920, "dev": 872, "test": 1821},
    "trec": {"train": 5452, "test": 500},
    "cr": {"all": 3775},
    "mpqa": {"all": 10606},
    "subj": {"all": 10000},
    "mr": {"all": 10662},
    "sick": {"train": 4500, "trial": 500, "test": 4927},
    "snli": {"dev": 9842, "test": 9824},
}


@pytest.mark.parametrize("task", list(COUNTS))
def test_exact_counts(real_data, task):
    spec = get_task(task)
    layout, root = resolve_layout(spec, real_data)
    for split, count in COUNTS[task].items():
        assert len(load_split(spec, layout, root, split).examples) == count, split


def test_trec_datamodule_with_glove(real_data, tmp_path):
    glove = real_data / "glove" / "glove.6B.50d.subset.txt"
    dm = build_datamodule(
        "trec", data_dir=real_data, embeddings=glove, cache_dir=tmp_path, batch_size=50
    )
    dm.setup("fit")
    dm.setup("test")
    sizes = {split: len(data) for split, data in dm.datasets.items()}
    assert sizes == {"train": 4906, "val": 546, "test": 500}
    assert dm.embedding_matrix.shape[1] == 50 and dm.vector_coverage > 0.9
    batch = next(iter(dm.train_dataloader()))
    assert batch["tokens"].shape[0] == 50
