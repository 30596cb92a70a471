"""One worker of ``sanbench reproduce``: shard K/N of the preset's grid, in this process.

    python -m harness.reproduce.worker --preset '{"tasks": [...], ...}' --shard 1/2 \\
        --out OUT --data-dir D [--embeddings E]

Exit status 1 when a run failed (its row and ``error.txt`` say why).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from harness.commands.quiet import hide_lightning_tips, hide_srun_hint
from harness.reproduce.preset import Preset
from harness.suite.grid import Shard


def preset_from_json(text: str) -> Preset:
    return Preset.from_dict(json.loads(text))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", type=preset_from_json, required=True)
    parser.add_argument("--shard", type=Shard.parse, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--embeddings", type=Path)
    args = parser.parse_args(argv)
    hide_lightning_tips()
    hide_srun_hint()

    from harness.suite.runner import run_shard
    from harness.training.run import run_fit

    summary = run_shard(
        args.preset.grid(),
        shard=args.shard,
        out_dir=args.out,
        fit=run_fit,
        data_dir=args.data_dir,
        embeddings=args.embeddings,
        overrides=args.preset.overrides,
        log=lambda line: print(line, flush=True),
    )
    print(
        f"worker {args.shard.label}: {len(summary.ran)} ran, {len(summary.skipped)} already "
        f"done, {len(summary.failed)} failed",
        flush=True,
    )
    return 1 if summary.failed else 0


if __name__ == "__main__":
    sys.exit(main())
