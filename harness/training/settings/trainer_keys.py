"""Lightning's Trainer as ``sanbench fit`` parses it: its ``int | float`` keys typed int first.

``limit_train_batches 2`` is two batches and ``2.0`` (or ``0.5``) a share of the epoch
(Lightning's rule), and jsonargparse tries a union's types in their order. Lightning writes
``Optional[Union[int, float]]``, but CPython's typing cache answers with the first union it
built that compares equal (unions compare as sets): in a process that built
``Optional[Union[float, int]]`` first (rich.progress does), the Trainer's keys are typed float
first, and ``--trainer.limit_train_batches 1`` became 1.0, the whole epoch. The parser therefore
reads a signature whose unions hold int before float, built from their members in that order
(a key of the cache that only a union of the same order equals).
"""

from __future__ import annotations

import inspect
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
    # typing.Union of the members themselves: spelled Union[int, float] in help as Lightning's own
    # (``|`` shows "int | float"); its cache keys on this tuple of plain types, which equals
    # only a tuple in the same order
    return typing.Union[tuple(ordered)]  # noqa: UP007


def int_first_signature(function: Callable[..., Any]) -> inspect.Signature:
    """``function``'s signature, each parameter's annotation :func:`int_first`."""
    signature = inspect.signature(function)
    parameters = [
        parameter.replace(annotation=int_first(parameter.annotation))
        for parameter in signature.parameters.values()
    ]
    return signature.replace(parameters=parameters)


# Lightning's Trainer, unchanged but for the signature its parser reads (module docstring). No
# docstring of its own: jsonargparse heads the Trainer's options with the class's docstring, else
# its __init__'s (Lightning's "Customize every aspect of training via flags").
class FitTrainer(pl.Trainer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)

    __init__.__signature__ = int_first_signature(pl.Trainer.__init__)  # type: ignore[attr-defined]
    __init__.__doc__ = pl.Trainer.__init__.__doc__  # the options' help
