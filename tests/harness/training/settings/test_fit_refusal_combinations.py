"""fit's one refusal of every problem of a command line, drawn in combinations (outside check 5z
items 1-3, 13): a refused value, each kind of --out that cannot be one, a data folder without
the task's files or not given, a section file that is wrong (a value, an unknown key, a list,
an empty file, a YAML error, a folder; as a flag or in a -c file), a leftover word. Each
problem's line is said once in sanbench's words, no other line (no false "--encoder is
required", no parser text), exit 2, nothing created, the help pointed to only when a problem
of the words is among them."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tests.harness.problem_lines import pointer
from tests.harness.refusal_scratch import drawn, refused, scratch

# each --out kind: the line's fragment (None: a good --out)
OUTS = {
    "new": None,
    "afile": "--out afile is a file",
    "userdir": "--out userdir holds notes.txt",
    "/proc/x": "--out /proc/x",
    "loop": "a loop of symlinks",
}
# each --data-dir kind: the line's fragment (None: TREC's files)
DATA = {
    "trec": None,
    "glove": "expected the files of task 'trec'",
    "missing": "--data-dir is required",
}
VALUE = (("--trainer.max_steps", "0"), "--trainer.max_steps 0: trains nothing")
EXTRA = (("extra",), "extra word extra: no option takes it")
# each wrong section file: its words, its line (m.yaml names the encoder: --encoder not typed)
SECTIONS = {
    "value": (("--model", "cfg/m.yaml"), "--model cfg/m.yaml: hidden_dim 0: expected a positive"),
    "unknown": (("--trainer", "cfg/t.yaml"), "--trainer cfg/t.yaml: unknown key bogus_key"),
    "list": (
        ("--model", "cfg/list.yaml"),
        "--model cfg/list.yaml: expected a mapping of model's keys (found a list)",
    ),
    "empty": (("--data", "cfg/empty.yaml"), "--data cfg/empty.yaml: empty; expected a mapping"),
    "yaml": (("--trainer", "cfg/bad.yaml"), "--trainer cfg/bad.yaml: not YAML (line 2: "),
    "folder": (("--model", "c2"), "--model c2: a folder; expected a mapping of model's keys"),
    "config": (("-c", "cfg/c.yaml"), "-c cfg/c.yaml: trainer t.yaml: unknown key bogus_key"),
    "config list": (
        ("-c", "cfg/cl.yaml"),
        "-c cfg/cl.yaml: model list.yaml: expected a mapping of model's keys (found a list)",
    ),
}


# the section files drawn, and a folder given as one
FILES = {
    "c2/": "",
    "cfg/m.yaml": "encoder: bilstm\nhidden_dim: 0\n",
    "cfg/t.yaml": "bogus_key: 1\n",
    "cfg/list.yaml": "- a\n- b\n",
    "cfg/empty.yaml": "",
    "cfg/bad.yaml": "max_steps: [1\n",
    "cfg/c.yaml": "trainer: t.yaml\n",
    "cfg/cl.yaml": "model: list.yaml\n",
}


def fit_line(out: str, data: str, section: str | None, extra: bool, value: bool) -> list[str]:
    """fit's words with the problems drawn; the encoder typed unless m.yaml names it."""
    line = ["fit", *(["extra"] if extra else []), "--task", "trec", "--out", out]
    line += [] if section == "value" else ["--encoder", "bilstm"]
    line += [] if data == "missing" else ["--data-dir", data]
    line += [*SECTIONS[section][0]] if section else []
    return line + ([*VALUE[0]] if value else [])


