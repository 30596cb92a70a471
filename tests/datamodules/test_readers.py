"""Every reader on the committed fixtures, layout detection and every failure mode."""

import dataclasses
import shutil

import pytest

from datamodules.errors import DataFormatError, MissingSplitError
from datamodules.readers.layouts import load_split, resolve_layout
from datamodules.tasks import get_task

COUNTS = {  # task -> layout folder -> {split: examples}
    "sst1": {"kim2014": {"train": 12, "dev": 4, "test": 5}, "senteval": {"train": 12, "test": 5}},
    "sst2": {"kim2014": {"train": 12, "dev": 4, "test": 5}, "senteval": {"train": 12, "dev": 4}},
    "trec": {"kim2014": {"train": 24, "test": 6}, "senteval": {"train": 24, "test": 6}},
    "cr": {"kim2014": {"all": 40}, "senteval": {"all": 40}},
    "mpqa": {"kim2014": {"all": 40}, "senteval": {"all": 40}},
    "subj": {"kim2014": {"all": 40}, "senteval": {"all": 40}},
    "mr": {"kim2014": {"all": 40}, "senteval": {"all": 40}},
    "sick": {"sick": {"train": 10, "trial": 3, "test": 4}, "senteval": {"train": 10}},
    "snli": {"senteval": {"train": 9, "dev": 3}, "nli-jsonl": {"train": 6, "test": 3}},
    "multinli": {"nli-jsonl": {"dev_matched": 3}, "nli-txt": {"train": 6, "dev_mismatched": 3}},
}
LAYOUT_OF_FOLDER = {"nli-jsonl": "snli-jsonl", "nli-txt": "snli-txt"}


@pytest.mark.parametrize(
    ("task", "folder", "split", "count"),
    [
        (task, folder, split, count)
        for task, folders in COUNTS.items()
        for folder, splits in folders.items()
        for split, count in splits.items()
    ],
)
def test_reader_counts(fixtures, task, folder, split, count):
    spec = get_task(task)
    layout, root = resolve_layout(spec, fixtures / folder)
    assert layout.name == LAYOUT_OF_FOLDER.get(folder, folder)
    data = load_split(spec, layout, root, split)
    assert len(data.examples) == count
    for example in data.examples:
        assert (example.b is None) == (spec.kind == "single")
        if spec.kind == "relatedness":
            assert 1.0 <= example.label <= 5.0
        else:
            assert 0 <= example.label < spec.num_classes


def test_detection_searches_subfolders_in_name_order(fixtures):
    layout, root = resolve_layout(get_task("sick"), fixtures)
    assert (layout.name, root) == ("senteval", fixtures / "senteval")
    layout, root = resolve_layout(get_task("sick"), fixtures, "sick")
    assert (layout.name, root) == ("sick", fixtures / "sick")


def test_nli_gold_dash_is_dropped_and_counted(fixtures):
    spec = get_task("snli")
    for folder in ("nli-jsonl", "nli-txt"):
        layout, root = resolve_layout(spec, fixtures / folder)
        data = load_split(spec, layout, root, "dev")
        assert len(data.examples) == 3
        assert data.dropped == {"no gold label ('-')": 1}


def test_nli_tokens_come_from_the_binary_parse(fixtures):
    spec = get_task("snli")
    layout, root = resolve_layout(spec, fixtures / "nli-jsonl")
    example = load_split(spec, layout, root, "train").examples[0]
    assert "(" not in example.a and ")" not in example.b


def test_sick_bom_and_crlf_are_stripped(fixtures):
    spec = get_task("sick")
    layout, root = resolve_layout(spec, fixtures / "sick")
    train = load_split(spec, layout, root, "train").examples
    test = load_split(spec, layout, root, "test").examples
    assert [e.label for e in train[:4]] == [1.0, 1.5, 2.3, 3.2]
    assert all(not t.endswith("\r") for e in test for t in (*e.a, *e.b))


