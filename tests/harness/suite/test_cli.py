"""``sanbench suite`` rejects bad arguments before reading data or creating ``--out``."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--data-dir", "{absent}"], "no such folder"),
        (["--data-dir", "{here}", "--embeddings", "{absent}"], "--embeddings"),
        (["--data-dir", "{here}", "--encoders", "nope"], "unknown encoder"),
        (["--data-dir", "{here}", "--max-steps", "0"], "must be a positive integer"),
        (["--data-dir", "{here}", "--seeds", "-1"], "must be a positive integer"),
        (["--data-dir", "{here}", "--encoding", "utf-9"], "unknown encoding 'utf-9'"),
    ],
)
def test_bad_suite_arguments_fail_before_any_run(
    tmp_path: Path, capsys: pytest.CaptureFixture, extra: list[str], message: str
) -> None:
    names = {"absent": str(tmp_path / "absent"), "here": str(tmp_path)}
    out = tmp_path / "suite"
    argv = ["suite", "--tasks", "trec", "--encoders", "multi_cnn", "--out", str(out)]
    try:
        status = main(argv + [part.format(**names) for part in extra])
    except SystemExit as stopped:  # argparse's own errors
        status = stopped.code
    assert status == 2
    assert message in capsys.readouterr().err and not out.exists()
