"""Vector formats, dimension inference, the parse cache and malformed vector files."""

import os

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


def _problems(path, tmp_path) -> dict[int | None, str]:
    with pytest.raises(DataFormatError) as caught:
        load_vectors(path, tmp_path / "cache")
    return {
        problem.line: f"{problem.expected}; {problem.found}" for problem in caught.value.problems
    }


def test_every_bad_vector_line_is_named_at_once(tmp_path):
    """Today's parser kept '\\ufeffthe', 'movie ', 'good 0.1', nan and inf without a word."""
    path = tmp_path / "v.txt"
    lines = [
        "\ufeffthe 0.1 0.2 0.3",
        "movie  0.1 0.2 0.3",
        "good 0.1 0.2 0.3 0.4",
        "bad 0.1 nan 0.3",
        "ugly 1e39 0 0",
        "plot 0.1 0.2",
        "new york 0.1 0.2 0.3",
        "",
        "film -inf 0 0",
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    problems = _problems(path, tmp_path)
    assert sorted(problems) == [1, 2, 3, 4, 5, 6, 8, 9]
    assert "byte-order mark" in problems[1]
    assert "single spaces" in problems[2] and "single spaces" in problems[8]
    assert "4 values" in problems[3] and "2 values" in problems[6]
    assert "'nan'" in problems[4] and "'1e39'" in problems[5] and "'-inf'" in problems[9]


def test_a_short_first_line_does_not_set_the_dimension(tmp_path):
    path = tmp_path / "v.txt"
    rows = [f"w{i} " + " ".join(["0.5"] * 5) for i in range(10)]
    rows[0] = "the 0.1 0.2 0.3 0.4"
    path.write_text("\n".join(rows) + "\n")
    problems = _problems(path, tmp_path)
    assert list(problems) == [1]
    assert "a word and 5 values; 4 values" in problems[1]


def test_words_with_spaces_and_word2vec_headers_still_load(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("2 3\nnew york 0.1 0.2 0.3\n. . . 1 2 3 \n")
    loaded = load_vectors(path, tmp_path / "cache")
    assert list(loaded.index) == ["new york", ". . ."] and loaded.dim == 3


def test_a_header_count_that_disagrees_is_an_error(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("3 2\na 0.1 0.2\nb 0.3 0.4\n")
    assert "N = 3 but 2 vector lines" in _problems(path, tmp_path)[1]


def test_vectors_cached_by_a_laxer_parser_are_parsed_again(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("the 0.1 nan\n")
    cache = tmp_path / "cache"
    cache.mkdir()
    stale = cache / vectors_module.file_sha256(path)
    np.save(stale.with_suffix(".npy"), np.array([[0.1, np.nan]], dtype=np.float32))
    stale.with_suffix(".words.json").write_text('["the"]')
    with pytest.raises(DataFormatError, match="'nan'"):
        load_vectors(path, cache)


def test_a_cache_that_cannot_be_written_warns_once_and_the_vectors_still_load(fixtures, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.warns(vectors_module.VectorsCacheWarning, match="cannot be written") as caught:
        loaded = load_vectors(fixtures / "vectors" / "tiny.glove.txt", blocker / "vectors")
    assert len(caught) == 1 and loaded.dim == 4 and loaded.row("movie") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def test_the_cache_never_writes_through_a_link_an_earlier_temporary_name_left(fixtures, tmp_path):
    """The temporary file has a random name created with O_EXCL: a symlink named like the old
    fixed ``NAME.PID.tmp`` leads nowhere, and no file outside the cache is written."""
    outside = tmp_path / "outside.txt"
    outside.write_text("user's")
    cache = tmp_path / "cache"
    cache.mkdir()
    digest = vectors_module.file_sha256(fixtures / "vectors" / "tiny.glove.txt")
    key = f"{digest}-{vectors_module.PARSER}"
    for name in (f"{key}.npy.{os.getpid()}.tmp", f"{key}.words.json.{os.getpid()}.tmp"):
        (cache / name).symlink_to(outside)
    load_vectors(fixtures / "vectors" / "tiny.glove.txt", cache)
    assert outside.read_text() == "user's"
    assert len(list(cache.glob("*.npy"))) == 1 and not list(cache.glob(".*.tmp"))
