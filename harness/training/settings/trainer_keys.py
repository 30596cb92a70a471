"""Lightning's Trainer as ``sanbench fit`` parses it: its ``int | float`` keys typed int first.

``limit_train_batches 2`` is two batches and ``2.0`` (or ``0.5``) a share of the epoch
(Lightning's rule), and jsonargparse tries a union's types in their order. Lightning writes
``Optional[Union[int, float]]``, but CPython's typing cache answers with the first union it
built that compares equal (unions compare as sets): in a process that built
``Optional[Union[float, int]]`` first (rich.progress does), the Trainer's keys are typed float
first, and ``--trainer.limit_train_batches 1`` became 1.0, the whole epoch. The parser therefore
reads a signature whose unions hold int before float, built with ``|`` (no cache).
"""

from __future__ import annotations

import functools
import inspect
import operator
import types
import typing
from collections.abc import Callable
from typing import Any

import lightning.pytorch as pl


def int_first(annotation: Any) -> Any:
    """``annotation`` with int before float when it is a union of both (else unchanged)."""
    members = typing.get_args(annotation)
    if typing.get_origin(annotation) not in (typing.Union, types.UnionType):
        return annotation
    if int not in members or float not in members:
        return annotation
    ordered = sorted(members, key=lambda member: member is not int)  # stable: int, then the rest
    return functools.reduce(operator.or_, ordered)


def int_first_signature(function: Callable[..., Any]) -> inspect.Signature:
    """``function``'s signature, each parameter's annotation :func:`int_first`."""
    signature = inspect.signature(function)
    parameters = [
        parameter.replace(annotation=int_first(parameter.annotation))
        for parameter in signature.parameters.values()
    ]
    return signature.replace(parameters=parameters)


class FitTrainer(pl.Trainer):
    """Lightning's Trainer, unchanged but for the signature its parser reads (module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)

    __init__.__signature__ = int_first_signature(pl.Trainer.__init__)  # type: ignore[attr-defined]
    __init__.__doc__ = pl.Trainer.__init__.__doc__  # the options' help
