"""One refusal of every problem of a command line, drawn in combinations (outside check 5z items
4, 5, 11): a refused value, each kind of --out that cannot be one, a data folder without the
task's files or not there, a refused section file, a leftover word; each problem's line is
said, no other line, exit 2, nothing created, and the pointer to the help only when a problem
of the words is among them (harness/cli.py's rule)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from harness.cli import main
from tests.harness.problem_lines import pointer, problem_lines
from tests.harness.refusal_scratch import drawn, refused, said_once, scratch

# each --out kind: its words' fragment, the line's fragment (None: a good --out)
OUTS = {
    "new": None,
    "afile": "--out afile is a file",
    "userdir": "--out userdir holds notes.txt",
    "/proc/x": "--out /proc/x: cannot be made",
    "loop": "a loop of symlinks",
}
# each --data-dir kind: the line's fragment (None: TREC's files)
DATA = {
    "trec": None,
    "glove": "expected the files of task 'trec'",
    "/nonexist": "--data-dir /nonexist: no such folder",
    "missing": "--data-dir is required",
}
# each command's words but --out and --data-dir, and a value it refuses: its words, its line's
BASE = {
    "reproduce": ("reproduce", "--tasks", "trec", "--encoders", "bilstm"),
    "tune": (
        "tune",
        "--study",
        "dropout",
        "--task",
        "trec",
        "--encoder",
        "bilstm",
        "--trials",
        "2",
    ),
    "suite": ("suite", "--tasks", "trec", "--encoders", "bilstm", "--max-steps", "3"),
}
VALUES = {
    "reproduce": (("--max-length", "0"), "--max-length 0: expected a positive number of tokens"),
    "tune": (("--trials", "0"), "--trials 0: expected a positive integer"),
    "suite": (("--seeds", "0"), "--seeds 0: expected a positive integer"),
}
# the other problems of the words: its words, its line's fragment
SECTION = (("--config", "cfg/c.yaml"), "trainer t.yaml: unknown key bogus_key")
EXTRA = (("extra",), "extra word extra")
# a --config file's value, said as the file writes it, never as a flag (outside check 7z item 4)
CONFIG_VALUE = (
    ("--config", "cfg/v.yaml"),
    "--config cfg/v.yaml: encoding utf-99: unknown encoding",
)
# a runs' fit value, judged beside a --config file's section file's unknown key (brief 5k)
FIT_VALUE = (("--data.batch_size", "0"), "--data.batch_size 0: expected a positive integer")


# the files of the section files and config values drawn
FILES = {
    "cfg/t.yaml": "bogus_key: 1\n",
    "cfg/c.yaml": "trainer: t.yaml\n",
    "cfg/v.yaml": "encoding: utf-99\n",
}


@drawn(40)
@given(
    command=st.sampled_from(list(BASE)),
    out=st.sampled_from(list(OUTS)),
    data=st.sampled_from(list(DATA)),
    words=st.sets(st.sampled_from(["value", "section", "extra", "fit", "config"])),
)
def test_suite_tune_and_reproduce_name_every_problem_in_one_refusal(
    command: str,
    out: str,
    data: str,
    words: set[str],
    trec_dir: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if command == "reproduce":  # its runs' fit values: the preset's, not --data.*
        words = words - {"fit"}
    problems = {"value": VALUES[command], "section": SECTION, "extra": EXTRA, "fit": FIT_VALUE}
    problems["config"] = CONFIG_VALUE
    expected = [fragment for fragment in (OUTS[out], DATA[data]) if fragment]
    expected += [problems[word][1] for word in sorted(words)]
    if not expected:
        return  # a good command line: it would train
    line = [*BASE[command], "--out", out]
    line += [] if data == "missing" else ["--data-dir", data]
    for word in sorted(words):
        line += problems[word][0]
    with scratch(trec_dir, FILES) as root:
        err = refused(root, line, capsys)
    lines = err.splitlines()
    of_words = bool(words) or data == "missing"
    assert (lines[-1] == pointer(command)) == of_words, (line, lines)
    said = lines[:-1] if of_words else lines
    for fragment in expected:
        assert sum(fragment in text for text in said) == 1, (line, fragment, lines)
    assert len(said) == len(expected), (line, lines)  # no other line


# --tables-only beside a refused --out or value: the --out's own words, never the manifest's
# line for an --out refused (item 11); an option it does not take, one "not taken" line each,
# also a refused value's (item 12)
TABLES_ONLY = [
    ("--out afile --optimizer.lr 0.1", ["--optimizer.lr 0.1: not taken", "--out afile is a"]),
    ("--out userdir --max-length 0", ["--max-length 0: not taken", "holds notes.txt"]),
    ("--out loop --preset bogus", ["--preset bogus: not taken", "a loop of symlinks"]),
    (
        "--out new --max-length 0 --encoding bogus",
        ["--max-length 0: not taken", "--encoding bogus: not taken", "manifest.json not found"],
    ),
]


@pytest.mark.parametrize(("words", "fragments"), TABLES_ONLY)
def test_tables_only_says_the_outs_problem_and_each_option_not_taken(
    words: str, fragments: list[str], trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with scratch(trec_dir, FILES) as root:
        lines = refused(root, ["reproduce", "--tables-only", *words.split()], capsys).splitlines()
    assert lines[-1] == pointer("reproduce"), lines
    for fragment in fragments:
        assert sum(fragment in line for line in lines) == 1, (fragment, lines)
    assert len(lines) == len(fragments) + 1, lines  # a value not taken: that line alone
    assert "expected one of" not in str(lines)
    assert ("manifest.json" in str(lines)) == ("manifest.json not found" in fragments), lines


GLOVE_LINE = "glove: expected the files of task 'trec'"
SUITE = "suite --tasks trec --encoders bilstm --max-steps 3 --out new"
TUNE = "tune --study dropout --task trec --encoder bilstm --trials 2"
# the data folder beside a refused value (items 6, 7), a --data-dir beside an --out (item 8)
BESIDE = [
    (f"{SUITE} --data-dir glove --seeds 0", ["--seeds 0: expected", GLOVE_LINE]),
    (
        "suite --tasks trec --encoders bilstmm --out loop --data-dir glove",
        ["--encoders bilstmm: expected one of", "a loop of symlinks", GLOVE_LINE],
    ),
    (f"{SUITE} --data-dir glove --model.dropout 2", ["--model.dropout 2: expected", GLOVE_LINE]),
    (f"{SUITE} --config cfg/s.yaml", ["model.dropout 2: expected", GLOVE_LINE]),
    (f"{TUNE} --out new --data-dir glove --data.batch_size 0", ["batch_size 0", GLOVE_LINE]),
    (
        f"{TUNE} --out new --data-dir glove --trainer.gradient_clip_val -1",
        ["--trainer.gradient_clip_val -1: expected", GLOVE_LINE],
    ),
    (
        "tune --study dropout --task trec --encoder bilstmm --out new --data-dir glove",
        ["--encoder bilstmm: expected one of", GLOVE_LINE],
    ),
    (f"{TUNE} --data-dir /nonexist --out userdir", ["/nonexist: no such folder", "notes.txt"]),
    (f"{TUNE} --out userdir", ["--data-dir is required", "holds notes.txt"]),
]


@pytest.mark.parametrize(("words", "fragments"), BESIDE)
def test_the_data_folder_is_said_beside_every_other_problem(
    words: str, fragments: list[str], trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {**FILES, "cfg/s.yaml": "data_dir: ../glove\nmodel: {dropout: 2}\n"}  # beside it
    with scratch(trec_dir, files) as root:
        err = refused(root, words.split(), capsys)
    lines = err.splitlines()
    said = lines[:-1] if lines[-1].startswith("(see ") else lines
    assert (lines[-1] == pointer(words.split()[0])) == ("/nonexist" not in words), lines
    said_once(said, fragments)


@pytest.mark.parametrize("command", list(BASE))
def test_a_value_of_a_section_file_in_a_config_file_is_named_by_that_file(
    command: str, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 12: ``model: m.yaml`` in a --config file, m.yaml holding ``hidden_dim: 0``, was
    said as a flag never typed (``--model.hidden_dim 0``); now as fit says it."""
    files = {"cfg/m.yaml": "encoder: bilstm\nhidden_dim: 0\n", "cfg/cm.yaml": "model: m.yaml\n"}
    words = [*BASE[command], "--config", "cfg/cm.yaml", "--data-dir", "trec", "--out", "new"]
    with scratch(trec_dir, files) as root:
        lines = problem_lines(refused(root, words, capsys), command)
    said = "--config cfg/cm.yaml: model m.yaml: hidden_dim 0: expected a positive integer"
    assert lines == [f"sanbench {command}: {said}"]


