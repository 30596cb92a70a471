"""Every data and vectors file a set of fits needs, read and checked before any training."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from datamodules.errors import DataFormatError
from harness.command_parser import typed_now
from harness.errors import InputError
from harness.training.read_refusal import read_refusal
from harness.training.settings.config_checks import (
    empty_eval_share_problems,
    empty_share_problem,
    interval_problem,
    replicas,
    train_share_key,
)
from harness.training.settings.fit_overrides import fit_typed
from harness.training.settings.fit_run import FitRun

if TYPE_CHECKING:
    from datamodules.datamodule import BenchmarkDataModule

# data options that do not change which files are read or how
NOT_READ = ("seed", "fold", "batch_size", "eval_batch_size", "num_workers")


def check_fit_inputs(runs: Iterable[FitRun]) -> None:
    """Read every file of ``runs`` (train, dev, test, vectors), once per distinct data
    configuration; raise :class:`InputError` naming every bad line of all of them, every split
    that holds no example, and every run whose ``limit_train_batches`` share keeps no batch of
    its epoch, or whose ``limit_val_batches`` or ``limit_test_batches`` share none of its dev or
    test split, or whose ``val_check_interval`` count no epoch reaches (bad input, as in
    ``fit``: not a failed run to retry; found here, before any folder is made, since only the
    data says how many batches an epoch holds)."""
    from datamodules.datamodule import BenchmarkDataModule

    errors: list[str] = []  # every file's bad lines, said as written
    cause: DataFormatError | None = None  # the first, for --debug
    empty: list[str] = []
    shares: list[str] = []
    read: dict[tuple, BenchmarkDataModule | None] = {}  # None: its files are refused
    for run in runs:
        config = run.resolved()
        data = config["data"]
        key = tuple(sorted((k, str(v)) for k, v in data.items() if k not in NOT_READ))
        if key not in read:
            datamodule = BenchmarkDataModule(**data)
            refused = False
            try:
                datamodule.check_inputs()
            except DataFormatError as error:
                errors += read_refusal(error, datamodule.embeddings_path)
                cause = cause or error
                refused = True
            found = [str(error) for error in datamodule.empty_splits()]
            empty += found
            read[key] = None if refused or found else datamodule
        share = train_share_key(config["trainer"])
        limit = config["trainer"].get(share.removeprefix("trainer."))
        if isinstance(limit, float) and read[key] is not None:
            shares += _share_problems(read[key], data, limit, replicas(config["trainer"]), share)
        if read[key] is not None:  # the dev and test splits do not depend on NOT_READ's but
            batch_size = data.get("eval_batch_size") or data.get("batch_size")  # their size
            shares += empty_eval_share_problems(config["trainer"], read[key], None, batch_size)
            trainer = config["trainer"]
            if isinstance(trainer.get("val_check_interval"), int):  # an epoch's batches count
                epoch = _epoch_of(read[key], data)
                late = interval_problem(trainer, epoch, replicas(trainer), fit_typed(typed_now()))
                shares += [late] if late else []
    if errors or empty or shares:
        lines = list(dict.fromkeys(errors)) + empty + list(dict.fromkeys(shares))
        raise InputError("\n".join(lines)) from cause


def _share_problems(
    read: BenchmarkDataModule, data: dict[str, Any], limit: float, processes: int, key: str
) -> list[str]:
    """The problem (if any) of ``key``'s share ``limit`` over the epoch of ``data``
    (:func:`_epoch_of`)."""
    problem = empty_share_problem(limit, _epoch_of(read, data), processes, key)
    return [problem] if problem else []


def _epoch_of(read: BenchmarkDataModule, data: dict[str, Any]) -> BenchmarkDataModule:
    """A datamodule set up for the training epochs of ``data``: ``read`` (its files read) when
    it holds the same data, else one of ``data`` read now (another fold or batch size)."""
    from datamodules.datamodule import BenchmarkDataModule

    same = all(getattr(read, k, None) == v for k, v in data.items() if k in NOT_READ)
    datamodule = read if same else BenchmarkDataModule(**data)
    if not same:
        datamodule.check_inputs()
    datamodule.setup("fit")
    return datamodule
