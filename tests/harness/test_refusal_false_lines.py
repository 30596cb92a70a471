"""No false line and no hidden problem in a refusal (outside check 6z items 1, 6, 7, 8, 13):
a refused value beside the others' problems, each said once, exit 2, nothing created."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from tests.harness.problem_lines import problem_lines
from tests.harness.refusal_scratch import CFG, entries, scratch

SUITE = "suite --tasks trec --encoders bilstm --seeds 2 --out new"
TUNE = "tune --study dropout --task trec --encoder bilstm --trials 2 --out new"
DATA_VALUES = {
    "--max-length 0": "expected a positive number of tokens",
    "--encoding utf-99": "encoding utf-99: unknown encoding",
}


@pytest.mark.parametrize("base", [SUITE, TUNE])
@pytest.mark.parametrize("value", list(DATA_VALUES))
@pytest.mark.parametrize("config", [False, True])
def test_a_refused_data_value_says_no_false_data_dir_line_and_the_embeddings(
    base: str, value: str, config: bool, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 1: ``--max-length 0`` (or ``--encoding utf-99``) with a good --data-dir said no
    "--data-dir is required" (the refused part's stand-in had none), and hid a typed
    ``--embeddings`` that is not there; from a --config file alike."""
    command = base.split()[0]
    with scratch(trec_dir, CFG) as root:
        option, text = value.split()
        key = option.removeprefix("--").replace("-", "_")
        (root / "cfg" / "d.yaml").write_text(f"{key}: {text}\ndata_dir: ../trec\n")  # beside it
        words = ["--config", "cfg/d.yaml"] if config else [*value.split(), "--data-dir", "trec"]
        before = entries(root)
        line = [*base.split(), *words, "--embeddings", "/nonexist.txt"]
        assert main(line) == 2, line
        assert entries(root) == before
    lines = problem_lines(capsys.readouterr().err, command)
    assert not any("--data-dir" in text for text in lines), lines
    assert sum(DATA_VALUES[value] in text for text in lines) == 1, lines
    said = f"--config cfg/d.yaml: {key} {text}" if config else value  # as the file writes it
    assert sum(said in text for text in lines) == 1, lines
    assert sum("--embeddings /nonexist.txt: no such file" in text for text in lines) == 1, lines
    assert len(lines) == 2, lines


REPORT_OUTS = {
    "afile": "--out afile is a file",
    "userdir": "--out userdir holds index.html",
    "new": None,
}


