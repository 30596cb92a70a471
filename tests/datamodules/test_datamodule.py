"""The datamodule contract on fixtures: batches, vocabulary, embeddings, split policies."""

import shutil

import numpy as np
import pytest
import torch

from datamodules import DataFormatError, MissingSplitError, build_datamodule, list_tasks
from datamodules.vectors import load_vectors

KEYS = {
    "single": {"tokens", "mask", "label", "index"},
    "pair": {"tokens_a", "mask_a", "tokens_b", "mask_b", "label", "index"},
    "relatedness": {"tokens_a", "mask_a", "tokens_b", "mask_b", "label", "target", "index"},
}
CASES = [
    ("sst1", "kim2014"),
    ("trec", "senteval"),
    ("cr", "kim2014"),
    ("sick", "sick"),
    ("snli", "senteval"),
    ("multinli", "nli-jsonl"),
]


def _module(fixtures, task, folder, **options):
    # the fixtures are tiny: a 25% dev share keeps TREC's carved dev set non-empty
    options = {"batch_size": 4, "embedding_dim": 8, "dev_fraction": 0.25} | options
    return build_datamodule(task, data_dir=fixtures / folder, **options)


@pytest.mark.parametrize(("task", "folder"), CASES)
def test_batches_follow_the_contract(fixtures, task, folder):
    dm = _module(fixtures, task, folder)
    dm.setup("fit")
    dm.setup("test")
    kind = dm.task.kind
    for loader in (dm.train_dataloader(), dm.val_dataloader(), dm.test_dataloader()):
        seen = []
        for batch in loader:
            assert set(batch) == KEYS[kind]
            for side in ("_a", "_b") if kind != "single" else ("",):
                tokens, mask = batch[f"tokens{side}"], batch[f"mask{side}"]
                assert tokens.dtype == torch.long and mask.dtype == torch.bool
                assert tokens.shape == mask.shape and tokens.shape[1] >= 1
                assert torch.all(tokens[~mask] == 0) and torch.all(tokens[mask] >= 1)
                assert torch.all(
                    mask.cumsum(1) == mask.sum(1, keepdim=True).clamp(max=1) * 0 + mask.cumsum(1)
                )
                lengths = mask.sum(1)
                assert torch.all(mask == (torch.arange(mask.shape[1]) < lengths[:, None]))
            if kind == "relatedness":
                assert batch["label"].dtype == torch.float32 and batch["target"].shape[1] == 5
                expected = (batch["target"] * torch.arange(1.0, 6.0)).sum(1)
                torch.testing.assert_close(expected, batch["label"])
            else:
                assert batch["label"].dtype == torch.long
            seen += batch["index"].tolist()
        assert sorted(seen) == list(range(len(loader.dataset)))


def test_vocab_and_embeddings(fixtures):
    vectors = fixtures / "vectors" / "tiny.glove.txt"
    dm = _module(fixtures, "sst2", "kim2014", embeddings=vectors, seed=5)
    dm.setup("fit")
    assert dm.vocab.itos[:2] == ["<pad>", "<unk>"] and dm.vocab.stoi["<pad>"] == 0
    matrix = dm.embedding_matrix
    assert matrix.shape == (len(dm.vocab), 4)
    assert torch.all(matrix[0] == 0)
    loaded = load_vectors(vectors)
    for word in ("movie", "good"):
        expected = torch.from_numpy(np.array(loaded.matrix[loaded.index[word]]))
        torch.testing.assert_close(matrix[dm.vocab.stoi[word]], expected)
    missing = dm.vocab.stoi["boring"]
    assert matrix[missing].abs().max() <= 0.05 and matrix[missing].abs().sum() > 0
    again = _module(fixtures, "sst2", "kim2014", embeddings=vectors, seed=5)
    again.setup("fit")
    torch.testing.assert_close(again.embedding_matrix, matrix)
    assert 0 < dm.vector_coverage < 1


