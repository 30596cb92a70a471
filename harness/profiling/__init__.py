"""Memory and latency sweeps over sequence lengths (Bi-BloSAN Sec. 4.5, MTSA Fig. 1).

``grid`` turns options into points, ``measure`` measures one point, ``worker`` runs points in a
memory-limited child process, ``sweep`` drives the loop and writes ``profile.csv``.
"""
