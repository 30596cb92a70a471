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

from encoders.registry import EncoderSource, _loading

ENTRY_POINT_GROUP = "sanbench.encoders"
IMPORT_VARIABLE = "SANBENCH_IMPORT"

_state = {"loaded": False}
_failures: list[str] = []


def _import(module: str, source: EncoderSource) -> None:
    _loading.append(source)
    try:
        importlib.import_module(module)
    finally:
        _loading.pop()


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
            _import(point.module, EncoderSource("entry point", point.module, name, version))
        except Exception as error:
            _failures.append(
                f"entry point {point.name} = {point.value} of {name} {version} failed: "
                f"{type(error).__name__}: {error}"
            )
    for module in imported_modules():
        try:
            _import(module, EncoderSource("module", module))
        except Exception as error:
            _failures.append(f"{IMPORT_VARIABLE} module {module} failed: {error}")


def failed_plugins() -> list[str]:
    """One line per plugin that could not be imported."""
    load_plugins()
    return list(_failures)


def _current_folder_importable() -> str:
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
    here = _current_folder_importable()
    paths = [here, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    os.environ["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    for module in modules:
        _import(module, EncoderSource("module", module))
    names = dict.fromkeys([*imported_modules(), *modules])
    os.environ[IMPORT_VARIABLE] = ",".join(names)


def require_encoder(name: str, source: dict[str, str | None] | None) -> None:
    """Make sure encoder ``name`` is registered, importing the module ``source`` (as a
    checkpoint records it) names; an error that says what to install or import when it fails."""
    from encoders.registry import _REGISTRY

    load_plugins()
    if name in _REGISTRY or not source or source.get("kind") == "built-in":
        return
    module = source["module"] or ""
    if source.get("kind") == "module":  # a module of the folder the model was trained from
        _current_folder_importable()
    try:
        _import(module, EncoderSource("module", module))
    except ImportError as error:
        if source.get("kind") == "entry point":
            how = f"install {source['distribution']} (it was {source['version']}): pip install "
            how += f"{source['distribution']}"
        else:
            how = f"run from the folder holding {module} or put it on PYTHONPATH"
        raise LookupError(
            f"encoder {name!r} comes from module {module}, which cannot be imported "
            f"({error}): {how}"
        ) from None
    if name not in _REGISTRY:
        raise LookupError(f"encoder {name!r}: module {module} no longer registers it")
