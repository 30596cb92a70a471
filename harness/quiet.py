"""Lightning's advertising tips and notices no user can act on are dropped from the console of
sanbench's own commands."""

from __future__ import annotations

import logging
import warnings

LIGHTNING_INFO = "lightning.pytorch.utilities.rank_zero"  # the logger rank_zero_info writes to


def _not_a_tip(record: logging.LogRecord) -> bool:
    return "Tip:" not in record.getMessage()


def hide_lightning_tips() -> None:
    """Filter the "💡 Tip: ..." lines out of Lightning's rank-zero info logger, and Lightning's
    own use of a deprecated torch pytree API (``LeafSpec``), which only a Lightning release can
    change."""
    logger = logging.getLogger(LIGHTNING_INFO)
    if _not_a_tip not in logger.filters:
        logger.addFilter(_not_a_tip)
    warnings.filterwarnings("ignore", message=r"`isinstance\(treespec, LeafSpec\)` is deprecated")


def hide_srun_hint() -> None:
    """For worker processes sanbench starts on this machine on purpose: Lightning's hint that
    ``srun`` exists but is not used (SLURM runs go through ``--launcher slurm``)."""
    warnings.filterwarnings("ignore", message=r"The `srun` command is available on your system")
