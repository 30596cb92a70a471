"""Bad data files: one line per problem, every bad line of a file (up to a cap), encodings."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from datamodules.errors import MAX_LISTED, DataFormatError, did_you_mean
from datamodules.readers.layouts import load_split, resolve_layout
from datamodules.tasks import get_task
from datamodules.text import ReleaseEncodingWarning, read_lines


def _load(folder: Path, task: str, split: str, encoding: str | None = None):
    spec = get_task(task)
    layout, root = resolve_layout(spec, folder)
    return load_split(spec, layout, root, split, encoding)


def test_every_bad_line_is_listed_one_per_line(tmp_path: Path) -> None:
    lines = ["1 good", "9 bad label", "", "2 fine", "x what", "0 ok"]
    (tmp_path / "stsa.fine.train").write_text("\n".join(lines) + "\n")
    with pytest.raises(DataFormatError) as caught:
        _load(tmp_path, "sst1", "train")
    message = str(caught.value).splitlines()
    path = tmp_path / "stsa.fine.train"
    assert [line.split(": ", 1)[0] for line in message] == [f"{path}:{n}" for n in (2, 3, 5)]
    for line in message:
        assert "expected 'LABEL sentence'" in line and "; found " in line and "; fix: " in line
    assert [problem.line for problem in caught.value.problems] == [2, 3, 5]


def test_a_file_with_many_bad_lines_lists_the_first_ones_and_counts_the_rest(
    tmp_path: Path,
) -> None:
    bad = MAX_LISTED + 7
    (tmp_path / "stsa.fine.train").write_text("".join(f"9 bad {i}\n" for i in range(bad)))
    with pytest.raises(DataFormatError) as caught:
        _load(tmp_path, "sst1", "train")
    message = str(caught.value).splitlines()
    assert len(message) == MAX_LISTED + 1
    assert message[-1].endswith("... and 7 more bad lines like these")


def test_bad_lines_of_sick_are_all_listed(tmp_path: Path) -> None:
    header = "pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment"
    rows = ["1\ta\tb\t4.5\tNEUTRAL", "2\ta\tb\t9\tNEUTRAL", "3\ta\tb", "4\ta\tb\t3\tNEUTRAL"]
    (tmp_path / "SICK_train.txt").write_text("\n".join([header, *rows]) + "\n")
    with pytest.raises(DataFormatError) as caught:
        _load(tmp_path, "sick", "train")
    assert [problem.line for problem in caught.value.problems] == [3, 4]


def test_non_utf8_bytes_are_an_error_naming_each_line(tmp_path: Path) -> None:
    path = tmp_path / "stsa.fine.train"
    path.write_bytes("1 caf\u00e9\n2 fine\n3 na\u00efve\n".encode("latin-1"))
    with pytest.raises(DataFormatError) as caught:
        _load(tmp_path, "sst1", "train")
    assert [problem.line for problem in caught.value.problems] == [1, 3]
    first = str(caught.value).splitlines()[0]
    assert first.startswith(f"{path}:1: expected text in utf-8; found byte 0xe9 at column 6")
    assert "--encoding" in first


def test_an_encoding_given_decodes_the_file(tmp_path: Path) -> None:
    (tmp_path / "stsa.fine.train").write_bytes("1 caf\u00e9\n3 na\u00efve\n".encode("latin-1"))
    examples = _load(tmp_path, "sst1", "train", encoding="latin-1").examples
    assert [example.a for example in examples] == [("caf\u00e9",), ("na\u00efve",)]


def test_files_released_in_windows_1252_read_without_an_encoding(tmp_path: Path) -> None:
    """TREC train, MR and SUBJ as Kim (2014) ships them; a UTF-8 copy reads as UTF-8."""
    released = tmp_path / "released" / "TREC.train.all"
    released.parent.mkdir()
    released.write_bytes("0 ok\n0 what is \u2026 ?\n".encode("cp1252"))
    with pytest.warns(
        ReleaseEncodingWarning, match=r"TREC\.train\.all: 1 line\(s\) not UTF-8 \(line 2\)"
    ):
        assert read_lines(released) == ["0 ok", "0 what is \u2026 ?"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # said once per file and process (a run reads it often)
        assert read_lines(released) == ["0 ok", "0 what is \u2026 ?"]
    copy = tmp_path / "TREC.train.all"
    copy.write_bytes("0 what is \u2026 ?\n".encode())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a UTF-8 copy reads without a word
        assert read_lines(copy) == ["0 what is \u2026 ?"]
        assert read_lines(released, "cp1252") == ["0 ok", "0 what is \u2026 ?"]
    with pytest.raises(DataFormatError, match=r"TREC\.train\.all:2: expected text in utf-8"):
        read_lines(released, "utf-8")


@pytest.mark.data
def test_the_real_mr_file_lists_its_windows_1252_lines_under_utf8(real_data: Path) -> None:
    with pytest.raises(DataFormatError) as caught:
        _load(real_data / "kim2014", "mr", "all", encoding="utf-8")
    lines = str(caught.value).splitlines()
    assert [problem.line for problem in caught.value.problems][:3] == [32, 58, 113]
    assert lines[-1].endswith(f"... and {202 - MAX_LISTED} more bad lines like these")


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("Bi-BloSAN", "bi_blosan"), ("DiSAN", "disan"), ("bi-blosan", "bi_blosan"), ("SST2", "sst2")],
)
def test_the_papers_spelling_of_a_name_gets_the_name(typed: str, meant: str) -> None:
    """Outside check of #56, item 5: ``--encoder Bi-BloSAN`` and ``--encoders DiSAN`` listed every
    name without 'did you mean': case and ``-``/``_`` counted as differences."""
    names = ["bi_blosan", "bi_blosan_no_local", "disan", "disan_nodir", "mtsa", "sst2", "sst1"]
    assert did_you_mean(typed, names) == f" (did you mean {meant}?)"
    assert did_you_mean("word2vec", names) == ""
