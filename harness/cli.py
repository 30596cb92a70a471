"""The ``sanbench`` console command: one subcommand per module, imported only when used."""

from __future__ import annotations

import argparse
import importlib
import sys

from harness.commands.quiet import hide_lightning_tips

# subcommand -> (module providing ``add_arguments(parser)`` and ``run(args) -> int``, help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "encoders": ("harness.commands.encoders", "list every registered encoder"),
    "profile": ("harness.commands.profile", "memory/latency sweep over sequence lengths"),
    "data": ("datamodules.cli", "inspect benchmark files (stats, coverage, errors)"),
    "fit": ("harness.commands.fit", "train, validate and test one model"),
    "predict": ("harness.commands.predict", "labels of new sentences from a fit checkpoint"),
    "encode": ("harness.commands.encode", "sentence vectors of new sentences from a checkpoint"),
    "suite": ("harness.commands.suite", "run a grid of tasks x encoders x seeds"),
    "tune": ("harness.commands.tune", "optuna studies (block length, dropout)"),
    "report": ("reports.cli", "build the HTML/PNG report from run folders"),
}


def _parser(argv: list[str]) -> tuple[argparse.ArgumentParser, object]:
    parser = argparse.ArgumentParser(prog="sanbench", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    chosen = argv[0] if argv else None
    module = None
    for name, (module_path, help_text) in SUBCOMMANDS.items():
        command_parser = sub.add_parser(name, help=help_text)
        if name == chosen:
            module = importlib.import_module(module_path)
            module.add_arguments(command_parser)
    return parser, module


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    hide_lightning_tips()
    parser, module = _parser(argv)
    args = parser.parse_args(argv)
    return int(module.run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
