"""``python -m reports.profile RUN_DIR``: build the profile report and print its path."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from reports.profile import build_report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reports.profile", description=__doc__)
    parser.add_argument("run_dir", type=Path, help="folder written by `sanbench profile`")
    args = parser.parse_args(argv)
    try:
        index = build_report(args.run_dir)
    except (FileNotFoundError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(index.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
