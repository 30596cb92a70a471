"""``sanbench fit``: train, validate and test one model; every config value is overridable.

    sanbench fit --task trec --encoder bi_blosan --data-dir D --embeddings FILE --out DIR \\
        --max-steps 50 --optimizer adam --dropout 0.3 --encoder-options '{block_len: 4}'
    sanbench fit --task trec --encoder bi_blosan --data-dir D --print-config > trec.yaml
    sanbench fit --config trec.yaml --out DIR --dropout 0.2

Each key of ``harness/training/configs/<task>.yaml`` becomes an option (``max_steps`` ->
``--max-steps``); values are parsed as YAML, so ``null``, numbers, lists and mappings work.
``--config FILE`` (the YAML ``--print-config`` writes, or any part of it) comes first; explicit
options win over it. Arguments are checked before any data is read; nothing here imports
torch or Lightning until the run starts.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import yaml

from harness.training.config import (
    RUN_KEYS,
    ConfigError,
    FitRun,
    list_task_configs,
    load_task_config,
)

NOT_OVERRIDABLE = {"encoder_overrides"}
METAVARS = {bool: "BOOL", int: "INT", float: "FLOAT", str: "TEXT", dict: "MAPPING"}


def _yaml_value(text: str) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise argparse.ArgumentTypeError(f"not a YAML value: {text!r} ({error})") from None


def config_keys() -> dict[str, Any]:
    """Every overridable key of the task configs, with its value in the first that has it."""
    keys: dict[str, Any] = {}
    for task in list_task_configs():
        keys.update({k: v for k, v in load_task_config(task).items() if k not in keys})
    return {k: keys[k] for k in sorted(keys) if k not in NOT_OVERRIDABLE}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    run = parser.add_argument_group("what to train (or the same keys in --config)")
    run.add_argument("--task", choices=list_task_configs(), default=argparse.SUPPRESS)
    run.add_argument("--encoder", default=argparse.SUPPRESS, help="a name from `sanbench encoders`")
    run.add_argument(
        "--data-dir", dest="data_dir", default=argparse.SUPPRESS, help="the task's data folder"
    )
    run.add_argument("--embeddings", default=argparse.SUPPRESS, help="GloVe text file")
    run.add_argument("--seed", type=int, default=argparse.SUPPRESS, help="random seed (0)")
    run.add_argument("--fold", type=int, default=argparse.SUPPRESS, help="test fold (CV tasks)")
    parser.add_argument("--out", type=Path, help="run folder (resumed by the same configuration)")
    parser.add_argument(
        "--config",
        type=Path,
        default=None,
        help="a fit config YAML (as --print-config writes it); options win over it",
    )
    parser.add_argument(
        "--overwrite", action="store_true", help="delete --out first if it holds another run"
    )
    parser.add_argument(
        "--print-config",
        action="store_true",
        help="print the complete resolved config as YAML and exit",
    )
    parser.add_argument("--debug", action="store_true", help="tracebacks on errors")
    group = parser.add_argument_group(
        "config overrides (defaults: harness/training/configs/<task>.yaml; see --print-config)"
    )
    for key, value in config_keys().items():
        flag = {"nargs": "?", "const": True} if isinstance(value, bool) else {}
        group.add_argument(
            "--" + key.replace("_", "-"),
            dest=f"override_{key}",
            type=_yaml_value,
            default=argparse.SUPPRESS,
            metavar=METAVARS.get(type(value), "VALUE"),
            **flag,  # --compile alone means --compile true
        )


def _config_file(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise ConfigError(f"--config {path}: no such file")
    try:
        loaded = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as error:
        raise ConfigError(
            f"{path}: not YAML ({error}); fix the file or re-create it with "
            "`sanbench fit ... --print-config > FILE`"
        ) from None
    if not isinstance(loaded, dict):
        raise ConfigError(
            f"{path}: expected a YAML mapping of config keys to values, found "
            f"{type(loaded).__name__}"
        )
    return loaded


def _check_encoder(name: str) -> None:
    from encoders import list_encoders

    if name not in list_encoders():
        raise ConfigError(f"unknown encoder {name!r}; known: {', '.join(list_encoders())}")


def fit_run_from(args: argparse.Namespace) -> FitRun:
    """The run ``args`` ask for (``--config`` file, then options), checked before any data."""
    values = _config_file(args.config) if args.config is not None else {}
    values.update({k: getattr(args, k) for k in RUN_KEYS if hasattr(args, k)})
    values.update(
        {n.removeprefix("override_"): v for n, v in vars(args).items() if n.startswith("override_")}
    )
    missing = [
        f"--{k.replace('_', '-')}" for k in ("task", "encoder", "data_dir") if not values.get(k)
    ]
    if missing:
        raise ConfigError(f"missing {', '.join(missing)} (give them as options or in --config)")
    if values["task"] not in list_task_configs():
        raise ConfigError(
            f"unknown task {values['task']!r}; known: {', '.join(list_task_configs())}"
        )
    _check_encoder(values["encoder"])
    run = FitRun(
        task=values.pop("task"),
        encoder=values.pop("encoder"),
        data_dir=Path(values.pop("data_dir")),
        out_dir=Path(args.out) if args.out else Path("."),
        embeddings=Path(e) if (e := values.pop("embeddings", None)) else None,
        seed=int(values.pop("seed", 0) or 0),
        fold=values.pop("fold", None),
        overrides=values,
    )
    try:
        config = run.config()
    except KeyError as error:
        raise ConfigError(error.args[0]) from None
    if config["logger"] == "tensorboard" and importlib.util.find_spec("tensorboard") is None:
        raise ConfigError("logger: tensorboard needs `pip install 'sanbench[tensorboard]'`")
    return run


def _check_paths(run: FitRun, out: Path | None) -> None:
    if out is None:
        raise ConfigError("missing --out (the run folder)")
    if not run.data_dir.is_dir():
        raise ConfigError(f"--data-dir {run.data_dir}: no such folder")
    if run.embeddings is not None and not run.embeddings.is_file():
        raise ConfigError(f"--embeddings {run.embeddings}: no such file")


def _failed(args: argparse.Namespace, error: Exception) -> int:
    """One line on stderr and status 2; ``--debug`` re-raises for the traceback."""
    if args.debug:
        raise error
    print(f"sanbench fit: {error}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    try:
        fit_run = fit_run_from(args)
        if args.print_config:
            sys.stdout.write(fit_run.to_yaml())
            return 0
        _check_paths(fit_run, args.out)
    except ConfigError as error:
        return _failed(args, error)
    from datamodules.errors import DataFormatError, EmptySplitError
    from harness.training.run import run_fit
    from harness.training.run_folder import RunFolderError

    try:
        metrics = run_fit(fit_run, overwrite=args.overwrite)
    except (RunFolderError, DataFormatError, EmptySplitError, FileNotFoundError) as error:
        return _failed(args, error)
    summary = {k: v for k, v in metrics.items() if k not in ("config", "versions")}
    print(json.dumps(summary, indent=2))
    return 0
