from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from encoders.layers.masking import direction_mask, masked_softmax


def test_empty_rows_give_zeros_not_nan() -> None:
    scores = torch.randn(2, 4)
    allowed = torch.tensor([[True, False, True, False], [False] * 4])
    probs = masked_softmax(scores, allowed, dim=-1)
    assert torch.all(probs[1] == 0)
    torch.testing.assert_close(probs[0].sum(), torch.tensor(1.0))
    assert probs[0, 1] == 0 and probs[0, 3] == 0


@settings(max_examples=50, deadline=None)
@given(st.floats(min_value=-1e4, max_value=1e4), st.integers(min_value=1, max_value=8))
def test_large_scores_stay_finite(offset: float, width: int) -> None:
    scores = torch.randn(3, width) * 50 + offset
    allowed = torch.rand(3, width) > 0.3
    probs = masked_softmax(scores, allowed, dim=-1)
    assert torch.isfinite(probs).all()
    sums = probs.sum(-1)
    has_any = allowed.any(-1)
    torch.testing.assert_close(sums[has_any], torch.ones(int(has_any.sum())))
    assert torch.all(sums[~has_any] == 0)


def test_direction_masks_exclude_the_diagonal() -> None:
    forward, backward = direction_mask(4, "forward"), direction_mask(4, "backward")
    assert not forward.diagonal().any() and not backward.diagonal().any()
    assert forward[2, 1] and not forward[1, 2]
    assert backward[1, 2] and not backward[2, 1]
    assert torch.equal(forward | backward, direction_mask(4, "nodiag"))
