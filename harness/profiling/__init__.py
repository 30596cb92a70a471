"""Memory and latency sweeps over sequence lengths (Bi-BloSAN Sec. 4.5, MTSA Fig. 1).

Read down: ``profile`` plans the sweep from its options (``grid``: the sweep and its points) and
runs it here (``sweep``: the loop, writing ``profile.csv``) or as jobs (``jobs``, each a
``sweep``); ``worker`` measures points (``measure.point_metrics``) in a memory-limited child
process, and ``harness.memory_prediction`` predicts them, both on the step of
``harness.measurement``.

The package's names are imported when first asked for (PEP 562): ``python -m
harness.profiling.gpu_checks`` imports this package before its own interrupt hold, and the
options' jsonargparse took 0.2-0.7 s there (a Ctrl-C in it gave Python's traceback).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.profiling.options import ProfileOptions
    from harness.profiling.profile import run_profile

__all__ = ["ProfileOptions", "run_profile"]
# each name of ``__all__`` and the module that defines it
_DEFINED_IN = {"ProfileOptions": "options", "run_profile": "profile"}


def __getattr__(name: str) -> Any:
    """``ProfileOptions`` or ``run_profile``, imported from its module on first use."""
    if name not in _DEFINED_IN:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_DEFINED_IN[name]}"), name)
