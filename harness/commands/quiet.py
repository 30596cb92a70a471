"""Lightning's advertising tips are dropped from the console of sanbench's own commands."""

from __future__ import annotations

import logging

LIGHTNING_INFO = "lightning.pytorch.utilities.rank_zero"  # the logger rank_zero_info writes to


def _not_a_tip(record: logging.LogRecord) -> bool:
    return "Tip:" not in record.getMessage()


def hide_lightning_tips() -> None:
    """Filter the "💡 Tip: ..." lines out of Lightning's rank-zero info logger."""
    logger = logging.getLogger(LIGHTNING_INFO)
    if _not_a_tip not in logger.filters:
        logger.addFilter(_not_a_tip)
