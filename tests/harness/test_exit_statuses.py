"""Every command's failures go through ``harness.cli.main``: bad input exits 2 with one message
per problem, an internal error 1, Ctrl-C 130, never with a traceback unless ``--debug``."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from harness.cli import main


def _status(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as stopped:  # argparse's own errors
        return int(stopped.code)


@pytest.fixture
def truncated_ckpt(tmp_path: Path) -> Path:
    import torch

    whole = tmp_path / "whole.ckpt"
    torch.save({"state_dict": {"w": torch.zeros(64, 64)}}, whole)
    cut = tmp_path / "last.ckpt"
    cut.write_bytes(whole.read_bytes()[:2000])
    return cut


CASES = {
    "unknown variant option": (
        ["profile", "--encoders", "bi_blosan:attention_impl=bogus", "--lengths", "8"],
        "attention_impl must be one of",
    ),
    "zero memory budget": (
        ["profile", "--encoders", "bilstm", "--max-memory-mb", "0"],
        "--max-memory-mb 0: expected a positive number",
    ),
    "zero jobs": (
        ["reproduce", "--jobs", "0", "--out", "{tmp}/r"],  # not runs/reproduce of the tests' folder
        "--jobs 0: expected a positive integer",
    ),
    "print_config of a bad preset": (
        ["profile", "--preset", "bogus", "--print_config"],
        "--preset bogus: expected one of paper, quick, long",
    ),
    "dropout above one": (
        ["fit", "--task", "trec", "--encoder", "multi_cnn", "--data-dir", "{data}",
         "--out", "{tmp}/o", "--model.dropout", "1.5"],
        "--model.dropout 1.5: expected a number in [0, 1]",
    ),
    "zero train batches": (
        ["tune", "--study", "dropout", "--limit-train-batches", "0"],
        "--limit-train-batches 0: trains nothing",
    ),
    "aggregate a missing folder": (
        ["suite", "--aggregate-only", "--out", "{tmp}/absent"],
        "--out {tmp}/absent: no such folder",
    ),
    "truncated checkpoint": (
        ["predict", "--ckpt", "{ckpt}", "--input", "{ckpt}", "--out", "{tmp}/p.csv"],
        "last.ckpt: not a complete checkpoint",
    ),
    "bad storage URL": (
        ["tune", "--study", "block-length-memory", "--storage", "bogus://u:secret@h/db"],
        "--storage bogus://u:***@h/db: unknown database 'bogus'",
    ),
    "negative max_steps": (
        ["fit", "--task", "trec", "--encoder", "bilstm", "--data-dir", "{data}",
         "--embeddings", "{data}/glove.txt", "--out", "{tmp}/fit", "--trainer.max_steps", "-5"],
        "--trainer.max_steps -5: expected a positive number of steps (or -1: no limit)",
    ),
    # issue 56.10: sanbench's words for a value the parser refuses, never the parser's dump
    "zero hidden_dim": (
        ["fit", "--task", "trec", "--encoder", "bilstm", "--data-dir", "{data}",
         "--out", "{tmp}/fit", "--model.hidden_dim", "0"],
        "sanbench fit: --model.hidden_dim 0: expected a positive integer",
    ),
    "negative length": (
        ["profile", "--encoders", "bilstm", "--lengths", "-8,16"],
        "--lengths -8,16: expected positive integer lengths",
    ),
    # issue 56.9: every list of names answers a typo with the nearest name
    "suite encoder typo": (
        ["suite", "--tasks", "trec", "--encoders", "multi_cn,bilstm", "--data-dir", "{data}",
         "--out", "{tmp}/suite"],
        "--encoders multi_cn: expected one of bi_blosan",
    ),
    "suite encoder typo, its nearest name": (
        ["suite", "--tasks", "trec", "--encoders", "bilstmm", "--data-dir", "{data}",
         "--out", "{tmp}/suite"],
        "(did you mean bilstm?)",
    ),
    "profile encoder typo": (
        ["profile", "--encoders", "disan2", "--lengths", "8"], "(did you mean disan?)"
    ),
    "data stats task typo": (
        ["data", "stats", "--task", "treec", "--data-dir", "{data}"], "(did you mean trec?)"
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", CASES)
def test_bad_input_exits_2_with_one_message_and_no_traceback(
    case: str,
    tmp_path: Path,
    trec_dir: Path,
    truncated_ckpt: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv, message = CASES[case]
    names = {"tmp": tmp_path, "ckpt": truncated_ckpt, "data": trec_dir}
    before = sorted(tmp_path.iterdir())  # the truncated checkpoint and its whole original
    assert _status([word.format(**names) for word in argv]) == 2
    captured = capsys.readouterr()
    problems = [line for line in captured.err.splitlines() if message.format(**names) in line]
    assert len(problems) == 1, captured.err
    assert "Traceback" not in captured.err + captured.out
    assert "secret" not in captured.err + captured.out
    assert sorted(tmp_path.iterdir()) == before  # nothing created, nothing left behind


def test_debug_shows_the_traceback_for_every_command(tmp_path: Path) -> None:
    absent = str(tmp_path / "absent.ckpt")
    argv = ["predict", "--ckpt", absent, "--input", absent, "--out", str(tmp_path / "p.csv")]
    assert main(argv) == 2
    with pytest.raises(ValueError, match="no such file"):
        main(["--debug", *argv])
    with pytest.raises(ValueError, match="no such file"):
        main([*argv, "--debug"])


@pytest.mark.parametrize(
    ("raised", "status", "shown"),
    [
        (RuntimeError("a bug"), 1, "sanbench encoders: internal error: RuntimeError: a bug"),
        (KeyError("101"), 1, "sanbench encoders: internal error: KeyError: '101'"),
        (KeyboardInterrupt(), 130, "sanbench encoders: interrupted"),
    ],
)
def test_internal_errors_and_interrupts_are_one_line(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    raised: BaseException,
    status: int,
    shown: str,
) -> None:
    def run(args: object) -> int:
        raise raised

    monkeypatch.setattr(importlib.import_module("harness.encoder_list.command"), "encoders", run)
    assert main(["encoders"]) == status
    err = capsys.readouterr().err
    assert err.splitlines()[0] == shown and "Traceback" not in err
    with pytest.raises(type(raised)):
        main(["--debug", "encoders"])
