"""Plugins: ``sanbench.encoders`` entry points and ``SANBENCH_IMPORT`` modules feed the registry
beside the built-ins, each entry with its source; a broken plugin is reported, never raised."""

from __future__ import annotations

from pathlib import Path

import pytest

from encoders import build_encoder, encoder_entry, list_encoders, plugins, registry
from tests.encoders.plugin_fixtures import PLUGIN, fresh_registry, write_distribution

__all__ = ["fresh_registry"]  # a fixture


def test_an_entry_point_registers_its_encoder_with_its_distribution(fresh_registry: Path) -> None:
    write_distribution(fresh_registry, "plug_good", "plug_lstm")
    assert "plug_lstm" in list_encoders()
    source = encoder_entry("plug_lstm").source
    assert (source.kind, source.module, source.distribution, source.version) == (
        "entry point",
        "plug_good",
        "plug_good",
        "1.2",
    )
    assert source.describe() == "entry point of plug_good 1.2 (plug_good)"
    assert build_encoder("plug_lstm", input_dim=4).output_dim == 16
    assert encoder_entry("bilstm").source.kind == "built-in"


def test_a_broken_entry_point_is_reported_and_the_others_still_load(fresh_registry: Path) -> None:
    write_distribution(fresh_registry, "plug_bad", "plug_never", broken=True)
    write_distribution(fresh_registry, "plug_fine", "plug_fine_lstm")
    assert "plug_fine_lstm" in list_encoders()
    (failure,) = plugins.failed_plugins()
    assert failure == (
        "entry point plug_never = plug_bad of plug_bad 1.2 failed: RuntimeError: plugin bug"
    )
    with pytest.raises(KeyError, match=r"plug_never.*plug_bad 1\.2 failed"):
        encoder_entry("plug_never")


def test_sanbench_import_names_modules_every_process_loads(
    fresh_registry: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (fresh_registry / "plug_mod.py").write_text(PLUGIN.format(name="plug_mod_lstm"))
    monkeypatch.setenv(plugins.IMPORT_VARIABLE, "plug_mod")
    assert encoder_entry("plug_mod_lstm").source.describe() == "module plug_mod"


def test_import_modules_sets_the_environment_for_child_processes(
    fresh_registry: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (fresh_registry / "plug_here.py").write_text(PLUGIN.format(name="plug_here_lstm"))
    monkeypatch.chdir(fresh_registry)
    monkeypatch.setenv("PYTHONPATH", "/elsewhere")
    plugins.import_modules(["plug_here"])
    assert encoder_entry("plug_here_lstm").source.kind == "module"
    assert plugins.imported_modules() == ["plug_here"]
    import os

    assert os.environ["PYTHONPATH"].split(os.pathsep) == [str(fresh_registry), "/elsewhere"]


def test_require_encoder_imports_the_recorded_module_again(fresh_registry: Path) -> None:
    (fresh_registry / "plug_again.py").write_text(PLUGIN.format(name="plug_again_lstm"))
    registry.require_encoder("plug_again_lstm", {"kind": "module", "module": "plug_again"})
    assert "plug_again_lstm" in list_encoders()


def test_require_encoder_says_which_package_to_install(fresh_registry: Path) -> None:
    source = {
        "kind": "entry point",
        "module": "plug_gone",
        "distribution": "sanbench-gone",
        "version": "0.3",
    }
    with pytest.raises(LookupError, match="pip install sanbench-gone"):
        registry.require_encoder("gone", source)
    with pytest.raises(LookupError, match="run from the folder holding plug_gone"):
        registry.require_encoder("gone", {"kind": "module", "module": "plug_gone"})


def test_an_option_typo_gets_the_nearest_option() -> None:
    """``disan:attention_imp=naive`` listed disan's options without a word of which was meant
    (issue 56 breaker)."""
    from encoders.registry import unknown_options_problem

    assert unknown_options_problem("disan", ["attention_imp"]).startswith(
        "disan takes no option attention_imp (did you mean attention_impl?); its options: "
    )
    assert unknown_options_problem("disan", ["attention_impl"]) is None
