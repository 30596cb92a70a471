"""``sanbench reproduce``: the papers' sentence-classification tables on a small CPU budget."""
