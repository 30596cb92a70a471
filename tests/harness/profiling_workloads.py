"""Test-only encoders whose growth in L is known, for the profiling tests.

``test_quadratic`` materialises tanh(x_i + x_j) of shape [B, L, L, d] (DiSAN-like: memory and
time grow as L^2); ``test_linear`` is a token-wise layer (memory and time grow as L).
Imported by the sweep and its workers through ``--import tests.harness.profiling_workloads``.
"""

from __future__ import annotations

import torch
from torch import nn

from encoders import Encoder, EncoderOutput, list_encoders, register_encoder


class _Workload(Encoder):
    def __init__(self, input_dim: int, hidden_dim: int, pairwise: bool):
        super().__init__()
        self.input_dim = input_dim
        self.token_dim = self.output_dim = hidden_dim
        self.pairwise = pairwise
        self.proj = nn.Linear(input_dim, hidden_dim)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> EncoderOutput:
        if self.pairwise:
            x = torch.tanh(x.unsqueeze(2) + x.unsqueeze(1)).mean(2)  # [B, L, L, d] -> [B, L, d]
        tokens = torch.tanh(self.proj(x)) * mask.unsqueeze(-1)
        count = mask.sum(1, keepdim=True).clamp(min=1)
        return EncoderOutput(tokens=tokens, pooled=tokens.sum(1) / count)


def _register(name: str, pairwise: bool) -> None:
    if name in list_encoders():  # imported again (pytest and worker module paths)
        return

    @register_encoder(name, paper="test workload")
    def build(input_dim: int = 300, hidden_dim: int | None = None, dropout: float = 0.0) -> Encoder:
        return _Workload(input_dim, hidden_dim or input_dim, pairwise)


_register("test_quadratic", pairwise=True)
_register("test_linear", pairwise=False)
