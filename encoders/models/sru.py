"""Bi-directional Simple Recurrent Unit (Lei & Zhang 2017) in plain PyTorch.

The three matrix products of every time step are computed for all steps at once; only the
elementwise recurrence c_t = f_t * c_{t-1} + (1 - f_t) * x~_t stays in the time loop ("sped-up
recurrence but no CUDA level optimization", Bi-BloSAN Sec. 4).
"""

from __future__ import annotations

import torch
from torch import nn

from encoders.layers.init import glorot_
from encoders.layers.masking import zero_padding
from encoders.layers.reverse import gather_steps, reversed_index


class SRUDirection(nn.Module):
    """Projections of one SRU direction (Lei & Zhang 2017, Eq. 1-4).

    x~_t = W x_t, f_t = sigmoid(W_f x_t + b_f), r_t = sigmoid(W_r x_t + b_r),
    c_t = f_t * c_{t-1} + (1 - f_t) * x~_t, h_t = r_t * tanh(c_t) + (1 - r_t) * x_t.
    When the input width differs from the hidden width the highway term uses W' x_t instead of
    x_t, as Lei et al.'s released SRU does with a fourth matrix (absent at the papers' 300 -> 300).
    """

    def __init__(self, input_dim: int, hidden_dim: int):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.gates = nn.Linear(input_dim, 3 * hidden_dim, bias=False)
        self.gate_bias = nn.Parameter(torch.zeros(2 * hidden_dim))
        self.highway = None if input_dim == hidden_dim else nn.Linear(input_dim, hidden_dim, False)

    def project(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """(x~, f, r, highway input), each [B, L, hidden_dim], for all steps at once."""
        candidate, gate_inputs = self.gates(x).split([self.hidden_dim, 2 * self.hidden_dim], -1)
        forget, reset = torch.sigmoid(gate_inputs + self.gate_bias).chunk(2, dim=-1)
        skip = x if self.highway is None else self.highway(x)
        return candidate, forget, reset, skip


class BiSRU(nn.Module):
    """[h_fw; h_bw] of two untied SRU directions; [B, L, D] -> [B, L, 2 * hidden_dim].

    The backward direction reads each sentence reversed within its own length, so in both
    directions every padded step comes after all real steps and never reaches a real token's
    state; outputs at padded positions are zeroed. Glorot-uniform weights, zero biases.
    """

    def __init__(self, input_dim: int, hidden_dim: int):
        super().__init__()
        self.forward_cell = SRUDirection(input_dim, hidden_dim)
        self.backward_cell = SRUDirection(input_dim, hidden_dim)
        glorot_(self)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        batch, max_len, _ = x.shape
        reverse = reversed_index(mask.sum(dim=1), max_len)
        forward_parts = self.forward_cell.project(x)
        backward_parts = self.backward_cell.project(gather_steps(x, reverse))
        # Both directions run in one loop: they are stacked along the batch dimension.
        candidate, forget, reset, skip = (
            torch.cat(pair, dim=0) for pair in zip(forward_parts, backward_parts, strict=True)
        )
        # unbind (not indexing) keeps the backward pass linear in L: one gradient stack, not a
        # full-size zero tensor per step.
        decays = forget.transpose(0, 1).contiguous().unbind(0)  # L x [2B, H]
        drives = ((1 - forget) * candidate).transpose(0, 1).contiguous().unbind(0)
        state = torch.zeros_like(drives[0])
        states = []
        for drive, decay in zip(drives, decays, strict=True):
            state = torch.addcmul(drive, decay, state)
            states.append(state)
        cells = torch.stack(states, dim=1)  # [2B, L, H]
        hidden = reset * torch.tanh(cells) + (1 - reset) * skip
        forward_out, backward_out = hidden.split(batch, dim=0)
        outputs = torch.cat([forward_out, gather_steps(backward_out, reverse)], dim=-1)
        return zero_padding(outputs, mask)