def test_without_vectors_uses_embedding_dim(fixtures):
    dm = _module(fixtures, "sst2", "kim2014", embedding_dim=6)
    dm.setup("fit")
    assert dm.embedding_matrix.shape[1] == 6 and dm.vector_coverage is None
    assert set(dm.length_stats) == {"mean", "std"} and dm.length_stats["mean"] > 0


def test_vocab_comes_from_train_only(fixtures, tmp_path):
    for split in ("train", "dev", "test"):
        shutil.copy(fixtures / "kim2014" / f"stsa.binary.{split}", tmp_path)
    with open(tmp_path / "stsa.binary.test", "a") as handle:
        handle.write("1 zyzzyva\n")
    dm = build_datamodule("sst2", data_dir=tmp_path, batch_size=4, embedding_dim=4)
    dm.setup("test")
    assert "zyzzyva" not in dm.vocab.stoi
    last = dm.datasets["test"].items[-1]
    assert last.a == [1]


def test_lowercase(fixtures, tmp_path):
    (tmp_path / "TREC.train.all").write_text("0 The the THE\n" * 10 + "1 What\n" * 10)
    (tmp_path / "TREC.test.all").write_text("0 tHe\n")
    dm = build_datamodule("trec", data_dir=tmp_path, lowercase=True, embedding_dim=4)
    dm.setup("test")
    assert set(dm.vocab.itos[2:]) == {"the", "what"}
    assert dm.datasets["test"].items[0].a == [dm.vocab.stoi["the"]]


def test_trec_dev_is_carved_from_train(fixtures):
    dm = _module(fixtures, "trec", "kim2014", dev_fraction=0.25)
    dm.setup("fit")
    dm.setup("test")
    assert (len(dm.datasets["train"]), len(dm.datasets["val"]), len(dm.datasets["test"])) == (
        18,
        6,
        6,
    )


def test_cross_validation_folds_cover_every_example_once(fixtures):
    tested = []
    for fold in range(10):
        dm = _module(fixtures, "mpqa", "kim2014", fold=fold, seed=1)
        dm.setup("fit")
        dm.setup("test")
        sizes = [len(dm.datasets[s]) for s in ("train", "val", "test")]
        assert sum(sizes) == 40 and sizes[2] == 4
        tested += [(*e.a, e.label) for e in dm._examples["test"]]
    assert len(tested) == 40
    with pytest.raises(ValueError, match="fold"):
        _module(fixtures, "mpqa", "kim2014", fold=10)


def test_multinli_dev_and_test_can_be_swapped(fixtures):
    default = _module(fixtures, "multinli", "nli-jsonl")
    assert (default.dev_source, default.test_source) == ("dev_matched", "dev_mismatched")
    swapped = _module(
        fixtures, "multinli", "nli-jsonl", dev_split="dev_mismatched", test_split="dev_matched"
    )
    assert (swapped.dev_source, swapped.test_source) == ("dev_mismatched", "dev_matched")
    with pytest.raises(ValueError, match="dev_split"):
        _module(fixtures, "multinli", "nli-jsonl", dev_split="dev")


def test_missing_split_is_an_error_only_when_requested(fixtures, tmp_path):
    for split in ("train", "dev"):
        for name in ("s1", "s2", "labels"):
            shutil.copy(fixtures / "senteval" / "SNLI" / f"{name}.{split}", tmp_path)
    dm = build_datamodule("snli", data_dir=tmp_path, batch_size=2, embedding_dim=4)
    dm.setup("fit")
    assert len(dm.datasets["val"]) == 3
    with pytest.raises(MissingSplitError, match="'test'"):
        dm.setup("test")


def test_loader_before_setup_and_deterministic_training_order(fixtures):
    dm = _module(fixtures, "sst1", "kim2014")
    with pytest.raises(RuntimeError, match="setup"):
        dm.vocab  # noqa: B018
    dm.setup("fit")
    with pytest.raises(RuntimeError, match="setup\\('test'\\)"):
        dm.test_dataloader()
    other = _module(fixtures, "sst1", "kim2014")
    other.setup("fit")
    first = [b["index"].tolist() for b in dm.train_dataloader()]
    assert first == [b["index"].tolist() for b in other.train_dataloader()]


