"""Operators whose output's size depends on their inputs' values (``torch.nonzero``,
``masked_select``, a boolean index ``x[mask]``, a value read with ``Tensor.item()``): ``meta``
tensors hold no values, so a step that calls one has a memory no prediction can know; it is
measured, not predicted (docs/benchmarks.md, "Predicted memory")."""

from __future__ import annotations

from typing import Any

import torch

# torch's tags of such operators: an output shape, or a Python value, read from the data
VALUE_TAGS = (torch.Tag.dynamic_output_shape, torch.Tag.data_dependent_output)
# how a user's code calls the operators whose aten name is not what they wrote
CALLED_AS = {
    "index": "indexing by a boolean mask (x[mask])",
    "_local_scalar_dense": "Tensor.item() (a value read, e.g. to size a tensor)",
}
SAID = "its memory depends on the values"  # how every such message starts


class ValueDependentError(Exception):
    """The step called an operator whose output's size depends on the inputs' values."""

    def __init__(self, operator: Any) -> None:
        name = operator.overloadpacket.__name__
        called = CALLED_AS.get(name, f"torch.{name}")
        super().__init__(
            f"{SAID}, which a prediction on meta tensors does not have: {called} gives an "
            "output whose size depends on them (as torch.nonzero and masked_select do), so it "
            "is measured, not predicted"
        )


def run_on_meta(func: Any, args: tuple, kwargs: dict[str, Any]) -> Any:
    """``func(*args, **kwargs)``; :class:`ValueDependentError` where it fails and is an
    operator whose output depends on values (torch's meta kernel then raises, in words that
    advise setting an internal torch flag)."""
    try:
        return func(*args, **kwargs)
    except (NotImplementedError, RuntimeError) as error:
        if any(tag in func.tags for tag in VALUE_TAGS):
            raise ValueDependentError(func) from error
        raise


def value_dependent(message: str) -> bool:
    """Whether a point's failure ``message`` is a :class:`ValueDependentError`'s."""
    return SAID in message


def short(message: str) -> str:
    """A :class:`ValueDependentError`'s ``message`` up to what it says of the encoder (``no
    prediction: its memory depends on the values``): a row's line after the encoder's line
    that says it whole."""
    return message[: message.index(SAID) + len(SAID)]
