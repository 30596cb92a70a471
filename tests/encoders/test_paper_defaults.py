"""Every built-in encoder's default dropout is its paper's, and dropout acts.

A built-in encoder's registration names the paper setting its default dropout comes from
(``dropout_from``, one of ``encoders.dropout_settings``); the keep probabilities are pinned
here from the papers' text, not from the modules, so a new built-in encoder needs no edit here
unless its paper has a setting of its own. Dropout probabilities are 1 - the keep
probabilities, at each paper's SNLI setting:
- DiSAN Sec. 5 (Training Setup): "Dropout with keep probability 0.75 for language inference".
- Bi-BloSAN Sec. 4.1: "The Dropout keep probability and the L2 regularization weight decay
  factor gamma are set to 0.75 and 5x10^-5", for Bi-BloSAN and every baseline it trains (RNN,
  CNN, multi-head and word-attention models, Sec. 4 and Table 3).
- MTSA Appendix B: "For SNLI dataset ..., we set p_kp = 0.65 ... And, we do not use the
  attention dropout for this benchmark."
- MPSAN Experimental Settings: "We add dropouts between the layers of our model, and the
  dropout-ratio is 0.7", read as a keep probability like DiSAN's (docs/encoders.md).
"""

from __future__ import annotations

import pytest
import torch
from torch import nn

from encoders import build_encoder, dropout_settings, list_encoders
from encoders.registry import encoder_entry

SNLI_KEEP = 0.75  # DiSAN Sec. 5, Bi-BloSAN Sec. 4.1
# each paper setting's keep probability, as the papers' text above gives it
PAPERS_KEEP = {
    dropout_settings.DISAN_SNLI: SNLI_KEEP,
    dropout_settings.BI_BLOSAN_SNLI: SNLI_KEEP,
    dropout_settings.MTSA_SNLI: 0.65,
    dropout_settings.MPSAN_CLASSIFICATION: 0.7,
}
BUILT_IN = [n for n in list_encoders() if encoder_entry(n).source.kind == "built-in"]
DROPOUT = {name: 1 - PAPERS_KEEP.get(encoder_entry(name).dropout_from, -1.0) for name in BUILT_IN}
MTSA_NAMES = ["mtsa", "mtsa_no_masks", "mtsa_no_t2t", "mtsa_no_s2t"]


def test_the_papers_settings_say_the_keep_probability_pinned_here() -> None:
    for setting, keep in PAPERS_KEEP.items():
        assert str(keep) in setting


@pytest.mark.parametrize("name", BUILT_IN)
def test_every_built_in_encoder_cites_a_papers_dropout_and_defaults_to_it(name: str) -> None:
    """Built-ins only: a test that registered its own encoders may have run in this process."""
    entry = encoder_entry(name)
    assert entry.dropout_from in PAPERS_KEEP, f"{name}: register it with dropout_from=..."
    assert entry.dropout == pytest.approx(1 - PAPERS_KEEP[entry.dropout_from])


@pytest.mark.parametrize("name", sorted(DROPOUT))
def test_default_dropout_is_the_papers(name: str) -> None:
    """The builder's default reaches the encoder's dropout layers (inner 0.0 layers aside)."""
    encoder = build_encoder(name, input_dim=8, hidden_dim=8)
    rates = {round(m.p, 6) for m in encoder.modules() if isinstance(m, nn.Dropout)}
    assert max(rates) == pytest.approx(DROPOUT[name])
    assert rates <= {0.0, round(DROPOUT[name], 6)}


@pytest.mark.parametrize("name", MTSA_NAMES)
def test_mtsa_has_no_attention_dropout_by_default(name: str) -> None:
    assert build_encoder(name, input_dim=8, hidden_dim=8).attention.attn_dropout == 0.0


@pytest.mark.parametrize("name", sorted(DROPOUT))
def test_dropout_acts_in_train_mode_only(name: str) -> None:
    torch.manual_seed(0)
    encoder = build_encoder(name, input_dim=8, hidden_dim=8)
    x = torch.randn(2, 7, 8)
    mask = torch.tensor([[True] * 7, [True] * 4 + [False] * 3])
    encoder.train()
    first, second = encoder(x, mask).pooled, encoder(x, mask).pooled
    assert not torch.allclose(first, second)
    encoder.eval()
    assert torch.equal(encoder(x, mask).pooled, encoder(x, mask).pooled)


def test_multi_head_attention_dropout_is_the_snli_keep_probability() -> None:
    """Bi-BloSAN Sec. 4.1's keep probability 0.75 "in all models"; the authors' baseline code
    applies it to the attention probabilities as well (docs/encoders.md, multi-head)."""
    encoder = build_encoder("multi_head", input_dim=8, hidden_dim=8)
    assert encoder.attn_dropout == pytest.approx(1 - SNLI_KEEP)