@drawn(30)
@given(
    out=st.sampled_from(list(OUTS)),
    data=st.sampled_from(list(DATA)),
    section=st.sampled_from([None, *SECTIONS]),
    extra=st.booleans(),
    value=st.booleans(),
)
def test_fit_names_every_problem_in_one_refusal(
    out: str,
    data: str,
    section: str | None,
    extra: bool,
    value: bool,
    trec_dir: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    expected = [fragment for fragment in (OUTS[out], DATA[data]) if fragment]
    expected += [SECTIONS[section][1]] if section else []
    expected += [EXTRA[1]] if extra else []
    expected += [VALUE[1]] if value else []
    if not expected:
        return  # a good command line: it would train
    line = fit_line(out, data, section, extra, value)
    with scratch(trec_dir, FILES) as root:
        err = refused(root, line, capsys)
    lines = err.splitlines()
    of_words = bool(section or extra or value) or data == "missing"
    assert (lines[-1] == pointer("fit")) == of_words, (line, lines)
    said = [text.removeprefix("sanbench fit: ") for text in lines[: -1 if of_words else None]]
    for fragment in expected:
        assert sum(fragment in text for text in said) == 1, (line, fragment, lines)
    assert len(said) == len(expected), (line, lines)  # no other line


@pytest.mark.parametrize("section", list(SECTIONS))
def test_fit_names_each_section_file_beside_every_other_problem(
    section: str, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = fit_line("userdir", "glove", section, extra=True, value=True)
    expected = [OUTS["userdir"], DATA["glove"], SECTIONS[section][1], EXTRA[1], VALUE[1]]
    with scratch(trec_dir, FILES) as root:
        err = refused(root, line, capsys)
    said = [text.removeprefix("sanbench fit: ") for text in err.splitlines()[:-1]]
    for fragment in expected:
        assert sum(fragment in text for text in said) == 1, (line, fragment, err)
    assert len(said) == len(expected), (line, err)


@pytest.mark.parametrize("given", ["--model.hidden_dim", "--model.hidden_dim="])
def test_a_files_value_a_later_flag_sets_is_not_judged(
    given: str, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--model m.yaml --model.hidden_dim 5`` (m.yaml: ``hidden_dim: 0``): the later flag
    wins, as --help says, so the file's 0 is not refused; it was, said twice (outside check
    6z item 5). The fit is refused only for its own ``--trainer.max_steps 0``."""
    flag = [f"{given}5"] if given.endswith("=") else [given, "5"]
    line = ["fit", "--task", "trec", "--data-dir", "trec", "--out", "new", "--model"]
    line += ["cfg/m.yaml", *flag, *VALUE[0]]
    with scratch(trec_dir, FILES) as root:
        lines = refused(root, line, capsys).splitlines()
    assert len(lines) == 2 and VALUE[1] in lines[0] and lines[1] == pointer("fit"), lines


# each source of model.hidden_dim: its words and its refusal's line, of a good value (7) and of
# a refused one (0, -1); files in cfg/ (hidden_files writes them)
HIDDEN = {
    "flag": (("--model.hidden_dim", "7"), ("--model.hidden_dim", "-1"), "--model.hidden_dim -1: "),
    "file": (("--model", "cfg/h7.yaml"), ("--model", "cfg/h0.yaml"), "--model cfg/h0.yaml: hid"),
    "config": (("-c", "cfg/c7.yaml"), ("-c", "cfg/c0.yaml"), "-c cfg/c0.yaml: model.hidden_dim 0"),
    "config file": (("-c", "cfg/f7.yaml"), ("-c", "cfg/f0.yaml"), "-c cfg/f0.yaml: model h0.yaml"),
}
BATCH = (("--data.batch_size", "0"), "--data.batch_size 0: expected a positive integer")


def hidden_files(cfg: Path) -> None:
    """The files of :data:`HIDDEN` in ``cfg``."""
    for value in (0, 7):
        (cfg / f"h{value}.yaml").write_text(f"hidden_dim: {value}\n")
        (cfg / f"c{value}.yaml").write_text(f"model: {{hidden_dim: {value}}}\n")
        (cfg / f"f{value}.yaml").write_text(f"model: h{value}.yaml\n")


@drawn(40)
@given(
    order=st.permutations(list(HIDDEN)).flatmap(
        lambda kinds: st.integers(1, len(kinds)).map(lambda n: kinds[:n])
    ),
    valid=st.lists(st.booleans(), min_size=4, max_size=4),
)
@example(order=["config", "flag"], valid=[False, True])  # 7z item 1
@example(order=["config file", "flag"], valid=[False, True])  # 7z item 1, model: m.yaml
@example(order=["flag", "file"], valid=[True, False])  # 7z item 2
@example(order=["file", "flag"], valid=[False, False])  # 7z item 3
def test_the_last_value_given_wins_and_alone_is_judged(
    order: list[str], valid: list[bool], trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``model.hidden_dim`` given by a flag, a section's file, a ``--config`` file and a
    ``--config`` file's section file, in any order, each good or refused: the last one wins (as
    --help says), so only its value is judged, said once; an earlier one is never judged nor
    named (outside check 7z items 1-3: a config's 0 was named as a later flag's good 7, a file's
    0 after a flag said twice, a later refused flag said beside the file's 0)."""
    line = ["fit", "--task", "trec", "--encoder", "bilstm", "--data-dir", "trec", "--out", "new"]
    for kind, good in zip(order, valid, strict=False):
        line += [*HIDDEN[kind][0 if good else 1]]
    line += [*BATCH[0]]
    last_good = valid[len(order) - 1]
    expected = ([] if last_good else [HIDDEN[order[-1]][2]]) + [BATCH[1]]
    with scratch(trec_dir, FILES) as root:
        hidden_files(root / "cfg")
        lines = refused(root, line, capsys).splitlines()
    said = [text.removeprefix("sanbench fit: ") for text in lines[:-1]]
    assert lines[-1] == pointer("fit"), (line, lines)
    for fragment in expected:
        assert sum(fragment in text for text in said) == 1, (line, fragment, lines)
    assert len(said) == len(expected), (line, lines)


# a --config file's section of no such shape: its text, its line (outside check 8z item 3)
SHAPES = {
    "model": ("model: 5\n", "--config cfg/s.yaml: model 5: expected a mapping"),
    "trainer": ("trainer: 5\n", "--config cfg/s.yaml: trainer 5: expected a mapping"),
    "data": ("data: [a]\n", "--config cfg/s.yaml: data [a]: expected a mapping"),
    "optimizer": (
        "optimizer: 7\n",
        "--config cfg/s.yaml: optimizer 7: expected a mapping or an Optimizer class by name",
    ),
}


@pytest.mark.parametrize("section", list(SHAPES))
@pytest.mark.parametrize("first", [True, False])
def test_a_config_files_section_of_no_such_shape_is_named(
    section: str, first: bool, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``model: 5`` (``trainer: 5``, ``data: [a]``, ``optimizer: 7``) in a ``--config`` file
    before or after the flags is named as suite names it, beside the other problems, exit 2,
    nothing created (outside check 8z item 3: before the flags it trained at the task's full
    budget; after them it said a false ``--encoder is required``)."""
    text, expected = SHAPES[section]
    flags = ["--task", "trec", "--encoder", "bilstm", "--data-dir", "trec", "--out", "new"]
    config = ["--config", "cfg/s.yaml"]
    line = ["fit", *(config + flags if first else flags + config), *VALUE[0]]
    with scratch(trec_dir, {"cfg/s.yaml": text}) as root:
        lines = refused(root, line, capsys).splitlines()
    said = [text.removeprefix("sanbench fit: ") for text in lines[:-1]]
    assert lines[-1] == pointer("fit"), (line, lines)
    assert sum(text.startswith(expected) for text in said) == 1, lines
    assert sum(text.startswith(VALUE[1]) for text in said) == 1, lines
    assert len(said) == 2, lines


@pytest.mark.parametrize("data_dir", [True, False])
def test_a_config_files_mapping_for_a_path_is_named_as_written(
    data_dir: bool, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``data: {data_dir: {a: 1}}`` in a ``--config`` file is named as the file writes it,
    beside the file's ``hidden_dim: 0``, with no false ``--data-dir is required``, with or
    without an earlier ``--data-dir`` (outside check 8z item 4)."""
    text = "data: {data_dir: {a: 1}}\nmodel: {hidden_dim: 0}\n"
    line = ["fit", "--task", "trec", "--encoder", "bilstm", "--out", "new"]
    line += ["--data-dir", "trec"] if data_dir else []
    with scratch(trec_dir, {"cfg/d.yaml": text}) as root:
        lines = refused(root, [*line, "--config", "cfg/d.yaml"], capsys).splitlines()
    assert lines == [
        "sanbench fit: --config cfg/d.yaml: data.data_dir {a: 1}: expected a string or a path",
        "sanbench fit: --config cfg/d.yaml: model.hidden_dim 0: expected a positive integer",
        pointer("fit"),
    ]


@pytest.mark.parametrize("later", ["model: m2.yaml\n", "model: {dropout: 0.1}\n"])
def test_a_later_config_files_section_keeps_an_earlier_files_value_named(
    later: str, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A later ``--config`` file's ``model`` section (a section's file, a mapping) sets only
    its own keys: an earlier file's ``model.hidden_dim 0`` still applies and is named as that
    file's, not as a flag nobody typed (outside check 8z item 1)."""
    files = {
        "cfg/c1.yaml": "model: {hidden_dim: 0, dropout: 0.2}\n",
        "cfg/m2.yaml": "dropout: 0.1\n",
        "cfg/cm.yaml": later,
    }
    line = ["fit", "--task", "trec", "--encoder", "bilstm", "--data-dir", "trec", "--out", "new"]
    line += ["--config", "cfg/c1.yaml", "--config", "cfg/cm.yaml"]
    with scratch(trec_dir, files) as root:
        lines = refused(root, line, capsys).splitlines()
    assert lines == [
        "sanbench fit: --config cfg/c1.yaml: model.hidden_dim 0: expected a positive integer",
        pointer("fit"),
    ]
