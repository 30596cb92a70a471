"""Every data and vectors file a set of fits needs, read and checked before any training."""

from __future__ import annotations

from collections.abc import Iterable

from datamodules.errors import DataFormatError
from harness.errors import InputError
from harness.training.settings.fit_run import FitRun

# data options that do not change which files are read or how
NOT_READ = ("seed", "fold", "batch_size", "eval_batch_size", "num_workers")


def check_fit_inputs(runs: Iterable[FitRun]) -> None:
    """Read every file of ``runs`` (train, dev, test, vectors), once per distinct data
    configuration; raise :class:`InputError` naming every bad line of all of them, and every
    split that holds no example (bad input, as in ``fit``: not a failed run to retry)."""
    from datamodules.datamodule import BenchmarkDataModule

    errors: list[DataFormatError] = []
    empty: list[str] = []
    checked: set[tuple] = set()
    for run in runs:
        data = run.resolved()["data"]
        key = tuple(sorted((k, str(v)) for k, v in data.items() if k not in NOT_READ))
        if key in checked:
            continue
        checked.add(key)
        datamodule = BenchmarkDataModule(**data)
        try:
            datamodule.check_inputs()
        except DataFormatError as error:
            errors.append(error)
        empty += [str(error) for error in datamodule.empty_splits()]
    if errors or empty:
        lines = [str(DataFormatError.joined(errors))] if errors else []
        raise InputError("\n".join(lines + empty)) from (errors[0] if errors else None)
