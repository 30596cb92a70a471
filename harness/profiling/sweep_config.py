"""The sweep a ``sanbench profile`` runs (``SweepConfig``: its settings and its points) and how
its options resolve into it (:func:`sweep_config`): the preset's values where an option is
unset, the lengths and modes as the options' check parsed them, the encoder variants checked
on the meta device."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, replace

from harness.console import console as rich_console
from harness.errors import InputError
from harness.measurement.profiled_step import Point, variant_parts
from harness.profiling import allocator, grid
from harness.profiling.options import ProfileOptions

# --strict: a contended point is measured again up to this many times, this far apart, before
# it is written with status ``contended`` (failed) instead of ``ok``.
STRICT_RETRIES = 3
STRICT_PAUSE_S = 2.0
# Settings that define one comparison: a CSV never mixes two values of any of them.
COMPARED_SETTINGS = ("device", "dtype", "batch_size", "dim", "allocator", "compile")


@dataclass(frozen=True)
class SweepConfig:
    """One sweep as it runs: its encoder variants, lengths and modes, how each point is measured
    (or only predicted), and where; recorded in the manifest, compared on ``--resume``."""

    encoders: tuple[grid.EncoderSpec, ...]
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

    def compared_settings(self) -> dict[str, str]:
        """The values this run writes in the ``COMPARED_SETTINGS``."""
        values = {name: str(getattr(self, name)) for name in COMPARED_SETTINGS}
        return {**values, "device": self.device.split(":")[0]}


def sweep_config(options: ProfileOptions) -> SweepConfig:
    """The sweep's settings: the preset's where an option is unset, the encoders' variants
    checked on the meta device; the device and the default memory budget are left to
    :func:`on_this_machine`, where the sweep runs."""
    preset = grid.PRESETS[options.preset]
    repeats = options.repeats or preset.repeats
    lengths, predict_lengths, modes = options.sweep_grid  # parsed when the options were checked
    from encoders.plugins import imported_modules

    encoders, missing = options.encoder_specs  # checked when the options were
    if missing:
        rich_console(stderr=True).print(f"[yellow]not registered, skipped: {', '.join(missing)}")
    if not encoders:
        raise ValueError("no encoder to profile: none of the requested encoders is registered")
    dim = options.dim or preset.dim
    problems = options.launch.problems()
    if problems:
        raise InputError("\n".join(problems))
    encoders = [current_spelling(spec) for spec in encoders]  # the check warned of old names
    name, preload = allocator.resolve(options.allocator)
    return SweepConfig(
        encoders=tuple(encoders),
        lengths=lengths,
        modes=modes,
        batch_size=options.batch_size or preset.batch_size,
        dim=dim,
        device=options.device,
        dtype=options.dtype,
        repeats=repeats,
        max_memory_mb=options.max_memory_mb,
        allocator=name,
        preload=preload,
        imports=tuple(imported_modules()),
        skip_after_oom=options.skip_after_oom,
        predict_lengths=predict_lengths,
        predict_only=options.predict_only,
        compile=options.compile,
        threads=options.threads,
        strict=options.strict,
    )


def current_spelling(spec: grid.EncoderSpec) -> grid.EncoderSpec:
    """``spec`` with each option under its encoder's current name for it: ``mtsa:impl=tensor``
    is built, recorded and labelled (and so suggested by the profile page) as
    ``mtsa:attention_impl=tensor``."""
    from encoders import encoder_entry

    renamed = encoder_entry(spec.name).renamed
    return replace(spec, options=tuple((renamed.get(k, k), v) for k, v in spec.options))


def current_encoders(text: str | None) -> str | None:
    """``--encoders`` text with each option under its encoder's current name and the rest as
    given (``mtsa:impl=tensor,disan`` -> ``mtsa:attention_impl=tensor,disan``): what the
    manifest records and what a resume's encoders are compared by. An unregistered encoder's
    options are left as given (the sweep's check refuses it)."""
    if text is None:
        return None
    from encoders import encoder_entry, list_encoders

    registered = list_encoders()
    variants = []
    for variant in text.split(","):
        name, sep, parts = variant_parts(variant)
        renamed = encoder_entry(name.strip()).renamed if name.strip() in registered else {}
        options = ":".join(renamed.get(key.strip(), key) + eq + value for key, eq, value in parts)
        variants.append(name + sep + options)
    return ",".join(variants)
