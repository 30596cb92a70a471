"""``sanbench encoders``: every registered encoder with its parameter count and paper."""

from __future__ import annotations

import argparse

from harness.arguments import positive_int


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--input-dim", type=positive_int, default=300, help="word vector size")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from encoders import build_encoder, encoder_entry, list_encoders

    table = Table(title=f"sanbench encoders (input_dim={args.input_dim})")
    for column in ("encoder", "params", "token_dim", "output_dim", "paper"):
        table.add_column(column, justify="right" if column.endswith(("params", "dim")) else "left")
    for name in list_encoders():
        encoder = build_encoder(name, input_dim=args.input_dim)
        params = sum(p.numel() for p in encoder.parameters())
        table.add_row(
            name,
            f"{params:,}",
            str(encoder.token_dim),
            str(encoder.output_dim),
            encoder_entry(name).paper,
        )
    Console().print(table)
    return 0
