"""The papers' "unspecified" activation sigma, chosen by name.

- DiSAN Sec. 5: "Activation functions sigma(.) are ELU ... if not specified"; MPSAN likewise.
- Bi-BloSAN Sec. 4.1: "The unspecified activation functions in all models are set to Relu".
- MTSA Appendix B: "The unspecified activation functions for all fully-connected layers ... are
  set to relu", except SNLI: "the activation function for fully-connected layer is set to elu".
"""

from __future__ import annotations

from torch import nn

ACTIVATIONS: dict[str, type[nn.Module]] = {"relu": nn.ReLU, "elu": nn.ELU}


def activation_class(name: str) -> type[nn.Module]:
    """The module class of activation ``name`` (``relu`` or ``elu``)."""
    if name not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}, not {name!r}")
    return ACTIVATIONS[name]
