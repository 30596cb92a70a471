"""Property tests of the line parsers and the text reader."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from datamodules.batches import relatedness_target
from datamodules.readers.kim2014 import parse_line
from datamodules.readers.nli import parse_tree
from datamodules.readers.senteval import parse_sst_line, parse_trec_line
from datamodules.readers.sick import parse_score
from datamodules.tasks import get_task
from datamodules.text import read_lines

token = st.text(
    alphabet=st.characters(blacklist_categories=("Z", "C")), min_size=1, max_size=6
).filter(lambda t: t not in ("(", ")") and t.split() == [t])
tokens = st.lists(token, min_size=0, max_size=8)
spaces = st.sampled_from([" ", "  ", "\t", " \t "])


@given(st.integers(0, 4), tokens, spaces)
def test_kim_line_roundtrip(label, words, gap):
    line = f"{label}{gap}{gap.join(words)}{gap}"
    assert parse_line(line) == (str(label), tuple(words))


@given(st.integers(0, 1), tokens)
def test_sst_binary_line_roundtrip(label, words):
    assert parse_sst_line(get_task("sst2"), f"{' '.join(words)}\t{label}") == (label, tuple(words))


@given(st.integers(0, 4), tokens)
def test_sst_fine_line_roundtrip(label, words):
    assert parse_sst_line(get_task("sst1"), f"{label} {' '.join(words)}") == (label, tuple(words))


@pytest.mark.slow
@given(st.text(max_size=3).filter(lambda t: not t.isdigit()), tokens)
def test_sst_rejects_non_numeric_labels(label, words):
    assert parse_sst_line(get_task("sst1"), f"{label} {' '.join(words)}")[0] is None


@given(st.sampled_from(get_task("trec").labels), token, tokens)
def test_trec_line_roundtrip(coarse, fine, words):
    spec = get_task("trec")
    line = f"{coarse}:{fine} {' '.join(words)}"
    assert parse_trec_line(spec, line) == (spec.labels.index(coarse), tuple(words))


@given(tokens)
def test_parse_tree_keeps_tokens_in_order(words):
    tree = "( " + " ".join(f"( {w} )" for w in words) + " )"
    assert parse_tree(tree) == tuple(words)


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_parse_score_accepts_exactly_one_to_five(value):
    parsed = parse_score(repr(value))
    assert (parsed is not None) == (math.isfinite(value) and 1.0 <= value <= 5.0)


@given(st.floats(1.0, 5.0))
def test_relatedness_target_is_a_distribution_with_mean_y(score):
    target = relatedness_target(score)
    assert all(p >= 0 for p in target) and math.isclose(sum(target), 1.0)
    assert math.isclose(sum((i + 1) * p for i, p in enumerate(target)), score, rel_tol=1e-9)
    assert sum(p > 0 for p in target) <= 2


@given(
    st.lists(
        st.text(
            # NUL: no text (tests/datamodules/test_text.py)
            alphabet=st.characters(
                blacklist_categories=("Cs",), blacklist_characters="\r\n\ufeff\0"
            ),
            max_size=10,
        )
    ),
    st.booleans(),
    st.booleans(),
)
def test_read_lines_strips_bom_and_line_endings(tmp_path_factory, lines, crlf, bom):
    path = tmp_path_factory.mktemp("lines") / "file.txt"
    eol = "\r\n" if crlf else "\n"
    path.write_bytes(("\ufeff" if bom else "").encode() + "".join(x + eol for x in lines).encode())
    assert read_lines(path) == lines
