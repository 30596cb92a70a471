"""The papers' initialisation: "All weight matrices are initialized by Glorot Initialization, and
the biases are initialized with 0" (DiSAN Sec. 5, Bi-BloSAN Sec. 4.1)."""

from __future__ import annotations

from torch import nn


def glorot_(module: nn.Module) -> nn.Module:
    """Glorot-uniform every parameter of ``module`` with >= 2 dims, zero the others; in place."""
    for param in module.parameters():
        if param.ndim >= 2:
            nn.init.xavier_uniform_(param)
        else:
            nn.init.zeros_(param)
    return module
