"""Memory and latency sweeps over sequence lengths (Bi-BloSAN Sec. 4.5, MTSA Fig. 1).

Read down: ``profile`` plans the sweep from its options (``grid``: the sweep and its points) and
runs it here (``sweep``: the loop, writing ``profile.csv``) or as jobs (``jobs``, each a
``sweep``); ``worker`` measures points (``measure.point_metrics``) in a memory-limited child
process, and ``harness.memory_prediction`` predicts them, both on the step of
``harness.measurement``.
"""

from harness.profiling.options import ProfileOptions
from harness.profiling.profile import run_profile

__all__ = ["ProfileOptions", "run_profile"]
