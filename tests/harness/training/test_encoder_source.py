"""A model records where its encoder came from; loading imports a plugin module again."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from encoders import registry
from harness.training.module import TaskModule
from tests.encoders.plugin_fixtures import PLUGIN, fresh_registry

__all__ = ["fresh_registry"]  # a fixture


def test_a_plugin_encoder_is_imported_again_from_the_recorded_module(
    fresh_registry: Path,
) -> None:
    (fresh_registry / "plug_src.py").write_text(PLUGIN.format(name="plug_src_lstm"))
    importlib.import_module("plug_src")
    model = TaskModule("plug_src_lstm", "single", 3, 10, 4)
    source = {"kind": "module", "module": "plug_src", "distribution": None, "version": None}
    assert model.hparams["encoder_source"] == source
    del registry._REGISTRY["plug_src_lstm"], sys.modules["plug_src"]  # a new process
    again = TaskModule(**model.hparams)
    assert "plug_src_lstm" in registry._REGISTRY
    assert again.encoder.output_dim == model.encoder.output_dim


def test_a_model_of_a_missing_plugin_says_what_to_install(fresh_registry: Path) -> None:
    source = {"kind": "entry point", "module": "plug_gone", "distribution": "gone", "version": "1"}
    with pytest.raises(LookupError, match="pip install gone"):
        TaskModule("gone_encoder", "single", 3, 10, 4, encoder_source=source)


def test_a_built_in_encoder_is_recorded_as_built_in() -> None:
    model = TaskModule("bilstm", "single", 3, 10, 4, encoder_options={"hidden_dim": 2})
    assert model.hparams["encoder_source"]["kind"] == "built-in"


@pytest.mark.slow  # a fit and two inference commands, real processes of the console script
def test_predict_and_encode_take_a_model_of_an_imported_module_from_its_folder(
    trec_dir: Path, tmp_path: Path
) -> None:
    """docs/encoders.md: ``sanbench --import my_encoder fit ...``, then ``predict``/``encode``
    from the same folder. The console script's sys.path lacks the current folder (issue 35)."""
    import os
    import subprocess

    from tests.harness.training.test_fit import TINY

    script = Path(sys.executable).parent / "sanbench"
    if not script.exists():
        pytest.skip(f"{script}: the sanbench console script is not installed (pip install -e .)")
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "my_encoder.py").write_text(PLUGIN.format(name="mine"))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SANBENCH_IMPORT")}
    run = lambda *words: subprocess.run(  # noqa: E731
        [str(script), *words], capture_output=True, text=True, cwd=folder, env=env, timeout=600
    )
    options = [f"--{key}={value}" for key, value in {**TINY, "trainer.max_epochs": 1}.items()]
    fit = run("--import", "my_encoder", "fit", "--task", "trec", "--encoder", "mine",
              "--data-dir", str(trec_dir), "--out", "runs/mine", *options)  # fmt: skip
    assert fit.returncode == 0, fit.stderr
    (folder / "questions.txt").write_text("what city ?\nwho is the person ?\n")
    checkpoint = "runs/mine/checkpoints/last.ckpt"
    for command, out in (("predict", "p.csv"), ("encode", "v.npy")):
        done = run(command, "--ckpt", checkpoint, "--input", "questions.txt", "--out", out)
        assert done.returncode == 0, done.stderr
        assert (folder / out).stat().st_size > 0
