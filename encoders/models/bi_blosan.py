"""Bi-BloSAN (Shen et al., ICLR 2018, Sec. 3.2) and its Table 3 ablations."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn

from encoders.base import Encoder, EncoderOutput
from encoders.dropout_settings import BI_BLOSAN_SNLI
from encoders.layers.activation import activation_class
from encoders.layers.block_length import block_length
from encoders.layers.init import glorot_
from encoders.layers.masking import zero_padding
from encoders.layers.mblosa import MaskedBlockSelfAttention
from encoders.layers.source2token import Source2Token
from encoders.layers.tanh_attention import DEFAULT_CHUNK_SIZE, DEFAULT_IMPL, memory_by_shape
from encoders.registry import register_encoder

PAPER = "Bi-BloSAN: Shen et al., ICLR 2018"
DIRS = ("forward", "backward")
# r when the caller gives none: Eq. 19 for sentences of up to 32 tokens, what Appendix A's
# Eq. 23 bound gives for the papers' sentence tasks (TREC: mu 10.2, sigma 3.9, B 32 -> n 20.5).
DEFAULT_BLOCK_LEN = block_length(32)


class BiBloSAN(Encoder):
    """Two untied FC layers x_d = sigma(W_d x + b_d), forward / backward mBloSA, [u_fw; u_bw]
    tokens, and a multi-dimensional source2token attention (Eq. 8) on top for the sentence vector.

    ``activation`` is every unspecified sigma (the FC layers, the block and sentence
    source2token MLPs, the fusion candidate F of Eq. 16): ReLU, as Sec. 4.1 sets "the unspecified
    activation functions in all models" and the authors' classification code passes ``'relu'``.

    ``block_len`` is r, a property of the model: the same for every batch, so a sentence's output
    does not depend on how its batch is padded, and saved with the weights (``state_dict`` extra
    state). Choose it with :func:`block_length` from the data (App. A, Eq. 19-23).
    ``use_local`` / ``use_global`` select the Table 3 ablations (see ``MaskedBlockSelfAttention``).
    Dropout is applied to the encoder input and to [u_fw; u_bw] before the source2token layer.
    ``attention_impl`` / ``chunk_size``: how the intra- and inter-block multi-dimensional
    attentions are computed: exact query tiles (``chunked``, the default) or the papers' ``naive``
    computation (``encoders.layers.tanh_attention``).
    """

    def __init__(
        self,
        input_dim: int,
        hidden_dim: int,
        dropout: float,
        block_len: int,
        use_local: bool = True,
        use_global: bool = True,
        attention_impl: str = DEFAULT_IMPL,
        chunk_size: int | None = DEFAULT_CHUNK_SIZE,
        activation: str = "relu",
    ):
        super().__init__()
        sigma = activation_class(activation)
        if block_len < 1:
            raise ValueError(f"block_len must be a positive integer, not {block_len}")
        self.input_dim = input_dim
        self.token_dim = 2 * hidden_dim
        self.output_dim = 2 * hidden_dim
        self.block_len = block_len
        self.dropout = nn.Dropout(dropout)
        self.fc = glorot_(
            nn.ModuleList(nn.Sequential(nn.Linear(input_dim, hidden_dim), sigma()) for _ in DIRS)
        )  # untied, one per direction; Glorot weights, zero biases (Sec. 4.1)
        self.mblosa = nn.ModuleList(
            MaskedBlockSelfAttention(
                hidden_dim,
                name,
                use_local,
                use_global,
                activation=sigma,
                impl=attention_impl,
                chunk_size=chunk_size,
            )
            for name in DIRS
        )
        self.pool = Source2Token(self.token_dim, activation=sigma)

    def get_extra_state(self) -> dict[str, int]:
        """r travels with the weights, so a checkpoint restores the model it was trained as."""
        return {"block_len": self.block_len}

    def set_extra_state(self, state: dict[str, int]) -> None:
        self.block_len = int(state["block_len"])

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> EncoderOutput:
        x = self.dropout(zero_padding(x, mask))
        directions = [
            mblosa(fc(x), mask, self.block_len)
            for fc, mblosa in zip(self.fc, self.mblosa, strict=True)
        ]
        tokens = torch.cat(directions, dim=-1)  # mBloSA zeroes padded positions
        pooled = self.pool(self.dropout(tokens), mask)
        return EncoderOutput(tokens=tokens, pooled=pooled)


def _register(name: str, paper: str, doc: str, **parts: bool) -> Callable[..., Encoder]:
    """Register Bi-BloSAN, or one of its Table 3 ablations (``parts`` off), under ``name``."""

    def build(
        input_dim: int = 300,
        hidden_dim: int = 300,
        dropout: float = 0.25,
        block_len: int = DEFAULT_BLOCK_LEN,
        attention_impl: str = DEFAULT_IMPL,
        chunk_size: int | None = DEFAULT_CHUNK_SIZE,
        activation: str = "relu",
    ) -> Encoder:
        return BiBloSAN(
            input_dim,
            hidden_dim,
            dropout,
            block_len,
            attention_impl=attention_impl,
            chunk_size=chunk_size,
            activation=activation,
            **parts,
        )

    build.__name__ = build.__qualname__ = f"build_{name}"
    build.__doc__ = doc
    return register_encoder(
        name, paper=paper, dropout_from=BI_BLOSAN_SNLI, memory_by_shape=memory_by_shape
    )(build)


build_bi_blosan = _register(
    "bi_blosan",
    PAPER + ", Sec. 3",
    "Bi-BloSAN; hidden 300 is the 600D model, hidden 240 the 480D model of Table 1.",
)
build_bi_blosan_no_local = _register(
    "bi_blosan_no_local",
    PAPER + ", Table 3 (w/o Local)",
    "Bi-BloSAN without the local context h in the fusion gate (Eq. 16-17 over [x; E]).",
    use_local=False,
)
build_bi_blosan_no_global = _register(
    "bi_blosan_no_global",
    PAPER + ", Table 3 (w/o Global)",
    "Bi-BloSAN without the global context E (no block source2token, no inter-block attention).",
    use_global=False,
)
