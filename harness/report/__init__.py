"""``sanbench report``: the site over run folders, rendered by ``reports.site``."""
