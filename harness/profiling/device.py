"""The device a sweep's ``--device`` names on this machine (one fact: the sweep and its
manifest's check of a resume both ask it)."""

from __future__ import annotations

import platform

from harness.errors import InputError


def resolve_device(name: str) -> str:
    """``--device`` (spelled as ``options.DEVICES``) on this machine: ``auto`` is cuda where
    CUDA is available, else cpu; :class:`InputError` for a CUDA device this machine lacks."""
    import torch

    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name.startswith("cuda"):
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        index = int(name.partition(":")[2] or 0)
        if index >= count:
            raise InputError(
                f"--device {name}: {platform.node()} has {count} CUDA devices (torch "
                f"{torch.__version__}); profile where they are (--launcher slurm --slurm-gpus 1)"
            )
    return name
