"""Vector formats, dimension inference, the parse cache and malformed vector files."""

import numpy as np
import pytest

from datamodules import vectors as vectors_module
from datamodules.errors import DataFormatError
from datamodules.vectors import cache_dir, load_vectors


@pytest.mark.parametrize("name", ["tiny.glove.txt", "tiny.w2v.txt", "tiny.w2v.txt.gz"])
def test_formats_give_the_same_vectors(fixtures, tmp_path, name):
    loaded = load_vectors(fixtures / "vectors" / name, tmp_path)
    assert loaded.dim == 4 and len(loaded.index) == 6
    np.testing.assert_allclose(loaded.matrix[loaded.index["movie"]], [0.2, 0.21, 0.22, 0.23])


def test_lookup_falls_back_to_lowercase(fixtures, tmp_path):
    loaded = load_vectors(fixtures / "vectors" / "tiny.glove.txt", tmp_path)
    assert loaded.row("Movie") == loaded.row("movie") == 1
    assert loaded.row("zebra") is None


def test_second_load_reads_the_cache(fixtures, tmp_path, monkeypatch):
    path = fixtures / "vectors" / "tiny.glove.txt"
    first = load_vectors(path, tmp_path)
    assert len(list(tmp_path.glob("*.npy"))) == 1

    def no_parse(_path):
        raise AssertionError("parsed again despite the cache")

    monkeypatch.setattr(vectors_module, "parse_vectors", no_parse)
    second = load_vectors(path, tmp_path)
    assert second.index == first.index
    np.testing.assert_array_equal(second.matrix, first.matrix)


def test_changed_content_misses_the_cache(fixtures, tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("the 1 2\n")
    assert load_vectors(path, tmp_path / "c").matrix[0, 0] == 1.0
    path.write_text("the 3 2\n")
    assert load_vectors(path, tmp_path / "c").matrix[0, 0] == 3.0


def test_cache_dir_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("SANBENCH_CACHE", str(tmp_path))
    assert cache_dir() == tmp_path / "vectors"
    assert cache_dir(tmp_path / "x") == tmp_path / "x"


@pytest.mark.parametrize(
    ("name", "line", "words"),
    [
        ("vectors-short.txt", 2, ["a word and 3 values", "2 values"]),
        ("vectors-nan.txt", 2, ["numbers", "zero"]),
        ("vectors-bytes.txt", 2, ["UTF-8", "0xff"]),
    ],
)
def test_malformed_vectors(fixtures, tmp_path, name, line, words):
    with pytest.raises(DataFormatError) as caught:
        load_vectors(fixtures / "bad" / name, tmp_path)
    assert caught.value.line == line
    for word in words:
        assert word in str(caught.value)


def test_missing_vectors_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="--embeddings"):
        load_vectors(tmp_path / "none.txt", tmp_path)
