"""Plugin modules and installed distributions written for a test, and a registry that forgets
them afterwards."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from encoders import plugins, registry

PLUGIN = """
from encoders import register_encoder
from encoders.models.rnn import build_bilstm

@register_encoder("{name}", paper="a test plugin")
def build(input_dim: int = 300, hidden_dim: int = 8, dropout: float = 0.0):
    return build_bilstm(input_dim=input_dim, hidden_dim=hidden_dim, dropout=dropout)
"""


def write_distribution(root: Path, module: str, encoder: str, *, broken: bool = False) -> None:
    """An installed distribution as ``pip install --target`` leaves it: the module and a
    ``.dist-info`` folder declaring its entry point."""
    code = "raise RuntimeError('plugin bug')" if broken else PLUGIN.format(name=encoder)
    (root / f"{module}.py").write_text(code)
    info = root / f"{module}-1.2.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.2\n")
    (info / "entry_points.txt").write_text(f"[sanbench.encoders]\n{encoder} = {module}\n")


@pytest.fixture
def fresh_registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Plugins read again from ``tmp_path`` (on sys.path); the registry restored afterwards."""
    saved = dict(registry._REGISTRY)
    monkeypatch.syspath_prepend(str(tmp_path))
    # set (not deleted): monkeypatch restores only what it changed, and a test's
    # import_modules() sets the variable; empty names no module
    monkeypatch.setenv(plugins.IMPORT_VARIABLE, "")
    monkeypatch.setitem(plugins._state, "loaded", False)
    monkeypatch.setattr(plugins, "_failures", [])
    before = set(sys.modules)
    yield tmp_path
    registry._REGISTRY.clear()
    registry._REGISTRY.update(saved)
    for name in set(sys.modules) - before:
        if name.startswith("plug_"):
            del sys.modules[name]
