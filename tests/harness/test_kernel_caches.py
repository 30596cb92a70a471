"""Compiled kernels' caches under ``$SANBENCH_CACHE`` (issue 54.1): a cache that cannot be
written does not stop a command (one line says so; inductor's kernels go to a temporary folder,
the CPU tiles run eagerly unless already built there), and a command stores no empty folder.

An unwritable cache is simulated, as tests run as root (``chmod 0o555`` does not stop root), by a
path under a regular file: ``SANBENCH_CACHE=.../afile/cache`` (``mkdir`` fails with
``NotADirectoryError``, as it fails with ``EROFS`` on a read-only file system)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import harness.cli
from harness.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
UNWRITABLE = "cannot be written"


def run_command(monkeypatch: pytest.MonkeyPatch, cache: Path, body) -> tuple[int, dict]:
    """``main(["fit"])`` whose command is ``body()`` (recording the caches it sees), with
    ``SANBENCH_CACHE=cache`` and neither kernel cache variable set by the user."""
    seen: dict = {}

    def run(words: object) -> None:
        seen["inductor"] = Path(os.environ["TORCHINDUCTOR_CACHE_DIR"])
        seen["extensions"] = Path(os.environ["TORCH_EXTENSIONS_DIR"])
        body(seen)

    monkeypatch.delenv("TORCHINDUCTOR_CACHE_DIR", raising=False)
    monkeypatch.delenv("TORCH_EXTENSIONS_DIR", raising=False)
    monkeypatch.setenv("SANBENCH_CACHE", str(cache))
    monkeypatch.setattr(harness.cli, "command_function", lambda words: ("fit", run))
    monkeypatch.setattr(harness.cli, "parse_command", lambda name, words: [])
    return harness.cli.main(["fit"]), seen


def torch_loads(seen: dict) -> None:
    """What importing torch._dynamo does: make inductor's cache folder."""
    os.makedirs(seen["inductor"], exist_ok=True)
    seen["usable"] = seen["inductor"].is_dir()


def test_an_unwritable_cache_is_said_in_one_line_and_the_command_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """On bae682d: ``sanbench fit: [Errno 30] Read-only file system: '.../inductor'``, exit 2."""
    (tmp_path / "afile").write_text("a file\n")
    cache = tmp_path / "afile" / "cache"
    status, seen = run_command(monkeypatch, cache, torch_loads)
    assert status == 0 and seen["usable"]
    assert not seen["inductor"].is_relative_to(cache)
    assert not seen["inductor"].exists()  # the temporary folder went with the command
    assert seen["extensions"] == cache / "extensions"  # the tiles fall back to their eager tiles
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and UNWRITABLE in lines[0] and str(cache) in lines[0], lines


def test_a_refused_command_leaves_no_cache_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"

    def refused(seen: dict) -> None:
        torch_loads(seen)
        raise InputError("bad input")

    status, _ = run_command(monkeypatch, cache, refused)
    assert status == 2 and not cache.exists()


def test_a_cache_folder_holding_a_kernel_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    cache = tmp_path / "cache"

    def compiles(seen: dict) -> None:
        torch_loads(seen)
        (seen["inductor"] / "fxgraph").mkdir()
        (seen["inductor"] / "fxgraph" / "entry").write_bytes(b"kernel")

    status, seen = run_command(monkeypatch, cache, compiles)
    assert status == 0 and seen["inductor"] == cache / "inductor"
    assert (cache / "inductor" / "fxgraph" / "entry").read_bytes() == b"kernel"
    assert UNWRITABLE not in capsys.readouterr().err


def sanbench(cache: Path, *argv: str) -> subprocess.CompletedProcess:
    """The real command in a fresh interpreter (torch makes inductor's folder when it loads)."""
    environment = {**os.environ, "SANBENCH_CACHE": str(cache)}
    for variable in ("TORCHINDUCTOR_CACHE_DIR", "TORCH_EXTENSIONS_DIR"):
        environment.pop(variable, None)
    return subprocess.run(
        [sys.executable, "-m", "harness.cli", *argv],
        capture_output=True, text=True, cwd=ROOT, env=environment, timeout=600,
    )  # fmt: skip


@pytest.mark.slow  # two real commands
def test_a_real_fit_runs_with_an_unwritable_cache_and_a_refused_one_makes_no_folder(
    tmp_path: Path, trec_dir: Path
) -> None:
    (tmp_path / "afile").write_text("a file\n")
    cache = tmp_path / "afile" / "cache"
    data = ["--data-dir", str(trec_dir)]  # no --embeddings: parsed vectors are cached too
    fit = ["fit", "--task", "trec", "--encoder", "multi_cnn", *data, "--trainer.max_steps", "2"]
    done = sanbench(cache, *fit, "--out", str(tmp_path / "run"))
    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stderr.splitlines() if UNWRITABLE in line]
    assert line.startswith(f"sanbench: the kernel cache {cache / 'inductor'}, "), line
    new = tmp_path / "new-cache"
    refused = sanbench(new, "fit", "--task", "trec", "--encoder", "no_such_encoder", *data)
    assert refused.returncode == 2 and not new.exists()
