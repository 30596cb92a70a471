"""Checkpoints load with ``weights_only=True`` whatever torch's default: a crafted ``.ckpt``
that would run code is refused with exit status 2 and runs nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

from harness.cli import main
from harness.training.checkpoints import UnsafeCheckpointError
from harness.training.fit import run_fit
from harness.training.run_folder import prepare_run_folder
from tests.harness.training.test_fit import tiny_run


class RunsCode:
    """Unpickled without ``weights_only``, this makes the folder ``path``: code ran."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple:
        return (os.mkdir, (str(self.path),))


def crafted_checkpoint(path: Path, proof: Path) -> Path:
    torch.save({"state_dict": {}, "hyper_parameters": {}, "payload": RunsCode(proof)}, path)
    return path


@pytest.fixture
def weights_only_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """torch's escape hatch: every ``torch.load`` that does not pass ``weights_only`` unpickles
    anything (as torch < 2.6 did by default)."""
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")


@pytest.mark.parametrize("command", ["predict", "encode"])
def test_a_crafted_checkpoint_is_refused_by_predict_and_encode(
    tmp_path: Path, capsys: pytest.CaptureFixture, weights_only_off: None, command: str
) -> None:
    proof = tmp_path / "code_ran"
    checkpoint = crafted_checkpoint(tmp_path / "model.ckpt", proof)
    sentences = tmp_path / "in.txt"
    sentences.write_text("what is it ?\n")
    out = tmp_path / ("out.csv" if command == "predict" else "out.npy")
    argv = [command, "--ckpt", str(checkpoint), "--input", str(sentences), "--out", str(out)]
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert "refused to load" in error and "GLOBAL posix.mkdir" in error
    assert "Traceback" not in error
    assert not proof.exists() and not out.exists()


def test_a_crafted_last_checkpoint_is_refused_when_fit_resumes(
    trec_dir: Path, tmp_path: Path, weights_only_off: None
) -> None:
    run = tiny_run(trec_dir, tmp_path / "run")
    from harness.training.settings.fit_cli import FitCLI

    cli = FitCLI(run.args())
    prepare_run_folder(run.out_dir, cli.config_yaml(), overwrite=False, writer=True)
    (run.out_dir / "checkpoints").mkdir()
    proof = tmp_path / "code_ran"
    crafted_checkpoint(run.out_dir / "checkpoints" / "last.ckpt", proof)
    with pytest.raises(UnsafeCheckpointError, match=r"GLOBAL posix\.mkdir"):
        run_fit(run)
    assert not proof.exists()
