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
