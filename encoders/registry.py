"""Name -> builder registry (timm style): ``@register_encoder("name", paper=...)``.

Built-in encoders register when ``encoders`` is imported; plugins (``encoders.plugins``: the
``sanbench.encoders`` entry points and the ``SANBENCH_IMPORT`` modules) the first time the
registry is read. Each entry records where it came from (:class:`EncoderSource`).
"""

from __future__ import annotations

import difflib
import inspect
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch

from encoders.base import Encoder
from encoders.plugins import (
    current_folder_importable,
    failed_plugins,
    import_plugin,
    load_plugins,
)
from encoders.sources import EncoderSource, loading

Builder = Callable[..., Encoder]
# whether a built encoder's training step on a device takes memory by its inputs' shape alone
ShapeRule = Callable[[Encoder, torch.device], bool]


def _never(encoder: Encoder, device: torch.device) -> bool:
    return False


def _always(encoder: Encoder, device: torch.device) -> bool:
    return True


@dataclass(frozen=True)
class EncoderEntry:
    name: str
    builder: Builder
    paper: str
    source: EncoderSource
    renamed: Mapping[str, str] = field(default_factory=dict)  # an old option name -> its name
    dropout_from: str = ""  # where the builder's default dropout comes from, in the paper's words
    memory_by_shape: ShapeRule = _never  # register_encoder's memory_by_shape

    @property
    def dropout(self) -> float | None:
        """The builder's default dropout (None without a ``dropout`` keyword or default)."""
        parameter = inspect.signature(self.builder).parameters.get("dropout")
        if parameter is None or parameter.default is inspect.Parameter.empty:
            return None
        return float(parameter.default)


class RenamedOptionWarning(FutureWarning):
    """An encoder option given by its old name: it still works, under its new name."""


_REGISTRY: dict[str, EncoderEntry] = {}


def register_encoder(
    name: str,
    *,
    paper: str,
    dropout_from: str = "",
    renamed: Mapping[str, str] | None = None,
    memory_by_shape: bool | ShapeRule = False,
) -> Callable[[Builder], Builder]:
    """Register ``builder`` under ``name``; ``paper`` says where the architecture comes from,
    ``dropout_from`` where the builder's default dropout does (a built-in's: one of
    ``encoders.dropout_settings``); ``renamed`` maps an option's old name to its name (the old
    one warns and keeps working). ``memory_by_shape`` (or, given the built encoder and a
    device, a function saying so) declares that a training step's memory follows from its
    inputs' shape alone: no size or branch taken from their values (``x[mask]``, a form chosen
    by magnitude). ``fit`` then measures only the steps that can be its largest; an encoder
    that does not declare it has every step measured (docs/training.md)."""
    rule = _always if memory_by_shape is True else _never
    if callable(memory_by_shape):
        rule = memory_by_shape

    def decorate(builder: Builder) -> Builder:
        if name in _REGISTRY:
            raise ValueError(f"encoder {name!r} is registered twice")
        if loading:
            source = loading[-1]
        elif builder.__module__.startswith("encoders."):
            source = EncoderSource("built-in", builder.__module__)
        else:
            source = EncoderSource("module", builder.__module__)
        _REGISTRY[name] = EncoderEntry(
            name, builder, paper, source, dict(renamed or {}), dropout_from, rule
        )
        return builder

    return decorate


def _registry() -> dict[str, EncoderEntry]:
    load_plugins()
    return _REGISTRY


def list_encoders() -> list[str]:
    """Every registered encoder name: built-ins, then plugins, in registration order."""
    return list(_registry())


def encoder_entry(name: str) -> EncoderEntry:
    try:
        return _registry()[name]
    except KeyError:
        known = ", ".join(_REGISTRY)
        broken = "".join(f"\n{failure}" for failure in failed_plugins())
        raise KeyError(f"unknown encoder {name!r}; registered encoders: {known}{broken}") from None


def build_encoder(name: str, input_dim: int = 300, **overrides: Any) -> Encoder:
    """Build encoder ``name`` for ``input_dim``-d inputs; keyword overrides go to its builder
    (an option by its old name under its new one, with a :class:`RenamedOptionWarning`)."""
    return encoder_entry(name).builder(input_dim=input_dim, **current_options(name, overrides))


def current_options(name: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` of encoder ``name`` with each under its current name, a
    :class:`RenamedOptionWarning` for each given by its old name (``TypeError`` when both are)."""
    options = dict(options)
    for old, new in encoder_entry(name).renamed.items():
        if old not in options:
            continue
        if new in options:
            raise TypeError(f"{name}: give {new} only ({old} is its old name)")
        warnings.warn(
            f"{name}: option {old} is now called {new}; {old} still works",
            RenamedOptionWarning,
            stacklevel=3,
        )
        options[new] = options.pop(old)
    return options


def builder_accepts(name: str, option: str) -> bool:
    """Whether encoder ``name``'s builder takes the keyword ``option`` (e.g. ``block_len``),
    by its name or its old name."""
    entry = encoder_entry(name)
    return option in inspect.signature(entry.builder).parameters or option in entry.renamed


def unknown_options_problem(name: str, options: list[str]) -> str | None:
    """The line "NAME takes no option X; its options: ..." for the ``options`` encoder
    ``name``'s builder does not take (None when it takes them all): one wording for every
    command."""
    unknown = [option for option in options if not builder_accepts(name, option)]
    if not unknown:
        return None
    accepted = [k for k in inspect.signature(encoder_entry(name).builder).parameters]
    accepted = [k for k in accepted if k != "input_dim"]
    named = []
    for option in unknown:  # the nearest option a typo meant: attention_imp -> attention_impl
        near = difflib.get_close_matches(option, accepted, n=1)
        named.append(f"{option} (did you mean {near[0]}?)" if near else option)
    return f"{name} takes no option {', '.join(named)}; its options: {', '.join(accepted)}"


def require_encoder(name: str, source: dict[str, str | None] | None) -> None:
    """Make sure encoder ``name`` is registered, importing the module ``source`` (as a
    checkpoint records it) names; an error that says what to install or import when it fails."""
    load_plugins()
    if name in _REGISTRY or not source or source.get("kind") == "built-in":
        return
    module = source["module"] or ""
    if source.get("kind") == "module":  # a module of the folder the model was trained from
        current_folder_importable()
    try:
        import_plugin(module, EncoderSource("module", module))
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
