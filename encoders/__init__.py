"""Sentence encoders behind one interface and a registry.

from encoders import build_encoder, list_encoders, EncoderOutput
enc = build_encoder("disan", input_dim=300)
out = enc(x, mask)  # x [B, L, input_dim], mask bool [B, L] -> out.tokens, out.pooled
"""

from encoders import _catalog  # noqa: F401  (imports every encoder module so they register)
from encoders.base import Encoder, EncoderOutput
from encoders.registry import (
    build_encoder,
    builder_accepts,
    current_options,
    encoder_entry,
    list_encoders,
    register_encoder,
    unknown_options_problem,
)

__all__ = [
    "Encoder",
    "EncoderOutput",
    "build_encoder",
    "builder_accepts",
    "current_options",
    "encoder_entry",
    "list_encoders",
    "register_encoder",
    "unknown_options_problem",
]
