"""Source2Token (DiSAN Eq. 12-13): where its dropout acts."""

from __future__ import annotations

import torch

from encoders.layers.source2token import Source2Token


def masked_mean(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return (x * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)


def test_dropout_acts_on_the_score_path_not_on_the_averaged_values() -> None:
    """With W = 0 every token scores b, so P is uniform whatever dropout does to the score
    path: s must be the plain mean of the undropped x (the DiSAN authors' placement)."""
    torch.manual_seed(0)
    layer = Source2Token(6, dropout=0.5).train()
    x = torch.randn(2, 5, 6) + 3.0
    mask = torch.tensor([[True] * 5, [True] * 3 + [False] * 2])
    with torch.no_grad():
        layer.score.weight.zero_()
    torch.testing.assert_close(layer(x, mask), masked_mean(x, mask))


def test_dropout_does_act_on_the_scores_in_train_mode() -> None:
    torch.manual_seed(0)
    layer = Source2Token(6, dropout=0.5)
    x = torch.randn(2, 5, 6)
    mask = torch.ones(2, 5, dtype=torch.bool)
    layer.train()
    assert not torch.allclose(layer(x, mask), layer(x, mask))
    layer.eval()
    assert torch.equal(layer(x, mask), layer(x, mask))
