"""``sanbench encoders``: the table of every registered encoder."""