def test_a_config_files_missing_section_file_is_said_once_by_fit(
    trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """fit's line of a -c file's missing section file, not jsonargparse's "Unable to load
    config 'mm.yaml'" beside it (brief 5k), beside the other values' problems."""
    line = "fit --task trec --encoder bilstm --data-dir trec --out new -c cfg/f.yaml"
    with scratch(trec_dir, {"cfg/f.yaml": "model: mm.yaml\n"}) as root:
        lines = refused(root, [*line.split(), "--trainer.max_steps", "0"], capsys).splitlines()
    assert lines[-1] == pointer("fit"), lines
    assert "model mm.yaml: no such file: cfg/mm.yaml" in lines[0], lines
    assert "--trainer.max_steps 0" in lines[1], lines
    assert len(lines) == 3, lines


def test_a_typed_width_replaces_the_presets_width_scale(
    trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Outside check 7z item 8: ``reproduce --model.hidden_dim 4`` was refused with
    "--model.encoder_options / --model.hidden_dim: model.hidden_dim and model.width_scale
    exclude each other", options nobody typed (the cpu preset's width scale): a width given
    replaces the preset's scale, as any given value replaces the preset's."""
    from harness.reproduce.preset import CPU_PRESET
    from harness.reproduce.reproduce import preset_and_given

    line = [*BASE["reproduce"], "--data-dir", "trec", "--out", "new"]
    with scratch(trec_dir, FILES) as root:
        words = [*line, "--model.hidden_dim", "4", "--threads", "0"]
        lines = refused(root, words, capsys).splitlines()
    said = "sanbench reproduce: --threads 0: expected a positive integer"
    assert lines == [said, pointer("reproduce")], lines
    overrides = preset_and_given(CPU_PRESET, {"model.hidden_dim": 4})
    assert overrides["model.hidden_dim"] == 4 and "model.width_scale" not in overrides


def test_tables_only_says_a_refused_value_not_taken_once(
    trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 9: ``reproduce --tables-only --threads 0`` said two lines for one typed flag
    (expected a positive integer, and not taken with --tables-only): the second alone."""
    with scratch(trec_dir, FILES) as root:
        words = ["reproduce", "--tables-only", "--out", "afile", "--threads", "0"]
        lines = problem_lines(refused(root, words, capsys), "reproduce")
    assert len(lines) == 2 and "--threads 0: not taken with --tables-only" in lines[0], lines


# a config file's model section, and a later one's (a second --config, a section file)
EARLIER_MODEL = "model: {hidden_dim: 12, dropout: 0.2}\n"
LATER_MODEL = {
    "second config": (("--config", "cfg/d.yaml"), {"cfg/d.yaml": "model: {dropout: 0.1}\n"}),
    "section file": (("--model", "cfg/m2.yaml"), {"cfg/m2.yaml": "dropout: 0.1\n"}),
}


@pytest.mark.parametrize("later", list(LATER_MODEL))
@pytest.mark.parametrize("command", list(BASE))
def test_a_later_model_section_merges_key_by_key_as_fits(
    command: str, later: str, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Outside check 8z item 2: a later ``model:`` section (a second --config, ``--model
    m2.yaml``) replaced the earlier --config's whole section in suite, tune and reproduce
    (hidden_dim 12 lost; an earlier hidden_dim 0 trained, unjudged); fit merges key by key.
    The printed config's model keys are fit's, and hidden_dim 0 is refused, named by its file."""
    from harness.cli import main

    words, files = LATER_MODEL[later]
    files = {**files, "cfg/s.yaml": EARLIER_MODEL, "cfg/s0.yaml": "model: {hidden_dim: 0}\n"}
    tail = ["--data-dir", "trec", "--out", "new"]
    printed = {}
    with scratch(trec_dir, files) as root:
        runs = [*BASE[command], "--config", "cfg/s.yaml", *words, *tail]
        fit = ["fit", "--task", "trec", "--encoder", "bilstm", *runs[len(BASE[command]) :]]
        for name, line in (("runs", runs), ("fit", fit)):
            capsys.readouterr()
            assert main([*line, "--print_config"]) == 0, line
            printed[name] = yaml.safe_load(capsys.readouterr().out)["model"]
        zero = [*BASE[command], "--config", "cfg/s0.yaml", *words, *tail]
        lines = problem_lines(refused(root, zero, capsys), command)
    assert printed["runs"] == {"hidden_dim": 12, "dropout": 0.1}, printed
    assert {key: printed["fit"][key] for key in printed["runs"]} == printed["runs"], printed
    said = "--config cfg/s0.yaml: model.hidden_dim 0: expected a positive integer"
    assert lines == [f"sanbench {command}: {said}"], lines


@pytest.mark.parametrize("command", list(BASE))
def test_a_config_files_data_encoding_is_named_as_written(
    command: str, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Outside check 8z item 5: a --config file's ``data: {encoding: utf-99}`` was said as
    ``--encoding utf-99``, a flag never typed (suite, reproduce); now as fit says it."""
    words = [*BASE[command], "--config", "cfg/e.yaml", "--data-dir", "trec", "--out", "new"]
    with scratch(trec_dir, {"cfg/e.yaml": "data: {encoding: utf-99}\n"}) as root:
        lines = problem_lines(refused(root, words, capsys), command)
    said = "--config cfg/e.yaml: data.encoding utf-99: unknown encoding"
    assert len(lines) == 1 and lines[0].startswith(f"sanbench {command}: {said}"), lines


# the width and the width scale given both: the words, the line said (outside check 8z item 12)
WIDTHS = [
    (
        ["--model.hidden_dim", "4", "--model.width_scale", "2"],
        "--model.hidden_dim 4 and --model.width_scale 2 exclude each other: give one",
    ),
    (
        ["--config", "cfg/w.yaml", "--model.hidden_dim", "4"],
        "--model.hidden_dim 4 and --config cfg/w.yaml: model.width_scale 2 exclude each other: "
        "give one",
    ),
    (
        ["--config", "cfg/h.yaml", "--config", "cfg/w.yaml"],
        "--config cfg/h.yaml: model.hidden_dim 4 and --config cfg/w.yaml: model.width_scale 2 "
        "exclude each other: give one",
    ),
]


@pytest.mark.parametrize("command", ["reproduce", "fit"])
@pytest.mark.parametrize(("words", "said"), WIDTHS)
def test_a_width_and_a_width_scale_are_named_as_given(
    command: str, words: list[str], said: str, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 12: a width and a width scale given both were named ``--model.encoder_options /
    --model.hidden_dim``, options nobody typed (and reproduce's second --config dropped the
    first's width, refusing nothing); now as typed or written, in fit too."""
    files = {"cfg/w.yaml": "model: {width_scale: 2}\n", "cfg/h.yaml": "model: {hidden_dim: 4}\n"}
    head = {"reproduce": BASE["reproduce"], "fit": ("fit", "--task", "trec", "--encoder", "bilstm")}
    line = [*head[command], "--data-dir", "trec", "--out", "new", *words]
    with scratch(trec_dir, files) as root:
        lines = problem_lines(refused(root, line, capsys), command)
    assert lines == [f"sanbench {command}: {said}"], lines


def test_a_width_in_an_encoder_options_mapping_is_named_as_typed(
    trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Outside check 10z item 8: ``-c w.yaml`` (width_scale 2) and ``--model.encoder_options
    '{hidden_dim: 4}'`` named ``--model.encoder_options.hidden_dim 4``, which nobody typed."""
    line = ["fit", "--task", "trec", "--encoder", "bilstm", "--data-dir", "trec", "--out", "new"]
    line += ["--config", "cfg/w.yaml", "--model.encoder_options", "{hidden_dim: 4}"]
    with scratch(trec_dir, {"cfg/w.yaml": "model: {width_scale: 2}\n"}) as root:
        lines = problem_lines(refused(root, line, capsys), "fit")
    said = "--config cfg/w.yaml: model.width_scale 2 and --model.encoder_options {hidden_dim: 4}"
    assert lines == [f"sanbench fit: {said} exclude each other: give one"], lines


# section files of every kind of problem (outside check at f71dacf, issue 56 items 2-4)
SECTION_FILES_BROKEN = {
    "c/tb.yaml": "bogus: 1\nmax_stepz: 2\n",
    "c/ml.yaml": "- a\n- b\n",
    "c/bad.yaml": "a: [\n",
    "c/emp.yaml": "",
}
TRAINER_LINES = [
    "--trainer c/tb.yaml: unknown key bogus",
    "--trainer c/tb.yaml: unknown key max_stepz (did you mean max_steps?)",
]


@pytest.mark.parametrize("command", ["suite", "reproduce", "profile"])
def test_print_config_refuses_a_config_files_unknown_key(
    command: str, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``-c`` holding ``bogus: 5``: the run refuses the key; --print_config printed the rest
    (exit 0, the key dropped) until 2026-12-01."""
    with scratch(trec_dir, {"cfg/b.yaml": "bogus: 5\n"}) as root:
        err = refused(root, [command, "-c", "cfg/b.yaml", "--print_config"], capsys)
    lines = problem_lines(err, command)
    assert f"sanbench {command}: -c cfg/b.yaml: unknown key bogus" in lines, lines


@pytest.mark.parametrize("command", ["suite", "tune", "reproduce"])
def test_every_section_files_problem_is_said_in_fits_words(
    command: str, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Four section files, each refused, --out and --data-dir left out: the trainer file's keys
    were said as flags never typed (``unknown option --trainer.bogus``) by suite, and an empty
    ``--run`` file was ``expected a mapping``, not ``empty``."""
    words = ["--trainer", "c/tb.yaml", "--model", "c/ml.yaml", "--data", "c/bad.yaml"]
    words += ["--run", "c/emp.yaml"]
    with scratch(trec_dir, SECTION_FILES_BROKEN) as root:
        lines = problem_lines(refused(root, [*BASE[command], *words], capsys), command)
    said = [line.removeprefix(f"sanbench {command}: ") for line in lines]
    for line in [*TRAINER_LINES, "--run c/emp.yaml: empty; expected a mapping of run's keys"]:
        assert line in said, said
    assert not [line for line in said if "unknown option" in line], said


@pytest.mark.parametrize(
    ("option", "name", "said"),
    [
        ("--run", "c/emp.yaml", "--run c/emp.yaml: empty; expected a mapping of run's keys"),
        ("--run", "c/ml.yaml", "--run c/ml.yaml: expected a mapping of run's keys (found a list)"),
        ("--run", "c/bad.yaml", "--run c/bad.yaml: not YAML (line 2: "),
        ("--run", "c/tb.yaml", "--run c/tb.yaml: unknown key bogus"),
        ("--optimizer", "c/emp.yaml", "--optimizer c/emp.yaml: empty; expected a mapping"),
        ("--lr_scheduler", "c/emp.yaml", "--lr_scheduler c/emp.yaml: empty; expected a mapping"),
        ("--optimizer", "c/ml.yaml", "--optimizer c/ml.yaml: expected a mapping"),
    ],
)
def test_fit_names_a_section_files_problem_in_its_words(
    option: str, name: str, said: str, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """fit's ``--run FILE`` was refused in jsonargparse's text (``Unable to load config``,
    twice), an empty ``--optimizer`` file was taken as none and a training started; now each
    is refused as ``--model FILE``'s, before any data is read."""
    words = ["fit", "--task", "trec", "--encoder", "bilstm", "--data-dir", "trec", "--out", "new"]
    with scratch(trec_dir, SECTION_FILES_BROKEN) as root:
        lines = problem_lines(refused(root, [*words, option, name], capsys), "fit")
    assert [line for line in lines if line.startswith(f"sanbench fit: {said}")], lines
    assert not [line for line in lines if "Unable to load" in line or "Group" in line], lines


FIT_TREC = ["fit", "--task", "trec", "--data-dir", "trec"]


@pytest.mark.parametrize(
    ("words", "said"),
    [
        (["--model.dropout", "7"], "--model.dropout 7: expected a number in [0, 1]"),
        (["--trainer", "c/t.yaml"], "--trainer c/t.yaml: unknown key max_epochz"),
    ],
)
def test_fit_print_config_without_out_says_only_the_refused_value(
    words: list[str], said: str, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--print_config needs no --out (README), yet a refused value beside it was said with
    ``--out is required: the run folder`` until 2026-12-01 (issue 56)."""
    files = {"c/t.yaml": "max_epochz: 1\n"}
    with scratch(trec_dir, files) as root:
        err = refused(root, [*FIT_TREC, "--encoder", "bilstm", *words, "--print_config"], capsys)
    lines = [line.removeprefix("sanbench fit: ") for line in problem_lines(err, "fit")]
    assert len(lines) == 1 and lines[0].startswith(said), lines


@pytest.mark.parametrize("printing", [[], ["--print_config"]])
@pytest.mark.parametrize(
    ("option", "mapping", "said"),
    [
        ("--model", "{encoder: bilstm, bogus: 2}", "unknown key bogus"),
        ("--run", "{compile: true, bogus: 1}", "unknown key bogus"),
        ("--model", "{encoder: bilstm, hidden_dim: -1}", "hidden_dim -1: expected a positive"),
    ],
)
def test_fit_names_an_inline_sections_problem_as_a_section_files(
    option: str,
    mapping: str,
    said: str,
    printing: list[str],
    trec_dir: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--model '{encoder: bilstm, bogus: 2}'`` was refused in jsonargparse's text (``Group
    'model' does not accept option 'bogus'``), and a refused key of the mapping left its
    ``encoder`` out too (``--encoder is required``) until 2026-12-01 (issue 56): now each is
    named as a section file's is, the mapping as typed, the rest of it judged still."""
    encoder = [] if option == "--model" else ["--encoder", "bilstm"]
    words = [*FIT_TREC, *encoder, "--out", "new", option, mapping, *printing]
    with scratch(trec_dir, {}) as root:
        lines = problem_lines(refused(root, words, capsys), "fit")
    said_lines = [line.removeprefix("sanbench fit: ") for line in lines]
    assert len(said_lines) == 1 and said_lines[0].startswith(f"{option} {mapping}: {said}"), lines


def test_fit_names_a_run_files_yes_or_no_as_written(
    trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ``--run`` file's ``ema_decay: no`` was named ``ema_decay False`` (Python's) by fit
    until 2026-12-01 (issue 56); suite, tune and fit's -c say ``ema_decay no``."""
    words = [*FIT_TREC, "--encoder", "bilstm", "--out", "new", "--run", "c/r2.yaml"]
    with scratch(trec_dir, {"c/r2.yaml": "ema_decay: no\ncompile: 5\n"}) as root:
        lines = problem_lines(refused(root, words, capsys), "fit")
    assert "sanbench fit: --run c/r2.yaml: ema_decay no: expected a number in [0, 1]" in lines


def test_suite_names_an_inline_sections_unknown_key_as_typed(
    trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """suite said ``--model {hidden_dim: 8, bogus: 2}: unknown key model.bogus (did you mean
    model.eps?)`` until 2026-12-01 (issue 56): the key as the mapping writes it, as a section
    file's (``--model m.yaml: unknown key bogus``)."""
    words = [*BASE["suite"], "--data-dir", "trec", "--out", "new"]
    with scratch(trec_dir, {}) as root:
        err = refused(root, [*words, "--model", "{hidden_dim: 8, bogus: 2}"], capsys)
    lines = problem_lines(err, "suite")
    assert lines == ["sanbench suite: --model {hidden_dim: 8, bogus: 2}: unknown key bogus"]


# a config file whose data section names the folder (beside it: an empty one), a misspelt key
# and a refused model value (issue 56, outside check at f9772df)
DATA_SECTION = {
    "empty/": "",
    "cfg/d.yaml": "data:\n  data_dir: ../empty\n  batch_sise: 3\nmodel:\n  dropout: 7\n",
}
SECTION_WORDS = {
    "tune": ["tune", "--study", "block-length", "--task", "trec", "--encoder", "bi_blosan"],
    "reproduce": ["reproduce", "--tasks", "trec", "--encoders", "bilstm"],
}
SECTION_LINES = [
    "-c cfg/d.yaml: unknown key data.batch_sise (did you mean data.batch_size?)",
    "-c cfg/d.yaml: model.dropout 7: expected a number in [0, 1]",
]
EMPTY_FOLDER = "-c cfg/d.yaml: data.data_dir ../empty: expected the files of task 'trec'"
REFUSED_OPTION = {"tune": ["--trials", "0"], "reproduce": ["--max-length", "0"]}


@pytest.mark.parametrize(("printing", "refusing"), [(False, False), (False, True), (True, False)])
@pytest.mark.parametrize("command", list(SECTION_WORDS))
def test_tune_and_reproduce_take_a_config_files_data_folder_as_suite_does(
    command: str, printing: bool, refusing: bool, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``data: {data_dir: D}`` gives the folder, as fit and suite take it: until 2026-12-01
    tune and reproduce said ``--data-dir is required`` (their --print_config printed the file,
    exit 0), tune beside the misspelt key alone. Now every problem at once: the run's the
    folder's too, --print_config's the values' alone (the folder is the run's)."""
    words = [*SECTION_WORDS[command], "-c", "cfg/d.yaml", "--out", "new"]
    words += REFUSED_OPTION[command] if refusing else []
    words += ["--print_config"] if printing else []
    with scratch(trec_dir, DATA_SECTION) as root:
        lines = problem_lines(refused(root, words, capsys), command)
    said = [line.removeprefix(f"sanbench {command}: ") for line in lines]
    assert not [line for line in said if "--data-dir is required" in line], said
    for line in SECTION_LINES:
        assert line in said, said
    assert any(line.startswith(EMPTY_FOLDER) for line in said) != printing, said


@pytest.mark.parametrize(
    ("words", "said"),
    [
        (["predict", "--out", "p.npy"], "--out p.npy: expected a .csv file name"),
        (["predict", "--out", "p.csv", "--batch_size", "0"], "--batch_size 0: expected a posi"),
        (["predict", "--out", "p.csv", "--encoding", "bogus-enc"], "--encoding bogus-enc: unkn"),
        (["encode", "--out", "e.npy", "--batch_size", "0"], "--batch_size 0: expected a posi"),
        (["encode", "--out", "e.csv"], "--out e.csv: expected a .npy file name"),
    ],
)
def test_predict_and_encode_print_config_refuses_the_values_the_run_refuses(
    words: list[str], said: str, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Until 2026-12-01 their --print_config printed any value (exit 0) that the run refused;
    now it says the value's line alone: not the empty checkpoint, a file the run judges."""
    files = {"in.txt": "hi\n", "a.ckpt": ""}
    command = [words[0], "--ckpt", "a.ckpt", "--input", "in.txt", *words[1:], "--print_config"]
    with scratch(trec_dir, files) as root:
        lines = problem_lines(refused(root, command, capsys), words[0])
    assert len(lines) == 1 and lines[0].startswith(f"sanbench {words[0]}: {said}"), lines


MISSING_FOLDER = {
    "report": (["report", "nope", "--out", "site"], "unknown option --bogus (did you mean --out?)"),
    "data stats": (
        ["data", "stats", "--task", "trec", "--data-dir", "nope"],
        "unknown option --bogus",
    ),
}


@pytest.mark.parametrize("command", list(MISSING_FOLDER))
def test_print_config_leaves_a_missing_folder_to_the_run_and_says_an_unknown_option(
    command: str, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``report nope`` and ``data stats --data-dir nope``: --print_config said only ``nope: no
    such folder`` until 2026-12-01, an unknown option beside it unsaid; now the option alone,
    and without it the config is printed (a folder made later, as fit's --data-dir)."""
    words, unknown = MISSING_FOLDER[command]
    with scratch(trec_dir, {}) as root:
        err = refused(root, [*words, "--print_config", "--bogus", "1"], capsys)
        assert problem_lines(err, command) == [f"sanbench {command}: {unknown}"]
        assert main([*words, "--print_config"]) == 0
    assert "nope" in capsys.readouterr().out


def test_data_stats_print_config_says_the_values_beside_a_missing_folder(
    trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A refused value beside the missing folder: the value's line, not the folder's."""
    words = ["data", "stats", "--task", "trec", "--data-dir", "nope", "--encoding", "bad"]
    with scratch(trec_dir, {}) as root:
        lines = problem_lines(refused(root, [*words, "--print_config"], capsys), "data stats")
    assert [line for line in lines if "--encoding bad: unknown encoding" in line], lines
    assert not [line for line in lines if "nope" in line], lines
