"""Memory and latency sweeps over sequence lengths (Bi-BloSAN Sec. 4.5, MTSA Fig. 1).

``grid`` turns options into points, ``measure`` measures one point, ``worker`` runs points in a
memory-limited child process, ``sweep`` drives the loop and writes ``profile.csv``.
"""

from harness.profiling.options import ProfileOptions
from harness.profiling.profile import run_profile

__all__ = ["ProfileOptions", "run_profile"]
