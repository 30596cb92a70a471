"""Sweep grids: length lists, presets, the encoders of the papers' efficiency figures and their
variants (``harness.profiling.sweep_config`` resolves them into one sweep)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from harness.command_parser import choice_problems, did_you_mean
from harness.measurement.profiled_step import TORCH_DTYPES, parse_options
from reports.contracts.profile_run import variant_label
from reports.paper_numbers import FIGURE_ENCODERS

DTYPES = tuple(TORCH_DTYPES)  # the step's precisions, fp32 first


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


EMPTY = "''"  # an empty value or part, as a message shows it
MAX_LENGTHS = 10_000  # lengths one option may name: each is a point per encoder and mode


def parse_lengths(text: str, option: str = "--lengths") -> list[int]:
    """Parse ``"16:384:16"`` (start:stop:step, stop included), ``"16,32,64"`` or a mix of both.

    Returns the sorted distinct lengths; raises ``ValueError`` naming the bad part and the
    ``option`` that gave it.
    """
    lengths: set[int] = set()
    asked = 0  # lengths the parts name, counted before any is made (a range may be absurd)
    for part in (p.strip() for p in text.split(",")):
        try:
            if ":" in part:
                start, stop, step = (int(v) for v in part.split(":"))
                if step <= 0 or stop < start:
                    raise ValueError
                asked += len(range(start, stop + 1, step))
                if asked <= MAX_LENGTHS:
                    lengths.update(range(start, stop + 1, step))
            else:
                asked += 1
                lengths.add(int(part))
        except ValueError:
            raise ValueError(
                f"{option} {text or EMPTY}: bad part {part or EMPTY}: expected positive integers "
                "like 16:384:16 (start:stop:step, stop included) or 16,32,64"
            ) from None
    if asked > MAX_LENGTHS:
        raise ValueError(
            f"{option} {text}: asks for {asked:,} lengths; a sweep takes at most "
            f"{MAX_LENGTHS:,} per option (16:4096:16 is 256): a longer step or a shorter range"
        )
    if not lengths or min(lengths) < 1:
        raise ValueError(f"{option} {text}: expected positive integer lengths")
    return sorted(lengths)


def length_texts(
    preset: Preset, lengths: str | None, predict_lengths: str | None
) -> tuple[str, str]:
    """The texts of the measured and the predicted lengths as ``--lengths`` and
    ``--predict-lengths`` spell them, the ``preset``'s where one is unset (``--lengths`` alone
    predicts at those lengths too): what a sweep parses and says in its first line."""
    measured = preset.lengths if lengths is None else lengths
    if predict_lengths is None:
        predict_lengths = preset.predict_lengths if lengths is None else lengths
    return measured, predict_lengths


def lengths_text(lengths: Iterable[int]) -> str:
    """``lengths`` as ``--lengths`` spells them, what :func:`parse_lengths` reads back: each run
    of three or more evenly spaced ones as start:stop:step, the others one by one
    (``16:4096:16``, ``16,32,64``), not 256 numbers."""
    rest, parts = sorted(set(lengths)), []
    while rest:
        end = 1
        if len(rest) > 2:
            step = rest[1] - rest[0]
            end = 2
            while end < len(rest) and rest[end] - rest[end - 1] == step:
                end += 1
        if end > 2:
            parts.append(f"{rest[0]}:{rest[end - 1]}:{rest[1] - rest[0]}")
        else:
            end = 1
            parts.append(str(rest[0]))
        rest = rest[end:]
    return ",".join(parts)


def parse_names(text: str, allowed: tuple[str, ...], option: str) -> list[str]:
    """Comma-separated choices checked against ``allowed`` (order kept, duplicates dropped)."""
    names = list(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    expected = f"expected a comma list of {', '.join(allowed)}"
    if not names:
        raise ValueError(f"{option} {text}: {expected}")
    bad = [n for n in names if n not in allowed]
    if bad:
        raise ValueError(
            "\n".join(
                f"{option} {text}: {'' if name == text.strip() else f'bad part {name}: '}{expected}"
                f"{did_you_mean(name, allowed)}"
                for name in bad
            )
        )
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
        raise ValueError(f"--encoders {text}: expected a comma list of encoder names")
    problems = [p for s in specs for p in choice_problems("--encoders", s.name, registered)]
    if problems:
        raise ValueError("\n".join(dict.fromkeys(problems)))
    return specs, []
