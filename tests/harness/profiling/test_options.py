"""``ProfileOptions``: every problem of a ``sanbench profile`` command line at once."""

from __future__ import annotations

import pytest

from encoders import list_encoders
from harness.errors import InputError
from harness.profiling.options import ProfileOptions


def test_an_unknown_preset_is_said_beside_every_other_problem() -> None:
    """Outside check of #56, item 5: ``--preset quik --dtype fp61 --modes infr`` named the
    preset and the dtype only (the other checks read the preset); the modes came next time."""
    with pytest.raises(InputError) as error:
        ProfileOptions(preset="quik", dtype="fp61", modes="infr", encoders="Bi-BloSAN", dim=0)
    assert str(error.value).splitlines() == [
        "--preset quik: expected one of paper, quick, long (did you mean quick?)",
        "--dtype fp61: expected one of fp32, bf16, fp16 (did you mean fp16?)",
        "--dim 0: expected a positive integer",
        "--modes infr: expected a comma list of infer, train (did you mean infer?)",
        "--encoders Bi-BloSAN: expected one of "
        + ", ".join(list_encoders())
        + " (did you mean bi_blosan?)",
    ]
