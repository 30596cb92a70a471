"""Every encoder's unspecified activation sigma, pinned from the papers' words and counted from
the operators one forward pass really runs (not from the modules' attributes).

- DiSAN Sec. 5: "Activation functions sigma(.) are ELU (exponential linear unit) ... if not
  specified."  MPSAN, Experimental Settings: "All the activation functions sigma(.) are
  Exponential Linear Unit (ELU) if they are not specified."
- Bi-BloSAN Sec. 4.1: "The unspecified activation functions in all models are set to Relu."
- MTSA Appendix B: "The unspecified activation functions for all fully-connected layers
  appearing in models are set to relu"; for SNLI "the activation function for fully-connected
  layer is set to elu" (``activation="elu"``).
"""

from __future__ import annotations

from collections import Counter

import pytest
import torch
from torch.overrides import TorchFunctionMode

from encoders import build_encoder


class _CallCounter(TorchFunctionMode):
    """Counts the torch functions (``F.relu``, ``F.elu``, ...) called under it, by name."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: Counter[str] = Counter()

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.calls[getattr(func, "__name__", "")] += 1
        return func(*args, **(kwargs or {}))


def activations(name: str, **options: object) -> Counter[str]:
    """How often one eval-mode forward calls relu and elu."""
    encoder = build_encoder(name, input_dim=8, hidden_dim=8, **options).eval()
    x, mask = torch.randn(2, 6, 8), torch.tensor([[True] * 6, [True] * 3 + [False] * 3])
    with torch.no_grad(), _CallCounter() as counter:
        encoder(x, mask)
    return Counter({name: counter.calls[name] for name in ("relu", "elu") if counter.calls[name]})


# Bi-BloSAN: 2 FC layers + per direction (block source2token, fusion F of Eq. 16) + sentence s2t
BI_BLOSAN_SIGMAS = 2 + 2 * 2 + 1
# MTSA: Eq. 9's source2token MLP (all heads in one product) + the sentence source2token
MTSA_SIGMAS = 2


@pytest.mark.parametrize("name", ["bi_blosan", "bi_blosan_no_local"])
def test_bi_blosan_runs_relu_only(name: str) -> None:
    assert activations(name) == Counter(relu=BI_BLOSAN_SIGMAS)


def test_bi_blosan_no_global_runs_relu_only() -> None:
    """Without E there is no block source2token: 2 FC + 2 fusions + the sentence s2t."""
    assert activations("bi_blosan_no_global") == Counter(relu=2 + 2 + 1)


@pytest.mark.parametrize("name", ["mtsa", "mtsa_no_masks", "mtsa_no_t2t"])
def test_mtsa_runs_relu_only_and_elu_for_snli(name: str) -> None:
    assert activations(name) == Counter(relu=MTSA_SIGMAS)
    assert activations(name, activation="elu") == Counter(elu=MTSA_SIGMAS)


def test_mtsa_without_source2token_keeps_the_sentence_pooling_sigma() -> None:
    assert activations("mtsa_no_s2t") == Counter(relu=1)


@pytest.mark.parametrize("name", ["disan", "disan_nodir", "mpsan"])
def test_disan_and_mpsan_run_elu_only(name: str) -> None:
    counts = activations(name)
    assert counts["elu"] > 0
    assert counts["relu"] == 0


@pytest.mark.parametrize("name", ["bi_blosan", "mtsa"])
def test_an_unknown_activation_is_refused(name: str) -> None:
    with pytest.raises(ValueError, match="activation must be one of"):
        build_encoder(name, input_dim=8, hidden_dim=8, activation="gelu")


def test_mpsan_code_variant_runs_relu_only() -> None:
    """The authors' MPSAN code uses ReLU where the paper says ELU (docs/encoders.md)."""
    assert activations("mpsan", variant="code") == Counter(relu=2)
