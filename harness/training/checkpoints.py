"""Loading checkpoints safely: always ``weights_only=True``, never torch's current default.

torch's restricted unpickler accepts tensors and built-in values (dicts, lists, tuples,
numbers, strings) only, which is all a sanbench checkpoint holds (weights, optimizer and loop
state, hyper-parameters, the vocabulary), so no extra type is allow-listed. Passing the flag
explicitly keeps ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1`` (or an older torch's default) from
turning a crafted ``.ckpt`` into code that runs; such a file is refused as bad input.
"""

from __future__ import annotations

import contextlib
import pickle
from collections.abc import Iterator
from pathlib import Path

from harness.errors import InputError

WEIGHTS_ONLY = True  # every Trainer.fit/validate/test/predict and load_from_checkpoint call


class UnsafeCheckpointError(InputError):
    """A checkpoint holds something besides tensors and built-in values."""


def _refused_part(message: str) -> str:
    """The unpickler's line naming what it refused (e.g. ``GLOBAL posix.mkdir``)."""
    lines = [line.strip() for line in message.splitlines() if "GLOBAL" in line]
    return lines[0].rstrip(".") if lines else message.splitlines()[0]


@contextlib.contextmanager
def refused_if_unsafe(path: Path | str | None) -> Iterator[None]:
    """Turn the weights-only unpickler's refusal of ``path`` into :class:`UnsafeCheckpointError`."""
    try:
        yield
    except pickle.UnpicklingError as error:
        raise UnsafeCheckpointError(
            f"{path}: refused to load: {_refused_part(str(error))}. Checkpoints are loaded with "
            "weights_only=True (tensors and built-in values only), which a checkpoint written "
            "by sanbench fit satisfies; this file holds code or objects and is not loaded."
        ) from None
