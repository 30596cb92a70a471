"""An encoder whose memory depends on its inputs' values (it indexes by a boolean mask) is said
so once, in sanbench's words, and measured, not predicted (outside check of #54: each point
printed torch's 'The register_meta function for torch.nonzero() raises unimplemented ...
please set torch.fx.experimental._config...', a line per point)."""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import pytest

from harness.cli import main
from harness.measurement.profiled_step import Point
from harness.memory_prediction.step import predict_encoder
from reports.profile.data import load_run
from tests.encoders.plugin_fixtures import fresh_registry  # noqa: F401 (a fixture)

ROOT = Path(__file__).resolve().parents[3]
SMALL = ["--batch-size", "3", "--dim", "16", "--repeats", "3", "--no-progress", "--no-report"]
SAID = "its memory depends on the values"
PLUGIN = '''
import torch
from torch import nn

from encoders import Encoder, EncoderOutput, register_encoder


class Selected(Encoder):
    """Its real tokens by a boolean index: x[mask]."""

    def __init__(self, input_dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.input_dim = input_dim
        self.token_dim = self.output_dim = hidden_dim
        self.value = nn.Linear(input_dim, hidden_dim)

    def forward(self, x, mask):
        tokens = x.new_zeros(*x.shape[:2], self.output_dim)
        tokens[mask] = torch.tanh(self.value(x[mask]))
        count = mask.sum(dim=1, keepdim=True).clamp(min=1).to(tokens.dtype)
        return EncoderOutput(tokens=tokens, pooled=tokens.sum(dim=1) / count)


@register_encoder("plug_selected", paper="a test plugin")
def build(input_dim: int = 16, hidden_dim: int = 8, dropout: float = 0.0):
    return Selected(input_dim, hidden_dim)
'''


@pytest.fixture
def plugin(fresh_registry: Path, monkeypatch: pytest.MonkeyPatch) -> Path:  # noqa: F811
    """The plugin module in a folder on this process's path and on its workers'."""
    (fresh_registry / "plug_selected.py").write_text(PLUGIN)
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    path = [str(fresh_registry), str(ROOT), os.environ.get("PYTHONPATH", "")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(path))
    return fresh_registry


def test_the_prediction_names_the_value_dependent_operator_in_sanbenchs_words(
    plugin: Path,
) -> None:
    importlib.import_module("plug_selected")
    points = [
        Point("plug_selected", n, mode, 3, 16) for n in (8, 16) for mode in ("train", "infer")
    ]
    said = predict_encoder(points)
    assert said[0] == (
        f"no prediction: {SAID}, which a prediction on meta tensors does not have: indexing by "
        "a boolean mask (x[mask]) gives an output whose size depends on them (as torch.nonzero "
        "and masked_select do), so it is measured, not predicted"
    )
    assert said == [said[0]] * 4  # every point alike; torch's advice nowhere


@pytest.mark.slow  # a sweep: prediction processes and a measuring worker (about 15 CPU-s)
def test_a_sweep_says_it_once_per_encoder_and_measures_it(
    plugin: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    words = ["profile", "--import", "plug_selected", *SMALL, "--out", str(out)]
    words += ["--encoders", "plug_selected", "--lengths", "8,12", "--predict-lengths", "8,12,16"]
    assert main(words) == 1  # L = 16 was asked to be predicted, and cannot be
    console = capfd.readouterr()
    text = console.out + console.err
    assert "register_meta" not in text and "_config" not in text, text
    # the whole reason once on the console and once in the failure list (L = 16's two points)
    assert text.count(f"{SAID}, which") == 2, text
    assert "plug_selected L=16 (infer, train): no prediction: " in text, text
    rows = load_run(out).rows.set_index(["seq_len", "mode"])
    assert set(rows.loc[[8, 12], "status"]) == {"ok"}  # measured
    assert set(rows.loc[[16], "status"]) == {"error"}