@pytest.mark.parametrize("out", list(REPORT_OUTS))
@pytest.mark.parametrize("config", [False, True])
def test_report_says_its_out_beside_a_missing_run_folder(
    out: str, config: bool, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 6: ``report /nonexist --out afile`` named only the run folder."""
    with scratch(trec_dir, CFG) as root:
        (root / "userdir" / "index.html").write_text("mine\n")
        (root / "cfg" / "r.yaml").write_text(f"runs: [/nonexist]\nout: ../{out}\n")  # beside it
        words = ["--config", "cfg/r.yaml"] if config else ["/nonexist", "--out", out]
        before = entries(root)
        assert main(["report", *words]) == 2
        assert entries(root) == before
    lines = capsys.readouterr().err.splitlines()  # the filesystem's alone: no pointer
    expected = ["/nonexist: no such folder", *filter(None, [REPORT_OUTS[out]])]
    if config:  # a config file's out, as the file writes it (outside check 7z item 4)
        expected = [line.replace("--out ", "--config cfg/r.yaml: out ../") for line in expected]
    for fragment in expected:
        assert sum(fragment in line for line in lines) == 1, (fragment, lines)
    assert len(lines) == len(expected), lines


GLOVE_LINE = "glove: expected the files of task 'trec'"
STATS_BESIDE = [
    ("--encoding utf-99", ["--encoding utf-99: unknown encoding", GLOVE_LINE]),
    ("extra", ["extra word extra", GLOVE_LINE]),
    ("--layout kimm", ["--layout kimm: expected one of", GLOVE_LINE]),
]


@pytest.mark.parametrize(("words", "fragments"), STATS_BESIDE)
def test_data_stats_says_the_data_folder_beside_other_problems(
    words: str, fragments: list[str], trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 7: a --data-dir without the task's files was hidden by ``--encoding utf-99`` or an
    extra word (fit, suite and tune say it beside them)."""
    with scratch(trec_dir, CFG):
        line = ["data", "stats", "--task", "trec", "--data-dir", "glove", *words.split()]
        assert main(line) == 2
    lines = problem_lines(capsys.readouterr().err, "data stats")
    for fragment in fragments:
        assert sum(fragment in text for text in lines) == 1, (fragment, lines)
    assert len(lines) == len(fragments), lines


def test_data_stats_names_the_nearest_layout(
    trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 7: ``--layout kimm`` got argparse's "invalid choice" and no did-you-mean."""
    line = ["data", "stats", "--task", "trec", "--data-dir", str(trec_dir), "--layout", "kimm"]
    assert main(line) == 2
    lines = problem_lines(capsys.readouterr().err, "data stats")
    assert lines == [
        "sanbench data stats: --layout kimm: expected one of kim2014, sick, snli-jsonl, "
        "snli-txt, senteval (did you mean kim2014?)"
    ]


def test_profile_takes_a_list_of_lengths_in_a_config_file(
    trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 8: ``lengths: [8]`` in a --config file was refused alone ("expected a string"),
    hiding batch size 0, a ``disan2`` typo and the --out; a list is now read as ``8``."""
    from harness.command_parser import CommandParser, build
    from harness.profiling.options import ProfileOptions

    with scratch(trec_dir, CFG) as root:
        (root / "cfg" / "p.yaml").write_text("lengths: [8]\nbatch_size: 0\nencoders: disan2\n")
        before = entries(root)
        assert main(["profile", "--config", "cfg/p.yaml", "--out", "afile"]) == 2
        assert entries(root) == before
    lines = problem_lines(capsys.readouterr().err, "profile")
    fragments = ["batch_size 0: expected", "disan2: expected one of", "--out afile is a file"]
    for fragment in fragments:
        assert sum(fragment in text for text in lines) == 1, (fragment, lines)
    assert len(lines) == len(fragments), lines
    # a list is read as the comma list (command_parser.build)
    with scratch(trec_dir, CFG) as root:
        (root / "cfg" / "q.yaml").write_text("lengths: [8, 16]\npredict_lengths: [32]\n")
        parser = CommandParser("sanbench profile")
        parser.add_options(ProfileOptions)
        options = build(ProfileOptions, parser.parse(["--config", "cfg/q.yaml", "--out", "o"]))
    assert (options.lengths, options.predict_lengths) == ("8,16", "32")
    assert options.sweep_grid[:2] == ((8, 16), (32,))


@pytest.mark.parametrize("out", ["fitrun", "userdir"])
@pytest.mark.parametrize("words", [[], ["--threads", "0"]])
def test_tables_only_advises_a_reproductions_folder(
    out: str, words: list[str], trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 13: ``reproduce --tables-only --out`` a fit's or a user's folder advised "Give a new
    or empty folder", which --tables-only refuses ("manifest.json not found; run first")."""
    with scratch(trec_dir, CFG) as root:
        (root / "fitrun").mkdir()
        (root / "fitrun" / ".sanbench").write_text(
            "made by sanbench fit: sanbench writes into this folder\n"
        )
        before = entries(root)
        assert main(["reproduce", "--tables-only", "--out", out, *words]) == 2
        assert entries(root) == before
    err = capsys.readouterr().err
    assert "new or empty" not in err, err
    assert sum("Give the --out of a reproduction" in line for line in err.splitlines()) == 1, err
    assert err.rstrip().endswith("--help)") == bool(words), err  # the folder's alone: no pointer
