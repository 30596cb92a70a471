"""Recurrent baselines: Bi-LSTM, Bi-GRU, Bi-SRU (Bi-BloSAN Sec. 4, MTSA Sec. 4) and DiSAN's
"Bi-LSTM with s2t self-attention" (DiSAN Sec. 5.1).

Every one is a context-fusion RNN with a multi-dimensional source2token attention on top for the
sentence vector, as in the papers ("a multi-dim source2token self-attention is applied on the top
of context fusion module", MTSA Sec. 4) and the authors' ``sentence_encoding_models``.
"""

from __future__ import annotations

import contextlib

import torch
from torch import nn

from encoders.base import Encoder
from encoders.dropout_settings import BI_BLOSAN_SNLI, DISAN_SNLI
from encoders.layers.init import glorot_
from encoders.layers.masking import zero_padding
from encoders.layers.reverse import gather_steps, reversed_index
from encoders.layers.source2token_encoder import Source2TokenEncoder
from encoders.models.sru import BiSRU
from encoders.registry import register_encoder

_CELLS: dict[str, type[nn.RNNBase]] = {"lstm": nn.LSTM, "gru": nn.GRU}


class BiRNN(nn.Module):
    """[h_fw; h_bw] of two untied LSTM/GRU directions: [B, L, D] -> [B, L, 2H].

    The backward RNN runs left to right over each sentence reversed within its own length, so it
    starts at the sentence's last real token, and in both directions every padded step comes after
    all real steps: padding never reaches a real token, and padded outputs are zeroed. (Packed
    sequences give the same result but their CPU backward pass is quadratic in L.)
    Weights start Glorot-uniform, biases zero; the LSTM forget-gate bias starts at 1, the value
    TensorFlow's ``LSTMCell`` (the authors' cell) adds as ``forget_bias``.
    Under CPU autocast the recurrences run in float32: oneDNN's reduced-precision LSTM is missing
    on CPUs without bf16 instructions ("could not create a primitive descriptor").
    """

    def __init__(self, cell: str, input_dim: int, hidden_dim: int):
        super().__init__()
        self.forward_rnn = _CELLS[cell](input_dim, hidden_dim, batch_first=True)
        self.backward_rnn = _CELLS[cell](input_dim, hidden_dim, batch_first=True)
        glorot_(self)
        if cell == "lstm":  # gate order i, f, g, o
            for rnn in (self.forward_rnn, self.backward_rnn):
                nn.init.ones_(rnn.bias_ih_l0[hidden_dim : 2 * hidden_dim])

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        reverse = reversed_index(mask.sum(dim=1), x.shape[1])
        cpu_autocast = x.device.type == "cpu" and torch.is_autocast_enabled("cpu")
        with torch.autocast("cpu", enabled=False) if cpu_autocast else contextlib.nullcontext():
            x = x.float() if cpu_autocast else x
            forward_out, _ = self.forward_rnn(x)
            backward_out, _ = self.backward_rnn(gather_steps(x, reverse))
        outputs = torch.cat([forward_out, gather_steps(backward_out, reverse)], dim=-1)
        return zero_padding(outputs, mask)


def _recurrent(
    fusion: nn.Module, input_dim: int, hidden_dim: int, dropout: float, activation: type[nn.Module]
) -> Encoder:
    return Source2TokenEncoder(fusion, input_dim, 2 * hidden_dim, dropout, activation)


@register_encoder(
    "bilstm",
    paper="Graves et al. 2013; baseline of Bi-BloSAN (ICLR 2018) Sec. 4",
    dropout_from=BI_BLOSAN_SNLI,
    memory_by_shape=True,
)
def build_bilstm(input_dim: int = 300, hidden_dim: int = 300, dropout: float = 0.25) -> Encoder:
    """600D Bi-LSTM (300 forward + 300 backward) + multi-dim source2token (ReLU, Bi-BloSAN 4.1)."""
    return _recurrent(BiRNN("lstm", input_dim, hidden_dim), input_dim, hidden_dim, dropout, nn.ReLU)


@register_encoder(
    "bigru",
    paper="Chung et al. 2014; baseline of Bi-BloSAN (ICLR 2018) Sec. 4",
    dropout_from=BI_BLOSAN_SNLI,
    memory_by_shape=True,
)
def build_bigru(input_dim: int = 300, hidden_dim: int = 300, dropout: float = 0.25) -> Encoder:
    """600D Bi-GRU (300 + 300) + multi-dim source2token (ReLU, Bi-BloSAN Sec. 4.1)."""
    return _recurrent(BiRNN("gru", input_dim, hidden_dim), input_dim, hidden_dim, dropout, nn.ReLU)


@register_encoder(
    "bisru",
    paper="Lei & Zhang 2017; baseline of Bi-BloSAN (ICLR 2018) Sec. 4",
    dropout_from=BI_BLOSAN_SNLI,
    memory_by_shape=True,
)
def build_bisru(input_dim: int = 300, hidden_dim: int = 300, dropout: float = 0.25) -> Encoder:
    """600D Bi-SRU (300 + 300, plain PyTorch) + multi-dim source2token (ReLU)."""
    return _recurrent(BiSRU(input_dim, hidden_dim), input_dim, hidden_dim, dropout, nn.ReLU)


@register_encoder(
    "bilstm_s2t",
    paper="DiSAN (AAAI 2018) Sec. 5.1: Bi-LSTM with s2t self-attention",
    dropout_from=DISAN_SNLI,
    memory_by_shape=True,
)
def build_bilstm_s2t(input_dim: int = 300, hidden_dim: int = 300, dropout: float = 0.25) -> Encoder:
    """Bi-LSTM (300 + 300) + multi-dim source2token with DiSAN's ELU activation.

    The same network as ``bilstm``; DiSAN's setup uses ELU where Bi-BloSAN's uses ReLU.
    """
    return _recurrent(BiRNN("lstm", input_dim, hidden_dim), input_dim, hidden_dim, dropout, nn.ELU)
