"""The step ``profile`` measures and predicts: a point (an encoder variant at one length and
mode), its synthetic inputs and the unit of work run on them.

Inputs are synthetic, as in Bi-BloSAN Sec. 4.5: x ~ N(0, 1) of shape [batch, L, dim] with every
token real (on ``meta``: shapes only). ``infer`` is one eval-mode forward under
``torch.inference_mode``; ``train`` is forward + backward of ``pooled.mean()`` (parameters,
gradients and activations; no optimizer state). Steps run under autocast when the dtype is
bf16/fp16 (fp32 weights, mixed precision). ``harness.profiling.measure`` times and measures the
step, ``harness.memory_prediction.step`` runs it on meta tensors. Importing this module imports
no torch (``profile``'s options are checked before torch loads).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import yaml

if TYPE_CHECKING:
    import torch

MODES = ("infer", "train")  # the step's modes (this module's docstring)
# ``--dtype``'s names of torch's dtypes
TORCH_DTYPES = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}


@dataclass(frozen=True)
class Point:
    """One measurement: ``encoder`` (built with ``options``, ``"key=value:..."``) on
    [batch_size, seq_len, dim] inputs in ``mode``."""

    encoder: str
    seq_len: int
    mode: str
    batch_size: int
    dim: int
    options: str = ""

    def __str__(self) -> str:
        """``disan:chunk_size=16 L=64 train at [8, 64, 300]``: as the sweep's lines name it."""
        name = f"{self.encoder}:{self.options}" if self.options else self.encoder
        shape = f"[{self.batch_size}, {self.seq_len}, {self.dim}]"
        return f"{name} L={self.seq_len} {self.mode} at {shape}"


def encoder_options(point: Point) -> dict[str, Any]:
    """Builder keywords of a point: its variant options, and for encoders with a block length
    (Bi-BloSAN) r = ceil(cbrt(2L)) for the profiled length L (Eq. 19, Appendix A) unless the
    variant sets one."""
    from encoders import builder_accepts
    from encoders.layers.block_length import block_length

    options = dict(parse_options(point.options))
    if "block_len" not in options and builder_accepts(point.encoder, "block_len"):
        options["block_len"] = block_length(point.seq_len)
    return options


def option_parts(text: str) -> list[tuple[str, str, str]]:
    """The one reading of a variant's options ``"a=1:b=chunked"``: each ``:``-part as written,
    ``(key, "=", value)`` (``(part, "", "")`` without ``=``), nothing stripped, empty parts kept."""
    return [part.partition("=") for part in text.split(":")]


def variant_parts(text: str) -> tuple[str, str, list[tuple[str, str, str]]]:
    """``NAME:KEY=VALUE:...`` as written: ``(name, ":" or "", option_parts(the rest))``."""
    name, sep, options = text.partition(":")
    return name, sep, option_parts(options)


def parse_options(text: str) -> tuple[tuple[str, Any], ...]:
    """``"a=1:b=chunked"`` -> ``(("a", 1), ("b", "chunked"))``; values are YAML scalars."""
    options = []
    for key, sep, value in option_parts(text):
        part = key + sep + value
        if not part:
            continue
        if not sep or not key.strip() or not value.strip():
            raise ValueError(
                f"bad encoder option {part!r} in {text!r}: expected KEY=VALUE, e.g. "
                "disan:attention_impl=chunked:chunk_size=16"
            )
        options.append((key.strip(), yaml.safe_load(value.strip())))
    return tuple(options)


def synthetic_batch(point: Point, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    import torch

    shape = (point.batch_size, point.seq_len, point.dim)
    if device.type == "meta":
        x = torch.empty(shape, device=device)
    else:
        generator = torch.Generator(device=device).manual_seed(0)
        x = torch.randn(shape, generator=generator, device=device)
    mask = torch.ones(shape[:2], dtype=torch.bool, device=device)
    return x, mask


def make_step(
    model: torch.nn.Module,
    x: torch.Tensor,
    mask: torch.Tensor,
    mode: str,
    dtype: str,
) -> Callable[[], None]:
    """The unit of work that is timed and measured (see the module docstring)."""
    import torch

    autocast = (
        torch.autocast(x.device.type, dtype=getattr(torch, TORCH_DTYPES[dtype]))
        if dtype != "fp32"
        else contextlib.nullcontext()
    )
    if mode == "infer":
        model.eval()

        def infer() -> None:
            with torch.inference_mode(), autocast:
                model(x, mask)

        return infer

    model.train()

    def train() -> None:
        model.zero_grad(set_to_none=True)
        with autocast:
            loss = model(x, mask).pooled.float().mean()
        loss.backward()

    return train
