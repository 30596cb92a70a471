"""The ``sanbench encoders`` command: its options' parser and its run function."""

from __future__ import annotations

import sys

from jsonargparse import Namespace

from harness.command_parser import CommandParser, build
from harness.encoder_list.options import ListOptions


def add_arguments(parser: CommandParser) -> None:
    parser.add_options(ListOptions)


def encoders(config: Namespace) -> int:
    """sanbench encoders: every registered encoder (built-ins and plugins) with its parameter
    count, paper and source."""
    args = build(ListOptions, config)
    from rich.table import Table

    from encoders import build_encoder, encoder_entry, list_encoders
    from encoders.plugins import failed_plugins
    from harness.console import console

    table = Table(title=f"sanbench encoders (input_dim={args.input_dim})")
    for column in ("encoder", "params", "token_dim", "output_dim", "paper", "source"):
        table.add_column(column, justify="right" if column.endswith(("params", "dim")) else "left")
    for name in list_encoders():
        entry = encoder_entry(name)
        encoder = build_encoder(name, input_dim=args.input_dim)
        params = sum(p.numel() for p in encoder.parameters())
        table.add_row(
            name,
            f"{params:,}",
            str(encoder.token_dim),
            str(encoder.output_dim),
            entry.paper,
            entry.source.describe(),
        )
    console().print(table)
    failures = failed_plugins()
    for failure in failures:
        print(f"sanbench encoders: {failure}", file=sys.stderr)
    return 1 if failures else 0