def test_every_task_is_listed():
    assert list_tasks() == [
        "sst1", "sst2", "trec", "cr", "mpqa", "subj", "mr", "sick", "snli", "multinli"
    ]  # fmt: skip


def test_an_empty_split_is_an_error_not_a_silent_empty_loader(fixtures):
    from datamodules import build_datamodule
    from datamodules.errors import EmptySplitError

    dm = build_datamodule("trec", data_dir=fixtures / "kim2014")  # 24 lines: 10% dev is empty
    with pytest.raises(EmptySplitError, match=r"val split .* has no examples"):
        dm.setup("fit")
    dm = build_datamodule("trec", data_dir=fixtures / "kim2014", dev_fraction=0.25)
    dm.setup("fit")
    assert len(dm.datasets["val"]) > 0


def test_every_task_has_the_title_the_papers_print() -> None:
    from datamodules.tasks import get_task

    titles = {name: get_task(name).title for name in list_tasks()}
    # Bi-BloSAN Table 6 / MTSA Table 5 column heads; SICK, SNLI, MultiNLI as their papers
    assert titles == {
        "sst1": "SST-1",
        "sst2": "SST-2",
        "trec": "TREC",
        "cr": "CR",
        "mpqa": "MPQA",
        "subj": "SUBJ",
        "mr": "MR",
        "sick": "SICK",
        "snli": "SNLI",
        "multinli": "MultiNLI",
    }


def test_embedding_dim_is_unset_beside_a_vectors_file_and_300_without(fixtures):
    """Issue 56.13: the printed config said ``data.embedding_dim 300`` beside a 50-d GloVe file
    (whose width is used). Unset (None), the file's width is used, else 300; after setup the
    datamodule holds the width used."""
    import inspect

    from datamodules.datamodule import BenchmarkDataModule

    default = inspect.signature(BenchmarkDataModule).parameters["embedding_dim"].default
    assert default is None
    vectors = fixtures / "vectors" / "tiny.glove.txt"
    width = len(vectors.read_text().splitlines()[0].split()) - 1
    dm = build_datamodule("sst2", data_dir=fixtures, embeddings=vectors, batch_size=4)
    dm.setup("fit")
    assert dm.embedding_dim == dm.embedding_matrix.shape[1] == width != 300
    dm = build_datamodule("sst2", data_dir=fixtures, batch_size=4)
    with pytest.warns(UserWarning, match="no --embeddings"):
        dm.setup("fit")
    assert dm.embedding_dim == dm.embedding_matrix.shape[1] == 300


def test_the_no_embeddings_warning_names_no_path_of_the_repository() -> None:
    """Issue 56 breaker: it named ``../shared/datasets/glove/...``, which exists only beside
    the repository; it names the docs' section, which every copy has."""
    from datamodules.datamodule import RANDOM_VECTORS

    assert "../" not in RANDOM_VECTORS
    assert 'docs/data.md "Vocabulary and embeddings"' in RANDOM_VECTORS


@pytest.mark.parametrize("share", [0.999, 0.9])
def test_a_dev_share_that_leaves_a_class_no_training_line_is_refused(
    fixtures, share: float, recwarn: pytest.WarningsRecorder
) -> None:
    """Outside check 7: ``--data.dev_fraction 0.999`` left train empty (numpy's RuntimeWarning
    "Mean of empty slice", then advice to check that the file is not empty)."""
    dm = _module(fixtures, "trec", "kim2014", dev_fraction=share)
    with pytest.raises(DataFormatError) as raised:
        dm.check_inputs()
    said = str(raised.value)
    assert f"--data.dev_fraction {share}" in said and "a smaller --data.dev_fraction" in said
    assert "TREC.train.all" in said and "not empty" not in said
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
