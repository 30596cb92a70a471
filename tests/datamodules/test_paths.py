"""``datamodules.paths.expanded``: a path as a shell reads it."""

from __future__ import annotations

from pathlib import Path

import pytest

from datamodules.paths import expanded


def test_a_tilde_is_the_home_folder_and_an_unknown_user_stays_as_typed() -> None:
    assert expanded("~/x") == Path.home() / "x"
    assert expanded("~nosuchuser_sanbench/x") == Path("~nosuchuser_sanbench/x")
    assert expanded("plain/x") == Path("plain/x")


@pytest.mark.parametrize(
    "words",
    [
        ["data", "stats", "--task", "trec", "--data-dir", "~nosuchuser_sanbench/x"],
        ["fit", "--task", "trec", "--encoder", "bilstm", "--data-dir", "~nosuchuser_sanbench/d",
         "--out", "o"],
    ],
)  # fmt: skip
def test_a_path_of_an_unknown_users_home_is_no_such_folder_not_an_internal_error(
    words: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """Outside check 16z, item 3: ``--data-dir ~nosuchuser/x`` (and --out, --runs, --ckpt, a
    config's path) was ``internal error: RuntimeError: Could not determine home directory.``,
    exit 1, in 8 commands; a shell leaves such a word as typed, and so does sanbench."""
    from harness.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(words) == 2
    err = capsys.readouterr().err
    assert "--data-dir ~nosuchuser_sanbench/" in err and "no such folder" in err, err
    assert "internal error" not in err and list(tmp_path.iterdir()) == []
