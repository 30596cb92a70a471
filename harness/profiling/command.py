"""The ``sanbench profile`` command: its options' parser and its run function."""

from __future__ import annotations

from typing import Any

from jsonargparse import Namespace

from harness.command_parser import GIVEN, CommandParser, build
from harness.outdir import out_folder, out_folder_problems
from harness.profiling import ProfileOptions, run_profile
from harness.profiling.options import PRESETS_HELP

OUT_AFTER_CHECKS = True  # --out is marked and locked once the options are right (harness.cli)


def add_arguments(parser: CommandParser) -> None:
    parser.description = f"{parser.description}\n\npresets: {PRESETS_HELP}"
    parser.add_options(ProfileOptions)


def out_problems(values: dict[str, Any]) -> list[str]:
    """What stops the sweep from writing into ``--out`` (:func:`out_folder_problems`)."""
    return out_folder_problems(values.get("out"), "profile")


def profile(config: Namespace) -> int:
    """sanbench profile: memory/latency sweep over sequence lengths, then the HTML report.

    sanbench profile --preset quick --out runs/quick
    sanbench profile --resume --out runs/quick   # continues the sweep its manifest records
    sanbench profile --encoders disan,multi_head --lengths 64:512:64 --print_config > p.yaml
    sanbench profile --config p.yaml --out runs/p
    """
    # the encoder specs too, before --out is taken; --out's problems said beside the others'
    options = build(ProfileOptions, config, beside=out_problems)
    with out_folder("profile", options.out):
        run_profile(options, given=config[GIVEN])
    return 0