def test_cp1252_byte_is_not_a_line_break(fixtures):
    spec = get_task("mr")
    layout, root = resolve_layout(spec, fixtures / "kim2014")
    examples = load_split(spec, layout, root, "all").examples
    assert len(examples) == 40
    assert examples[-1].a == ("it", "was", "fine", "…", "really")


def test_label_only_line_is_an_empty_sentence(fixtures):
    spec = get_task("cr")
    layout, root = resolve_layout(spec, fixtures / "kim2014")
    assert load_split(spec, layout, root, "all").examples[-1].a == ()


def test_trec_senteval_uses_the_kim_label_ids(fixtures):
    spec = get_task("trec")
    layout, root = resolve_layout(spec, fixtures / "senteval")
    labels = [e.label for e in load_split(spec, layout, root, "train").examples[:6]]
    assert [spec.labels[i] for i in labels] == ["ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM"]


@pytest.mark.parametrize(
    ("task", "case", "split", "line", "words"),
    [
        ("sst1", "label-out-of-range", "train", 3, ["0..4", "'7'"]),
        ("sst2", "missing-label", "train", 2, ["an empty line"]),
        ("mr", "undecodable", "all", 2, ["byte 0x81", "--encoding", "iconv"]),
        ("sick", "sick-columns", "train", 3, ["5 tab-separated columns", "4 in"]),
        ("sick", "sick-score", "train", 3, ["[1, 5]"]),
        ("sick", "sick-header", "train", 1, ["header"]),
        ("snli", "nli-label", "dev", 2, ["'maybe'", "entailment"]),
        ("snli", "nli-counts", "dev", None, ["s2.dev: 1"]),
        ("snli", "nli-json", "dev", 2, ["JSON object"]),
        ("trec", "empty-split", "train", None, ["at least one example"]),
    ],
)
def test_malformed_input_names_file_line_expectation(fixtures, task, case, split, line, words):
    spec = get_task(task)
    layout, root = resolve_layout(spec, fixtures / "bad" / case)
    with pytest.raises(DataFormatError) as caught:
        load_split(spec, layout, root, split)
    error = caught.value
    assert error.line == line
    assert error.path.parent.name == case
    message = str(error)
    assert str(error.path) in message and "expected" in message and "found" in message
    for word in words:
        assert word in message


def test_missing_split_only_when_requested(fixtures, tmp_path):
    for name in ("s1.dev", "s2.dev", "labels.dev"):
        shutil.copy(fixtures / "senteval" / "SNLI" / name, tmp_path / name)
    spec = get_task("snli")
    layout, root = resolve_layout(spec, tmp_path)
    assert len(load_split(spec, layout, root, "dev").examples) == 3
    with pytest.raises(MissingSplitError, match=r"'test'.*s1\.test"):
        load_split(spec, layout, root, "test")


def test_no_files_and_unknown_names(fixtures, tmp_path):
    with pytest.raises(FileNotFoundError, match=r"stsa\.fine\.train"):
        resolve_layout(get_task("sst1"), tmp_path)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        resolve_layout(get_task("sst1"), tmp_path / "nope")
    with pytest.raises(KeyError, match="unknown layout"):
        resolve_layout(get_task("sst1"), fixtures, "csv")
    with pytest.raises(KeyError, match="unknown task"):
        get_task("imdb")
    assert get_task("sst5") is get_task("sst1")


def test_a_reader_finds_a_task_by_its_declared_release_not_its_name(fixtures):
    """Issue 55 breaker: SentEval's reader chose TREC's files and lines by the name "trec". A
    task declared with TREC's releases under another name reads the same examples."""
    trec = get_task("trec")
    renamed = dataclasses.replace(trec, name="questions", aliases=())
    for folder in ("kim2014", "senteval"):
        read = [
            load_split(t, *resolve_layout(t, fixtures / folder), "test") for t in (trec, renamed)
        ]
        assert read[0].examples == read[1].examples and read[0].examples
    undeclared = dataclasses.replace(trec, name="trec", releases=())
    with pytest.raises(FileNotFoundError, match="no files for task 'trec'"):
        resolve_layout(undeclared, fixtures / "senteval")
