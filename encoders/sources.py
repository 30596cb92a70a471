"""Where a registered encoder came from (:class:`EncoderSource`), and the plugin being
imported now, whose registrations carry its source (``encoders.plugins`` sets it)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

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


loading: list[EncoderSource] = []  # the plugin being imported now (its entries' source)
