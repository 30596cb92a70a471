"""``ProfileOptions``: one ``sanbench profile`` sweep as the user gives it (a preset, lengths,
encoders, limits, output); :func:`harness.profiling.sweep_config.sweep_config` resolves it."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, fields
from pathlib import Path

from harness.command_parser import (
    COMMA_LIST,
    as_typed,
    batch_size_problems,
    choice_problems,
    integer_problems,
)
from harness.errors import InputError
from harness.launch import LaunchOptions
from harness.launch.threads import usable_cores
from harness.measurement.profiled_step import MODES
from harness.profiling import allocator, grid

# What makes a sweep the sweep it is: its points and how each is measured, as its manifest
# records the resolved sweep (``config``). A folder holds one sweep: a resume must have every
# one of these as recorded.
SWEEP_KEYS = (
    "encoders",
    "lengths",
    "predict_lengths",
    "predict_only",
    "modes",
    "batch_size",
    "dim",
    "device",
    "dtype",
    "repeats",
    "compile",
    "threads",
    "strict",
    "allocator",
)
# The options that decide those (the preset supplies the unset ones): ``--resume`` takes them
# from the manifest (``options``) and refuses one given otherwise. The rest (where the report
# goes, the memory budget, the console, the launcher) may change from run to run.
SWEEP_OPTIONS = ("preset", *SWEEP_KEYS)
# How --device may be spelled; what it names is checked where the sweep runs.
DEVICES = r"auto|cpu|cuda(:\d+)?"

PRESETS_HELP = "; ".join(
    f"{name}: L={p.lengths} batch={p.batch_size} dim={p.dim} repeats={p.repeats}"
    + (f" encoders={p.encoders}" if p.encoders else "")
    + (f" ({p.about})" if p.about else "")
    for name, p in grid.PRESETS.items()
)


@dataclass(frozen=True)
class ProfileOptions:
    """A memory/latency sweep over sequence lengths: measured points, predicted points, the
    report. Unset sizes come from the preset."""

    preset: str = "paper"
    """the sweep's defaults: paper, quick or long (above)"""
    encoders: str | None = field(default=None, metadata=COMMA_LIST)
    """comma list, or 'all' (default: the papers' figure encoders); NAME:key=value,... for a
    variant (in a --config file also a list)"""
    lengths: str | None = field(default=None, metadata=COMMA_LIST)
    """measured lengths, e.g. 16:384:16 (stop included) or 16,32,64 (in a --config file also
    a list, [16, 32, 64]); at most 10,000"""
    predict_lengths: str | None = field(default=None, metadata=COMMA_LIST)
    """lengths whose peak memory and FLOPs are predicted on meta tensors (fp32 only; CPU
    kernels' inside memory modelled from small calls, nothing run at these shapes), in addition
    to the measured ones; at most 10,000"""
    predict_only: bool = False
    """no measurement: the memory/FLOPs table and figures for --predict-lengths (default: the
    preset's and --lengths)"""
    batch_size: int | None = None
    """sentences per batch"""
    dim: int | None = None
    """input features = encoder width"""
    modes: str = field(default="infer,train", metadata=COMMA_LIST)
    """infer, train or both (in a --config file also a list, [infer, train])"""
    device: str = "auto"
    """auto, cpu, cuda or cuda:N, resolved where the sweep runs (a job: on its node)"""
    dtype: str = "fp32"
    """the encoders' floating-point type: fp32, bf16 or fp16"""
    repeats: int | None = None
    """timed steps per point (median, IQR), at least 3"""
    compile: bool = False
    """torch.compile each encoder; the first call (compilation) is timed apart"""
    threads: int | None = None
    """intra-op threads of the measuring process (default: torch's, one per core); recorded
    in the sweep's rows and manifest"""
    strict: bool = False
    """re-measure a contended point (its threads got too little of the CPU they asked for) up
    to 3 times, then write it as failed (status contended) instead of ok"""
    out: Path | None = None
    """run folder (default runs/profile-<time>)"""
    resume: bool = False
    """measure only the missing points of --out"""
    max_memory_mb: float | None = None
    """per-point budget beyond the worker's start-up footprint: CPU, a hard limit on its private
    memory (default 80% of the available RAM); CUDA, on the caching allocator's reserve (the
    CUDA context not counted; default none)"""
    allocator: str = "auto"
    """the worker's memory allocator: auto, glibc or jemalloc"""
    skip_after_oom: bool = True
    """after an out-of-memory point, skip that encoder's longer lengths"""
    progress: bool = True
    """a progress bar"""
    report: bool = True
    """write the HTML report"""
    launch: LaunchOptions = field(default_factory=LaunchOptions)

    def __post_init__(self) -> None:
        problems = choice_problems("--preset", self.preset, grid.PRESETS)
        problems += choice_problems("--dtype", self.dtype, grid.DTYPES)
        problems += choice_problems("--allocator", self.allocator, allocator.CHOICES)
        problems += integer_problems(self, {"batch_size": 1, "dim": 1, "threads": 1})
        problems += batch_size_problems("--batch-size", self.batch_size)
        if not re.fullmatch(DEVICES, self.device):
            problems.append(f"--device {self.device}: expected auto, cpu, cuda or cuda:N")
        repeats = self._preset.repeats if self.repeats is None else self.repeats
        if repeats < 3:
            problems.append(f"--repeats {repeats}: at least 3 timed steps give a median and an IQR")
        if self.max_memory_mb is not None and not self.max_memory_mb > 0:
            option, text = as_typed("max_memory_mb", self.max_memory_mb)
            problems.append(f"{option} {text}: expected a positive number")
        cores = usable_cores()
        if self.threads is not None and self.threads > cores:
            problems.append(
                f"--threads {self.threads}: more than this machine's {cores} cores (threads "
                "beyond them wait for each other, and the times would measure that)"
            )
        try:
            self.sweep_grid  # noqa: B018 (parsed here, once: the sweep reads these values)
        except ValueError as error:
            problems += str(error).splitlines()
        try:
            self.encoder_specs  # noqa: B018 (checked here, once, beside the other options)
        except ValueError as error:
            problems += str(error).splitlines()
        if self.predict_only and self.dtype != "fp32":
            problems.append("--predict-only predicts fp32 steps; drop --dtype or the flag")
        if self.launch.jobs is not None:
            problems.append("--jobs does not apply to profile: it runs one job per encoder variant")
        if self.resume and self.out is None:
            problems.append("--resume needs --out RUN_DIR (the folder of the sweep to resume)")
        if problems:
            raise InputError("\n".join(problems))

    @property
    def _preset(self) -> grid.Preset:
        """The preset's sizes; an unknown preset's (refused beside the other problems) are the
        default preset's, so that every other option is judged at once."""
        default = next(each.default for each in fields(self) if each.name == "preset")
        return grid.PRESETS.get(self.preset, grid.PRESETS[default])

    @functools.cached_property
    def sweep_grid(self) -> tuple[tuple[int, ...], tuple[int, ...], tuple[str, ...]]:
        """(measured lengths, predicted lengths, modes), parsed once, from the options or, where
        one is unset, the preset's (``--lengths`` alone predicts at those lengths too);
        ``ValueError`` names every bad one, a line each."""
        preset = self._preset
        problems: list[str] = []

        def parsed(option: str, text: str) -> tuple[int, ...]:
            try:
                return tuple(grid.parse_lengths(text, option))
            except ValueError as error:
                problems.append(str(error))
                return ()

        # an empty --lengths is refused, not the preset's
        measured, predicted = grid.length_texts(preset, self.lengths, self.predict_lengths)
        lengths = parsed("--lengths", measured)
        if predicted == measured:
            predict_lengths = lengths
        else:
            option = "--lengths" if self.predict_lengths is None else "--predict-lengths"
            predict_lengths = parsed(option, predicted)
        try:
            modes = tuple(grid.parse_names(self.modes, MODES, "--modes"))
        except ValueError as error:
            problems.append(str(error))
            modes = ()
        if problems:
            raise ValueError("\n".join(problems))
        return lengths, predict_lengths, modes

    @functools.cached_property
    def encoder_specs(self) -> tuple[list[grid.EncoderSpec], list[str]]:
        """(the encoder variants to profile, the preset's encoders that are not registered),
        checked once: ``ValueError`` names every unknown encoder, a line each, or else every
        variant whose keywords its builder refuses (at the sweep's width, when that is valid)."""
        from encoders import list_encoders

        preset = self._preset
        specs, missing = grid.select_encoders(self.encoders or preset.encoders, list_encoders())
        dim = self.dim or preset.dim
        problems = option_problems(specs, dim) if dim >= 1 else []
        if problems:
            raise ValueError("\n".join(problems))
        return specs, missing


def option_problems(specs: list[grid.EncoderSpec], dim: int) -> list[str]:
    """Every variant whose keywords its encoder's builder refuses: an unknown keyword, or a
    value the builder rejects (built on the meta device: nothing is allocated)."""
    import torch

    from encoders import build_encoder, unknown_options_problem

    problems = []
    for spec in specs:
        unknown = unknown_options_problem(spec.name, [key for key, _ in spec.options])
        if unknown:
            problems.append(f"--encoders {spec.label}: {unknown}")
            continue
        try:
            with torch.device("meta"):
                build_encoder(spec.name, input_dim=dim, **spec.kwargs())
        except (ValueError, TypeError) as error:
            problems.append(f"--encoders {spec.label}: {error}")
    return problems
