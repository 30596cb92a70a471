"""Sweep grids: length lists, presets, the encoders of the papers' efficiency figures, and the
sweep they resolve to (``SweepConfig``: its settings and its points)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from harness.command_parser import choice_problems
from harness.measurement.profiled_step import Point, parse_options
from reports.contracts.profile_run import variant_label
from reports.paper_numbers import FIGURE_ENCODERS

MODES = ("infer", "train")
DTYPES = ("fp32", "bf16", "fp16")
# --strict: a contended point is measured again up to this many times, this far apart, before
# it is written with status ``contended`` (failed) instead of ``ok``.
STRICT_RETRIES = 3
STRICT_PAUSE_S = 2.0
# Settings that define one comparison: a CSV never mixes two values of any of them.
COMPARISON_COLUMNS = ("device", "dtype", "batch_size", "dim", "allocator", "compile")


@dataclass(frozen=True)
class Preset:
    """Default grid values that explicit options override."""

    lengths: str
    predict_lengths: str
    batch_size: int
    dim: int
    repeats: int
    encoders: str | None = None  # None: the papers' figure encoders
    about: str = ""


# paper: batch 64, 300 features, L = 16..384 step 16 (Bi-BloSAN Sec. 4.5), measured and predicted.
# quick: the same shapes measured at three short lengths, doubling, with three timed steps (under
# a minute on 2 CPU cores: naive DiSAN's [64, L, L, 300] training step took 3.3 s at L = 64 and
# 0.8 s at 32, each point four steps), memory predicted over the papers' whole axis (L = 64 of
# MTSA's Table 1 included).
# long: the encoders that are meant for long sentences (DiSAN with its exact chunked attention,
# Bi-BloSAN, MTSA) against multi-head attention, at lengths up to 2048 (docs/benchmarks.md).
PRESETS: dict[str, Preset] = {
    "paper": Preset(
        lengths="16:384:16", predict_lengths="16:384:16", batch_size=64, dim=300, repeats=10
    ),
    "quick": Preset(
        lengths="8,16,32",
        predict_lengths="8,16,32,64,128,256,384",
        batch_size=64,
        dim=300,
        repeats=3,
    ),
    "long": Preset(
        lengths="256,512,1024,2048",
        predict_lengths="256,512,1024,2048",
        batch_size=8,
        dim=300,
        repeats=3,
        encoders="disan:attention_impl=chunked,bi_blosan:attention_impl=chunked,mtsa,multi_head",
        about="long sentences at batch 8, which fits a 2-core 23 GB machine: every point "
        "predicted on meta tensors and measured where it fits --max-memory-mb (an oom row "
        "keeps its prediction); each measured row prints its prediction beside it and the "
        "report gives the error of every one; --compile keeps chunked DiSAN's tiles bounded",
    ),
}


@dataclass(frozen=True)
class EncoderSpec:
    """A registered encoder and the builder keywords of one variant (``disan:attention_impl=
    chunked:chunk_size=16`` on the command line)."""

    name: str
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def options_text(self) -> str:
        return ":".join(f"{key}={value}" for key, value in self.options)

    @property
    def label(self) -> str:
        return variant_label(self.name, self.options_text)

    def kwargs(self) -> dict[str, Any]:
        return dict(self.options)


def parse_spec(text: str) -> EncoderSpec:
    name, _, options = text.strip().partition(":")
    return EncoderSpec(name.strip(), parse_options(options))


def parse_lengths(text: str, option: str = "--lengths") -> list[int]:
    """Parse ``"16:384:16"`` (start:stop:step, stop included), ``"16,32,64"`` or a mix of both.

    Returns the sorted distinct lengths; raises ``ValueError`` naming the bad part and the
    ``option`` that gave it.
    """
    lengths: set[int] = set()
    for part in (p.strip() for p in text.split(",")):
        try:
            if ":" in part:
                start, stop, step = (int(v) for v in part.split(":"))
                if step <= 0 or stop < start:
                    raise ValueError
                lengths.update(range(start, stop + 1, step))
            else:
                lengths.add(int(part))
        except ValueError:
            raise ValueError(
                f"bad {option} part {part!r} in {text!r}: expected positive integers like "
                "'16:384:16' (start:stop:step, stop included) or '16,32,64'"
            ) from None
    if not lengths or min(lengths) < 1:
        raise ValueError(f"{option} {text!r}: every length must be a positive integer")
    return sorted(lengths)


def parse_names(text: str, allowed: tuple[str, ...], option: str) -> list[str]:
    """Comma-separated choices checked against ``allowed`` (order kept, duplicates dropped)."""
    names = list(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    bad = [n for n in names if n not in allowed]
    if bad or not names:
        raise ValueError(f"{option} {text!r}: expected a comma list of {', '.join(allowed)}")
    return names


def select_encoders(text: str | None, registered: list[str]) -> tuple[list[EncoderSpec], list[str]]:
    """Encoders (with their variant options) to profile and the default ones that are not
    registered (to warn about).

    ``None`` means the papers' figure encoders as the figures ran them (DiSAN and Bi-BloSAN
    with their naive attention), ``"all"`` every registered encoder; otherwise a
    comma list of ``name`` or ``name:key=value[:key=value]`` (variants of one encoder side by
    side, e.g. ``disan:attention_impl=naive,disan``).
    """
    if text is None:
        figures = [parse_spec(label) for label in FIGURE_ENCODERS]
        chosen = [spec for spec in figures if spec.name in registered]
        return chosen, [spec.name for spec in figures if spec.name not in registered]
    if text.strip() == "all":
        return [EncoderSpec(n) for n in registered], []
    specs = list(dict.fromkeys(parse_spec(n) for n in text.split(",") if n.strip()))
    if not specs:
        raise ValueError(f"--encoders {text!r}: expected a comma list of encoder names")
    problems = [p for s in specs for p in choice_problems("--encoders", s.name, registered)]
    if problems:
        raise ValueError("\n".join(dict.fromkeys(problems)))
    return specs, []


@dataclass(frozen=True)
class SweepConfig:
    encoders: tuple[EncoderSpec, ...]
    lengths: tuple[int, ...]
    modes: tuple[str, ...]
    batch_size: int
    dim: int
    device: str
    dtype: str
    repeats: int
    max_memory_mb: float | None
    allocator: str
    preload: str | None
    imports: tuple[str, ...] = ()
    skip_after_oom: bool = True
    predict_lengths: tuple[int, ...] = ()
    predict_only: bool = False
    compile: bool = False
    threads: int | None = None
    strict: bool = False

    def _points(self, lengths: tuple[int, ...]) -> Iterator[Point]:
        for spec, mode, seq_len in itertools.product(self.encoders, self.modes, lengths):
            yield Point(spec.name, seq_len, mode, self.batch_size, self.dim, spec.options_text)

    def measured_points(self) -> list[Point]:
        return [] if self.predict_only else list(self._points(self.lengths))

    def points(self) -> list[Point]:
        """Every point of the sweep: measured ones, then the predicted-only lengths."""
        measured = () if self.predict_only else self.lengths
        extra = tuple(n for n in self.predict_lengths if n not in measured and self.predicts())
        return [*self.measured_points(), *self._points(extra)]

    def predicts(self) -> bool:
        """Predictions are made for fp32 steps (autocast has no meta kernels)."""
        return self.dtype == "fp32"

    def comparison(self) -> dict[str, str]:
        """The values this run writes in the ``COMPARISON_COLUMNS``."""
        values = {name: str(getattr(self, name)) for name in COMPARISON_COLUMNS}
        return {**values, "device": self.device.split(":")[0]}
