"""Name -> builder registry (timm style): ``@register_encoder("name", paper=...)``."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from encoders.base import Encoder

Builder = Callable[..., Encoder]


@dataclass(frozen=True)
class EncoderEntry:
    name: str
    builder: Builder
    paper: str


_REGISTRY: dict[str, EncoderEntry] = {}


def register_encoder(name: str, *, paper: str) -> Callable[[Builder], Builder]:
    """Register ``builder`` under ``name``; ``paper`` says where the architecture comes from."""

    def decorate(builder: Builder) -> Builder:
        if name in _REGISTRY:
            raise ValueError(f"encoder {name!r} is registered twice")
        _REGISTRY[name] = EncoderEntry(name=name, builder=builder, paper=paper)
        return builder

    return decorate


def list_encoders() -> list[str]:
    """Every registered encoder name, in registration order."""
    return list(_REGISTRY)


def encoder_entry(name: str) -> EncoderEntry:
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(_REGISTRY)
        raise KeyError(f"unknown encoder {name!r}; registered encoders: {known}") from None


def build_encoder(name: str, input_dim: int = 300, **overrides: Any) -> Encoder:
    """Build encoder ``name`` for ``input_dim``-d inputs; keyword overrides go to its builder."""
    return encoder_entry(name).builder(input_dim=input_dim, **overrides)


def builder_accepts(name: str, option: str) -> bool:
    """Whether encoder ``name``'s builder takes the keyword ``option`` (e.g. ``block_len``)."""
    return option in inspect.signature(encoder_entry(name).builder).parameters
