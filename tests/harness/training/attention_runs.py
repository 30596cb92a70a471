"""Encoders and runs the warm-up tests share with the processes they start (no import-time
work: importing this module builds and compiles nothing)."""

from __future__ import annotations

import torch

from encoders import build_encoder


def small_bi_blosan() -> torch.nn.Module:
    """Blocks of 3 tokens, tiles of 2 queries: several tiles in the intra- and inter-block
    attentions from a dozen tokens on."""
    return build_encoder("bi_blosan", input_dim=6, hidden_dim=4, block_len=3, chunk_size=2)


def train_and_infer(encoder: torch.nn.Module, lengths: tuple[int, ...]) -> None:
    """What training, Lightning's validation and the dev inference time run: backward in train
    mode, then ``no_grad`` and ``inference_mode`` in eval mode, on padded batches."""
    generator = torch.Generator().manual_seed(1)
    for length in lengths:
        x = torch.randn(3, length, encoder.input_dim, generator=generator)
        mask = torch.arange(length) < torch.tensor([length, length - 1, 2]).unsqueeze(1)
        encoder.train()
        encoder(x, mask).pooled.sum().backward()
        encoder.eval()
        for mode in (torch.no_grad, torch.inference_mode):
            with mode():
                encoder(x, mask)
