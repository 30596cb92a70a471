"""``sanbench reproduce``: the papers' sentence-classification tables on a small CPU budget."""

from harness.reproduce.options import ReproduceOptions
from harness.reproduce.reproduce import run_reproduce

__all__ = ["ReproduceOptions", "run_reproduce"]
