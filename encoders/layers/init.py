"""The papers' initialisation: "All weight matrices are initialized by Glorot Initialization, and
the biases are initialized with 0" (DiSAN Sec. 5, Bi-BloSAN Sec. 4.1). The one place its rule is
written: an encoder or head calls these (or ``nn.init.xavier_uniform_`` on one block of a
weight: per head, per gate), never a rule of its own."""

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


def glorot_layers_(module: nn.Module) -> nn.Module:
    """:func:`glorot_` on every linear and convolution layer of ``module`` (a task head around
    an encoder: embeddings and normalisations keep their own initialisation); in place."""
    for layer in module.modules():
        if isinstance(layer, nn.Linear | nn.Conv1d | nn.Conv2d):
            glorot_(layer)
    return module
