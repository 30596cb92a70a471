"""Console noise dropped at the source for sanbench's own commands: Lightning's advertising
tips, notices no user can act on, and the source line Python prints under a warning."""

from __future__ import annotations

import logging
import warnings

LIGHTNING_INFO = "lightning.pytorch.utilities.rank_zero"  # the logger rank_zero_info writes to
# Lightning's info lines a run repeats with nothing to act on: its device inventory at every
# Trainer ("GPU available: False, used: False", TPU, HPU; the device used is in metrics.json)
# and one "Restoring states ..." / "Loaded model weights ..." per validate/test/predict of the
# best checkpoint
NOISE = (
    "Tip:",
    " available: ",
    "Restoring states from the checkpoint path",
    "Loaded model weights from the checkpoint",
)
OUR_PACKAGES = ("datamodules", "encoders", "harness", "reports")
_python_format = warnings.formatwarning


def _not_noise(record: logging.LogRecord) -> bool:
    message = record.getMessage()
    return not any(part in message for part in NOISE)


def _format_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    line: str | None = None,
) -> str:
    """sanbench's own warnings as ``warning: MESSAGE`` (a ``ReleaseEncodingWarning`` printed
    the line of our code that raised it); anyone else's as Python formats them."""
    if category.__module__.partition(".")[0] in OUR_PACKAGES:
        return f"warning: {message}\n"
    return _python_format(message, category, filename, lineno, line)


def hide_lightning_tips() -> None:
    """Filter :data:`NOISE` out of Lightning's rank-zero info logger, show our own warnings in
    one line, and hide Lightning's own use of a deprecated torch pytree API (``LeafSpec``),
    which only a Lightning release can change."""
    logger = logging.getLogger(LIGHTNING_INFO)
    if _not_noise not in logger.filters:
        logger.addFilter(_not_noise)
    warnings.formatwarning = _format_warning
    warnings.filterwarnings("ignore", message=r"`isinstance\(treespec, LeafSpec\)` is deprecated")


def hide_srun_hint() -> None:
    """For worker processes sanbench starts on this machine on purpose: Lightning's hint that
    ``srun`` exists but is not used (SLURM runs go through ``--launcher slurm``)."""
    warnings.filterwarnings("ignore", message=r"The `srun` command is available on your system")
