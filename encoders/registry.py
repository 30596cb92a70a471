"""Name -> builder registry (timm style): ``@register_encoder("name", paper=...)``.

Built-in encoders register when ``encoders`` is imported; plugins (``encoders.plugins``: the
``sanbench.encoders`` entry points and the ``SANBENCH_IMPORT`` modules) the first time the
registry is read. Each entry records where it came from (:class:`EncoderSource`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Literal

from encoders.base import Encoder

Builder = Callable[..., Encoder]
SourceKind = Literal["built-in", "entry point", "module"]


@dataclass(frozen=True)
class EncoderSource:
    """Where an encoder came from: ``module`` registers it when imported; an entry point's
    ``distribution`` is the package to install for it."""

    kind: SourceKind
    module: str
    distribution: str | None = None
    version: str | None = None

    def describe(self) -> str:
        if self.kind == "entry point":
            return f"entry point of {self.distribution} {self.version} ({self.module})"
        if self.kind == "module":
            return f"module {self.module}"
        return "built-in"

    def as_dict(self) -> dict[str, str | None]:
        return asdict(self)


@dataclass(frozen=True)
class EncoderEntry:
    name: str
    builder: Builder
    paper: str
    source: EncoderSource


_REGISTRY: dict[str, EncoderEntry] = {}
_loading: list[EncoderSource] = []  # the plugin being imported now (its entries' source)


def register_encoder(name: str, *, paper: str) -> Callable[[Builder], Builder]:
    """Register ``builder`` under ``name``; ``paper`` says where the architecture comes from."""

    def decorate(builder: Builder) -> Builder:
        if name in _REGISTRY:
            raise ValueError(f"encoder {name!r} is registered twice")
        if _loading:
            source = _loading[-1]
        elif builder.__module__.startswith("encoders."):
            source = EncoderSource("built-in", builder.__module__)
        else:
            source = EncoderSource("module", builder.__module__)
        _REGISTRY[name] = EncoderEntry(name=name, builder=builder, paper=paper, source=source)
        return builder

    return decorate


def _registry() -> dict[str, EncoderEntry]:
    from encoders.plugins import load_plugins

    load_plugins()
    return _REGISTRY


def list_encoders() -> list[str]:
    """Every registered encoder name: built-ins, then plugins, in registration order."""
    return list(_registry())


def encoder_entry(name: str) -> EncoderEntry:
    try:
        return _registry()[name]
    except KeyError:
        from encoders.plugins import failed_plugins

        known = ", ".join(_REGISTRY)
        broken = "".join(f"\n{failure}" for failure in failed_plugins())
        raise KeyError(f"unknown encoder {name!r}; registered encoders: {known}{broken}") from None


def build_encoder(name: str, input_dim: int = 300, **overrides: Any) -> Encoder:
    """Build encoder ``name`` for ``input_dim``-d inputs; keyword overrides go to its builder."""
    return encoder_entry(name).builder(input_dim=input_dim, **overrides)


def builder_accepts(name: str, option: str) -> bool:
    """Whether encoder ``name``'s builder takes the keyword ``option`` (e.g. ``block_len``)."""
    return option in inspect.signature(encoder_entry(name).builder).parameters
