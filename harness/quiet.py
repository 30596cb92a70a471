"""Console noise dropped at the source for sanbench's own commands: Lightning's advertising
tips, notices no user can act on, and the source line Python prints under a warning."""

from __future__ import annotations

import atexit
import hashlib
import logging
import os
import sys
import warnings
from pathlib import Path

from harness.errors import RunInterruptedError

LIGHTNING_INFO = "lightning.pytorch.utilities.rank_zero"  # the logger rank_zero_info writes to
# Lightning's info lines a run repeats with nothing to act on: its device inventory at every
# Trainer ("GPU available: False, used: False", TPU, HPU; the device used is in metrics.json)
# and one "Restoring states ..." / "Loaded model weights ..." per validate/test/predict of the
# best checkpoint, and a resume's "Restored all states from the checkpoint at ..."
LIGHTNING_SEED = "lightning.fabric.utilities.seed"  # seed_everything's logger
# DDP: each process's "Initializing distributed: GLOBAL_RANK ..." and rank zero's banner
LIGHTNING_DISTRIBUTED = "lightning.fabric.utilities.distributed"
# "[rank: 0] Received SIGTERM: 15": sanbench's own line names the signal and what was saved
LIGHTNING_SIGNALS = "lightning.pytorch.trainer.connectors.signal_connector"
RANK_VARIABLES = ("RANK", "LOCAL_RANK", "SLURM_PROCID", "JSM_NAMESPACE_RANK")  # Lightning's order
QUIET_WARNINGS = (
    r"`isinstance\(treespec, LeafSpec\)` is deprecated",
    r"The number of training batches \(\d+\) is smaller than the logging interval",
    r"Checkpoint directory .* exists and is not empty",
    r"Metric `SpearmanCorrcoef` will save all targets and predictions",
    # a fit that ends before its first validation: sanbench says so (NoValidationWarning)
    r"`ModelCheckpoint\(monitor='val_\w+'\)` could not find the monitored key",
)
# torch's C++-extension module, imported by inductor: on a CUDA build of torch on a machine
# without a CUDA runtime, "No CUDA runtime is found, using CUDA_HOME=..." at every import
TORCH_EXTENSIONS = "torch.utils.cpp_extension"
NOISE = (
    "Seed set to",
    "Tip:",
    " available: ",
    "Restoring states from the checkpoint path",
    "Loaded model weights from the checkpoint",
    "Restored all states from the checkpoint",  # a resume from last.ckpt (docs/training.md)
    "`Trainer.fit` stopped: ",  # the budget that ended training: in the config and metrics
    "` was configured so ",  # a --trainer.limit_*_batches given: it is in the config
    "Initializing distributed: ",
    "All distributed processes registered",
    "No CUDA runtime is found",
    "Received SIGTERM: ",
    # a Ctrl-C during predict/encode: sanbench's own line says it and what was written
    "Detected KeyboardInterrupt, attempting graceful shutdown",
    # "Using bfloat16 Automatic Mixed Precision (AMP)": the precision is in the config and metrics
    "Automatic Mixed Precision (AMP)",
)
OUR_PACKAGES = ("datamodules", "encoders", "harness", "reports")
# a warning class of ours with ``ONCE_PER_COMMAND = True`` is said once by a command however
# many runs give it (a suite's runs, a study's trials): the classes said so far
ONCE_PER_COMMAND = "ONCE_PER_COMMAND"
# ... and one with ``ONCE_PER_MESSAGE = True`` once per distinct message (a suite's runs of one
# task say the same, of another task their own numbers)
ONCE_PER_MESSAGE = "ONCE_PER_MESSAGE"
# an error class with ``UNSAID = True`` fails an optuna trial without a line of optuna's
UNSAID = "UNSAID"
_said_once: set[type[Warning] | tuple[type[Warning], str]] = set()
# a ``process`` launch's jobs share what the command has said: one empty file per warning said,
# in the command's own launch folder (named to each job by this variable, :func:`command_folder`)
SAID_FOLDER_ENV = "SANBENCH_SAID_FOLDER"
_said_folder: list[Path] = []  # the folder this command shares, once it launched jobs
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
    the line of our code that raised it), by one process of a distributed run, and a class
    marked :data:`ONCE_PER_COMMAND` only the first time in a command (one marked
    :data:`ONCE_PER_MESSAGE`: each message's first time); anyone else's as Python formats
    them."""
    if category.__module__.partition(".")[0] in OUR_PACKAGES:
        per_message = getattr(category, ONCE_PER_MESSAGE, False)
        once = per_message or getattr(category, ONCE_PER_COMMAND, False)
        key = (category, str(message)) if per_message else category
        if _process_rank() or (once and not _first_time(key)):
            return ""
        return f"warning: {message}\n"
    return _python_format(message, category, filename, lineno, line)


def _first_time(key: type[Warning] | tuple[type[Warning], str]) -> bool:
    """Whether ``key`` is said for the first time in this command, by this process or (in a
    ``process`` job) by the command and its other jobs; noted as said."""
    if key in _said_once:
        return False
    _said_once.add(key)
    folder = os.environ.get(SAID_FOLDER_ENV) or (str(_said_folder[0]) if _said_folder else "")
    if not folder:
        return True
    try:  # created by exactly one process: the first to say it
        os.close(os.open(_said_file(Path(folder), key), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    except OSError:  # the folder is gone (the command ended): say it rather than lose it
        return True
    return True


def _said_file(folder: Path, key: type[Warning] | tuple[type[Warning], str]) -> Path:
    category, message = key if isinstance(key, tuple) else (key, "")
    name = f"{category.__module__}.{category.__qualname__}\0{message}"
    return folder / hashlib.sha256(name.encode()).hexdigest()


def command_folder(jobs: Path) -> Path:
    """This command's own folder in the launch folder ``jobs`` (``OUT/jobs``), made at its first
    ``process`` launch there under a name no other command has, with a record of who made it
    (:func:`harness.launch.launch_folders.make_launch_folder`): two commands on one ``--out`` (a
    study's workers, docs/studies.md) never read or delete each other's job files. Its
    ``said/`` is where the command and its jobs note the warnings said once, holding what it has
    said so far; the command removes its folder as it exits, but for its jobs' tracebacks
    (``*.err``). Until 2026-11-30 every command shared ``OUT/jobs/said/``, emptied by each
    launch: a second command's console never said a warning the first had, and the jobs'
    result files of one were the other's."""
    from harness.launch.launch_folders import make_launch_folder, remove_launch_folder

    known = launched_folder(jobs)
    if known is not None:
        return known
    mine = make_launch_folder(jobs)
    said = mine / "said"
    said.mkdir()
    for key in _said_once:
        _said_file(said, key).touch()
    _said_folder[:] = [said]
    atexit.register(remove_launch_folder, mine)
    return mine


def launched_folder(jobs: Path) -> Path | None:
    """This command's folder in ``jobs`` (:func:`command_folder`), None before its launch."""
    for said in _said_folder:
        if said.parent.parent == jobs:
            return said.parent
    return None


def said_environment() -> dict[str, str]:
    """The variable that names this command's said folder to a job (:func:`command_folder`)."""
    return {SAID_FOLDER_ENV: str(_said_folder[0])} if _said_folder else {}


def _process_rank() -> int:
    """This process's global rank in a distributed run, as Lightning reads it (0 alone)."""
    for name in RANK_VARIABLES:
        if os.environ.get(name, "").isdigit():
            return int(os.environ[name])
    return 0


def hide_lightning_tips() -> None:
    """Filter :data:`NOISE` out of Lightning's rank-zero info logger, its seed logger ("Seed
    set to 0": the seed is in every run's config) and its DDP start lines, show our own
    warnings in one line, and hide warnings nobody can act on: Lightning's own use of a
    deprecated torch pytree API (``LeafSpec``, only a Lightning release can change it), "the
    number of training batches is smaller than the logging interval" (a short run: its
    metrics are logged per epoch all the same), "checkpoint directory exists and is not
    empty" (every resume) and torchmetrics' note that Spearman's rho keeps every prediction
    (it must: SICK's 4,927 pairs are a few kB), Lightning's "could not find the monitored key"
    for a fit that ended before validating (sanbench's own warning says it); and torch's "No
    CUDA runtime is found" (a CUDA build of torch on a CPU machine: the device a run used is in
    its metrics), and Lightning's "Received SIGTERM" (sanbench's line says what stopped). A
    command starts here: its :data:`ONCE_PER_COMMAND` warnings are unsaid."""
    _said_once.clear()
    _said_folder.clear()
    loggers = (LIGHTNING_INFO, LIGHTNING_SEED, LIGHTNING_DISTRIBUTED, LIGHTNING_SIGNALS)
    for name in (*loggers, TORCH_EXTENSIONS):
        logger = logging.getLogger(name)
        if _not_noise not in logger.filters:
            logger.addFilter(_not_noise)
    warnings.formatwarning = _format_warning
    for message in QUIET_WARNINGS:
        warnings.filterwarnings("ignore", message=message)


def hide_srun_hint() -> None:
    """For worker processes sanbench starts on this machine on purpose: Lightning's hint that
    ``srun`` exists but is not used (SLURM runs go through ``--launcher slurm``)."""
    warnings.filterwarnings("ignore", message=r"The `srun` command is available on your system")


class _OneLine(logging.Handler):
    """optuna's warnings as ``optuna: MESSAGE`` on the current stderr, one line each: no
    traceback (the error that ends a command is printed once, by ``harness.cli``), and nothing
    for a trial a signal interrupted (its checkpoint and the resume command are printed) or one
    failed by an error marked :data:`UNSAID` (a study's surplus trial, which never ran): optuna
    logs such a trial as the exception's record and, from the same logger, the trial's value."""

    def __init__(self) -> None:
        super().__init__()
        self.muted_logger: str | None = None  # the logger of an interrupted trial's records

    def emit(self, record: logging.LogRecord) -> None:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, RunInterruptedError | KeyboardInterrupt) or getattr(
            error, UNSAID, False
        ):
            self.muted_logger = record.name
            return
        if record.name == self.muted_logger:
            self.muted_logger = None
            return
        print(f"optuna: {record.getMessage()}", file=sys.stderr, flush=True)


def optuna_one_line_warnings() -> None:
    """Route optuna's log through :class:`_OneLine`, warnings and errors only."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    optuna.logging.disable_default_handler()
    logger = logging.getLogger("optuna")
    if not any(isinstance(handler, _OneLine) for handler in logger.handlers):
        logger.addHandler(_OneLine())
