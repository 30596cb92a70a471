"""The ``--trainer.precision`` and ``--trainer.accelerator`` values a fit cannot train right
at here, refused before any data is read (docs/training.md, "Precision").

fp16 needs its loss scaled: Lightning's ``16-true`` keeps weights and gradients in fp16 with no
scaling, so a gradient or a loss leaves fp16's range (a nan loss; at one step a nan dev and
test loss). ``16-mixed`` scales the loss, but fp16 autocast needs CUDA: on a CPU Lightning
trains in ``bf16-mixed`` in its place (with a warning of its own), and the run recorded
``16-mixed``. bf16 has float32's range and needs no scaling.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Mapping
from typing import Any

from jsonargparse import Namespace

from harness.command_parser import flow_text, typed_entry

# Lightning's spellings of fp16 autocast with loss scaling (``16`` is its old name)
FP16_MIXED = ("16-mixed", "16")
FP16_TRUE = "16-true"
CPU_ACCELERATORS = ("cpu",)
AUTO_ACCELERATORS = ("auto", None)
CUDA_ACCELERATORS = ("gpu", "cuda")
# NVIDIA Transformer Engine's fp8: its package and a CUDA GPU
TRANSFORMER_ENGINE = ("transformer-engine", "transformer-engine-float16")


def _on_cuda(accelerator: Any) -> bool | None:
    """Whether the trainer's ``accelerator`` trains on CUDA here: False on the CPU (given, or
    chosen by ``auto`` on a machine with no CUDA), True on CUDA, None when another device or an
    instance decides (Lightning judges those)."""
    import torch

    if accelerator in CPU_ACCELERATORS:
        return False
    if accelerator in AUTO_ACCELERATORS or accelerator in CUDA_ACCELERATORS:
        if torch.cuda.is_available():
            return True
        if accelerator in AUTO_ACCELERATORS and not torch.backends.mps.is_available():
            return False
    return None


def precision_problems(
    trainer: Mapping[str, Any], typed: Mapping[str, tuple[str, str]] | None = None
) -> list[str]:
    """The one line refusing fp16 where it cannot train right: ``16-true`` anywhere (no loss
    scaling), ``16-mixed`` (or ``16``) on a CPU; it names what does (``bf16-mixed``, and
    ``16-mixed`` on CUDA). The option is named as ``typed`` holds it."""
    precision = trainer.get("precision")
    value = str(precision)
    cuda = _on_cuda(trainer.get("accelerator"))
    option, text = (typed or {}).get("trainer.precision", ("--trainer.precision", value))
    if value == FP16_TRUE:
        instead = "bf16-mixed, or 16-mixed (fp16 autocast, the loss scaled)"
        where = "" if cuda else " on a CUDA GPU"
        return [
            f"{option} {text}: fp16 weights and gradients with no loss scaling (Lightning "
            "scales none at 16-true): the loss and gradients leave fp16's range and train to "
            f"nan; give {instead}{where}"
        ]
    if value in FP16_MIXED and cuda is False:
        return [
            f"{option} {text}: fp16 autocast needs a CUDA GPU (on this CPU Lightning would train "
            "in bf16-mixed in its place); give bf16-mixed"
        ]
    if value in TRANSFORMER_ENGINE and (
        cuda is False or importlib.util.find_spec("transformer_engine") is None
    ):
        return [
            f"{option} {text}: NVIDIA Transformer Engine's fp8 needs its transformer_engine "
            "package and a CUDA GPU; give bf16-mixed"
        ]
    return []


def accelerator_problems(
    trainer: Mapping[str, Any], typed: Mapping[str, tuple[str, str]] | None = None
) -> list[str]:
    """The one line refusing an accelerator Lightning knows that cannot run here (``cuda``,
    ``gpu``, ``mps`` or ``tpu`` on this machine): Lightning said so after the data was read, in
    its own words (``tpu`` as an internal error: torch_xla missing). A config file's
    ``class_path`` mapping of one of their classes is judged alike (Lightning's words after the
    data was read; suite's, tune's and reproduce's runs each failed so). The option is named as
    ``typed`` holds it."""
    import torch
    from lightning.pytorch.accelerators import AcceleratorRegistry

    accelerator = trainer.get("accelerator")
    name = registered_name(accelerator)
    if name is None:
        return []  # auto, an instance, a class of the user's, a name lightning_name_problems says
    if AcceleratorRegistry[name]["accelerator"].is_available():
        return []
    option, text = typed_entry(typed or {}, "trainer.accelerator") or (
        "--trainer.accelerator",
        flow_text(accelerator),
    )
    usable = ", ".join(
        each
        for each in sorted(AcceleratorRegistry.available_accelerators())
        if AcceleratorRegistry[each]["accelerator"].is_available()
    )
    built = "a CPU-only build" if torch.version.cuda is None else f"CUDA {torch.version.cuda}"
    missing = UNAVAILABLE.get(name, f"Lightning's {name} accelerator cannot run here")
    return [
        f"{option} {text}: {missing.format(torch=f'{torch.__version__}, {built}')}; give "
        f"{usable} or auto"
    ]


def registered_name(accelerator: Any) -> str | None:
    """The name Lightning's registry gives ``accelerator``: a name it holds (``gpu`` is
    ``cuda``), or a ``class_path`` mapping of a class it holds; None for any other value."""
    from lightning.pytorch.accelerators import AcceleratorRegistry

    if isinstance(accelerator, str):
        name = "cuda" if accelerator == "gpu" else accelerator
        return name if name in AcceleratorRegistry else None
    if not isinstance(accelerator, Mapping | Namespace):
        return None
    module, _, class_name = str(accelerator.get("class_path")).rpartition(".")
    try:
        found = getattr(importlib.import_module(module), class_name)
    except (ImportError, AttributeError, ValueError):
        return None  # jsonargparse refuses it first
    return next(
        (
            name
            for name in AcceleratorRegistry.available_accelerators()
            if AcceleratorRegistry[name]["accelerator"] is found
        ),
        None,
    )


# what each accelerator Lightning knows needs, for the line refusing it where it cannot run
UNAVAILABLE = {
    "cuda": "torch ({torch}) sees no CUDA device here",
    "mps": "torch ({torch}) sees no Apple MPS device here (Apple silicon, macOS)",
    "tpu": "Lightning finds no torch_xla package or TPU device here",
}


# Lightning's old names and the precision it runs each as (it warns at each of 16 and bf16)
OLD_NAMES = {"16": "16-mixed", "bf16": "bf16-mixed", "32": "32-true", "64": "64-true"}


def record_run_name(config: Any) -> None:
    """Put a precision given by its old name (``16``, ``bf16``, ``32``, ``64``) in ``config``
    as the name Lightning runs it as (``bf16`` trains in ``bf16-mixed``): recorded, printed and
    passed to the Trainer so."""
    value = str(config.get("trainer.precision"))
    if value in OLD_NAMES:
        config["trainer.precision"] = OLD_NAMES[value]
