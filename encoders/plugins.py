"""Encoders from outside this package, registered beside the built-ins.

- Installed packages declare ``[project.entry-points."sanbench.encoders"]``, ``NAME = "module"``:
  importing the module registers its encoders (``@register_encoder``).
- ``SANBENCH_IMPORT=mod1,mod2`` (what ``sanbench --import MODULE`` sets, so that every process
  sanbench starts inherits it) names modules to import too.

Both are read once, the first time the registry is read. An entry point that fails to import
is recorded (:func:`failed_plugins`) rather than raised: a broken plugin never hides the others.
"""

from __future__ import annotations

import importlib
import os
import sys
from importlib.metadata import entry_points

from encoders.sources import EncoderSource, loading

ENTRY_POINT_GROUP = "sanbench.encoders"
IMPORT_VARIABLE = "SANBENCH_IMPORT"

_state = {"loaded": False}
_failures: list[str] = []


def import_plugin(module: str, source: EncoderSource) -> None:
    loading.append(source)
    try:
        importlib.import_module(module)
    finally:
        loading.pop()


def imported_modules() -> list[str]:
    """The modules ``SANBENCH_IMPORT`` names."""
    return [name.strip() for name in os.environ.get(IMPORT_VARIABLE, "").split(",") if name.strip()]


def load_plugins() -> None:
    """Import every ``sanbench.encoders`` entry point, then the ``SANBENCH_IMPORT`` modules."""
    if _state["loaded"]:
        return
    _state["loaded"] = True
    for point in entry_points(group=ENTRY_POINT_GROUP):
        dist = point.dist
        name, version = (dist.name, dist.version) if dist is not None else ("?", "?")
        try:
            import_plugin(point.module, EncoderSource("entry point", point.module, name, version))
        except Exception as error:
            _failures.append(
                f"entry point {point.name} = {point.value} of {name} {version} failed: "
                f"{type(error).__name__}: {error}"
            )
    for module in imported_modules():
        try:
            import_plugin(module, EncoderSource("module", module))
        except Exception as error:
            _failures.append(f"{IMPORT_VARIABLE} module {module} failed: {error}")


def failed_plugins() -> list[str]:
    """One line per plugin that could not be imported."""
    load_plugins()
    return list(_failures)


def current_folder_importable() -> str:
    """Put the current folder first on ``sys.path`` (the ``sanbench`` script's own first entry
    is its bin folder); returns it."""
    here = os.getcwd()
    if here not in sys.path:
        sys.path.insert(0, here)
    return here


def import_modules(modules: list[str]) -> None:
    """Import ``modules`` (from the current folder too) and register their encoders, here and in
    every process started from here on (``SANBENCH_IMPORT``, ``PYTHONPATH``); raises the
    module's own error when one cannot be imported."""
    if not modules:
        return
    load_plugins()
    here = current_folder_importable()
    paths = [here, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    os.environ["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    for module in modules:
        import_plugin(module, EncoderSource("module", module))
    names = dict.fromkeys([*imported_modules(), *modules])
    os.environ[IMPORT_VARIABLE] = ",".join(names)
