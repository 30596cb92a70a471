"""``sanbench fit``: train, validate and test one model; every config value is overridable.

    sanbench fit --task trec --encoder bi_blosan --data-dir D --embeddings FILE --out DIR \\
        --max-steps 50 --optimizer adam --dropout 0.3 --encoder-options '{block_len: 4}'

Each key of ``harness/training/configs/<task>.yaml`` becomes an option (``max_steps`` ->
``--max-steps``); values are parsed as YAML, so ``null``, numbers, lists and mappings work.
``--config FILE`` applies a YAML mapping of overrides first; explicit options win over it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import yaml

from harness.training.run import list_task_configs, load_task_config, run_fit

NOT_OVERRIDABLE = {"encoder_overrides"}


def _yaml_value(text: str) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise argparse.ArgumentTypeError(f"not a YAML value: {text!r} ({error})") from None


def config_keys() -> list[str]:
    """Every overridable key over all task configs."""
    keys: set[str] = set()
    for task in list_task_configs():
        keys |= set(load_task_config(task))
    return sorted(keys - NOT_OVERRIDABLE)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--task", required=True, choices=list_task_configs())
    parser.add_argument("--encoder", required=True, help="a name from `sanbench encoders`")
    parser.add_argument("--data-dir", type=Path, required=True, help="the task's data folder")
    parser.add_argument("--embeddings", type=Path, default=None, help="GloVe text file")
    parser.add_argument("--out", type=Path, required=True, help="run folder (resumed if present)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fold", type=int, default=None, help="test fold (CV tasks)")
    parser.add_argument("--config", type=Path, default=None, help="YAML mapping of overrides")
    group = parser.add_argument_group("config overrides (defaults: configs/<task>.yaml)")
    for key in config_keys():
        group.add_argument(
            "--" + key.replace("_", "-"),
            dest=f"override_{key}",
            type=_yaml_value,
            default=argparse.SUPPRESS,
            metavar="VALUE",
        )


def overrides_from(args: argparse.Namespace) -> dict[str, Any]:
    """``--config`` file values, then the explicit ``--key VALUE`` options."""
    overrides: dict[str, Any] = {}
    if args.config is not None:
        loaded = yaml.safe_load(args.config.read_text()) or {}
        if not isinstance(loaded, dict):
            raise SystemExit(f"{args.config}: expected a YAML mapping of config keys to values")
        overrides.update(loaded)
    for name, value in vars(args).items():
        if name.startswith("override_"):
            overrides[name.removeprefix("override_")] = value
    return overrides


def run(args: argparse.Namespace) -> int:
    metrics = run_fit(
        task=args.task,
        encoder=args.encoder,
        data_dir=args.data_dir,
        embeddings=args.embeddings,
        out_dir=args.out,
        seed=args.seed,
        fold=args.fold,
        overrides=overrides_from(args),
    )
    summary = {k: v for k, v in metrics.items() if k not in ("config", "versions")}
    print(json.dumps(summary, indent=2))
    return 0
