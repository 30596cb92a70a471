"""``model:`` of a fit config: the model's options (defaults = the papers' shared setup) and the
``TaskModule`` they build on a datamodule's vocabulary, embeddings and training lengths."""

from __future__ import annotations

import inspect
import types
from enum import Enum
from pathlib import Path
from typing import Any, Literal

import lightning as L
import torch
from jsonargparse.typing import ClosedUnitInterval, NonNegativeFloat, PositiveFloat, PositiveInt

from datamodules.datamodule import BenchmarkDataModule
from datamodules.errors import DataFormatError, MissingSplitError
from encoders import builder_accepts, encoder_entry
from encoders.layers.block_length import block_length, expected_max_length
from harness.command_parser import message_line
from harness.errors import RunFailedError, SanbenchError
from harness.training.heads import HEAD_HIDDEN
from harness.training.module import (
    ACTIVATION,
    ADADELTA_RHO,
    DROPOUT,
    EPS,
    LR,
    OPTIMIZER,
    WEIGHT_DECAY,
    TaskModule,
    Vocabulary,
)
from harness.training.settings.task_configs import ConfigError, PapersOptimizer, builtin_value
from harness.training.settings.worker_error import qualified_name, worker_error
from reports.contracts.fit_folder import FitRunFolder


def paper_width(encoder: str) -> int:
    """The builder's default ``hidden_dim``: the paper's width (300; Multi-CNN 200 filters)."""
    return int(inspect.signature(encoder_entry(encoder).builder).parameters["hidden_dim"].default)


def builder_options(
    encoder: str,
    hidden_dim: int | None,
    options: dict[str, Any] | None,
    length_stats: dict[str, float] | None = None,
    batch_size: int | None = None,
    width_scale: float | None = None,
) -> dict[str, Any]:
    """The builder keywords: ``options``, ``hidden_dim`` unless None (or the paper's width
    times ``width_scale``, rounded), and for an encoder with a block length (Bi-BloSAN)
    Appendix A's r = ceil(cbrt(2 (sigma sqrt(2 ln B) + mu))) from the training lengths' mean mu
    and std sigma and the batch size B, unless ``options`` set it."""
    chosen = dict(options or {})
    if hidden_dim is not None and width_scale is not None:
        raise ValueError("model.hidden_dim and model.width_scale exclude each other: give one")
    if hidden_dim is not None:
        chosen["hidden_dim"] = builtin_value(hidden_dim)
    if width_scale is not None:
        chosen["hidden_dim"] = max(1, round(paper_width(encoder) * float(width_scale)))
    if length_stats is not None and batch_size and builder_accepts(encoder, "block_len"):
        longest = expected_max_length(length_stats["mean"], length_stats["std"], batch_size)
        chosen.setdefault("block_len", block_length(longest))
    return chosen


# what task_model and run_fit read of a datamodule besides Lightning's hooks (docs/data.md)
DATAMODULE_PROTOCOL = ("task", "vocab", "embedding_matrix", "length_stats", "batch_size")


def users_hook(datamodule: Any, hook: str, *args: str) -> None:
    """Call ``datamodule.hook(*args)``; what a user's datamodule (``--data CLASS``) raises there
    is the user's error, named by their class in one line (exit status 2, nothing created: this
    runs before the run folder is made). The benchmarks' datamodule, and sanbench's own typed
    errors (``DataFormatError`` of the readers a user's class may call), are not rewritten."""
    call = getattr(datamodule, hook)
    if isinstance(datamodule, BenchmarkDataModule):
        call(*args)
        return
    try:
        call(*args)
    except (SanbenchError, DataFormatError, MissingSplitError):
        raise
    except Exception as error:
        called = f"{hook}({', '.join(map(repr, args))})"
        raise _users_error(type(datamodule), called, error) from error


def _users_error(datamodule: type, called: str, error: BaseException) -> ConfigError:
    return ConfigError(_users_line(datamodule, called, type(error).__name__, message_line(error)))


def _users_line(datamodule: type, called: str, kind: str, message: str) -> str:
    """``--data module.Class: called raised Type: message`` (as Python prints it on one line)."""
    name = f"{datamodule.__module__}.{datamodule.__qualname__}"
    return f"--data {name}: {called} raised {kind}: {message}"


def _users_raise(datamodule: Any, error: BaseException) -> str | None:
    """``error`` as :func:`_users_line` names it when a user's code raised it (the outermost
    call of it, :func:`_users_call`), in this process or in a DataLoader worker process (whose
    traceback torch passes on as text: the call's arguments are not known, ``(...)``). None
    when no frame runs their code, their class is the benchmarks', or the error is sanbench's
    own or an interrupt."""
    if (
        isinstance(datamodule, BenchmarkDataModule)
        or not isinstance(error, Exception)  # a Ctrl-C is no error of theirs
        or isinstance(error, SanbenchError | DataFormatError | MissingSplitError)
    ):
        return None
    theirs = [k for k in type(datamodule).__mro__ if not issubclass(L.LightningDataModule, k)]
    files = {inspect.getfile(k) for k in theirs}
    owners = {k.__qualname__ for k in theirs}
    frame = error.__traceback__
    while frame is not None and frame.tb_frame.f_code.co_filename not in files:
        frame = frame.tb_next
    if frame is not None:
        called = _users_call(frame, owners)
        return _users_line(type(datamodule), called, type(error).__name__, message_line(error))
    worker = worker_error(error)
    found = [frame for frame in worker.frames if frame[0] in files] if worker else []
    if worker is None or not found:
        return None
    qualified = qualified_name(*found[0])
    named = qualified.rpartition(".")[2] if qualified.rpartition(".")[0] in owners else qualified
    message = " ".join(worker.message.split())
    return _users_line(type(datamodule), f"{named}(...)", worker.kind, message)


def _users_call(frame: types.TracebackType, owners: set[str]) -> str:
    """The call ``frame`` runs, as ``train_dataloader()`` or ``setup('test')`` (a method of
    the user's datamodule classes, ``owners``), ``Shards.__getitem__(...)`` (other code of
    their files)."""
    code = frame.tb_frame.f_code
    owner, _, method = code.co_qualname.rpartition(".")
    named = method if owner in owners else code.co_qualname
    arguments = inspect.getargvalues(frame.tb_frame)
    shown = [
        repr(value.value if isinstance(value, Enum) else value)  # a stage is a str enum
        if isinstance(value, str | int | float | None)
        else "..."
        for value in (arguments.locals[name] for name in arguments.args if name != "self")
    ]
    return f"{named}({', '.join(shown)})"


def users_run_error(
    datamodule: Any, error: BaseException, out_dir: Path, kept: bool
) -> SanbenchError | None:
    """``error`` as the user's error when their datamodule's code raised it while the run
    trained, validated or tested (Lightning calls ``setup``, the loaders, the transfer hooks;
    their dataset and collate function run in DataLoader workers too): one line naming the
    class, the call and the exception. Exit status 2 when the run folder kept nothing
    (``kept`` False); else 1, saying what is kept and that the same command resumes once the
    class is fixed. None for any other error."""
    line = _users_raise(datamodule, error)
    if line is None:
        return None
    if not kept:
        return ConfigError(line)
    last = FitRunFolder(out_dir).last_checkpoint
    what = (
        f"{last} is kept: once the class is fixed, the same command resumes from it"
        if last.exists()
        else f"{out_dir} is kept as it was"
    )
    return RunFailedError(f"{line}\n{what}")


def users_init_error(
    datamodule: type, arguments: dict[str, Any], error: BaseException
) -> ConfigError | None:
    """``error`` as the user's error when their datamodule class's ``__init__`` raised it
    (its frame is in the traceback), as :func:`users_hook` names a hook's; else None."""
    init = getattr(datamodule.__init__, "__code__", None)
    if issubclass(datamodule, BenchmarkDataModule) or isinstance(
        error, SanbenchError | DataFormatError | MissingSplitError
    ):
        return None
    frame = error.__traceback__
    while frame is not None and frame.tb_frame.f_code is not init:
        frame = frame.tb_next
    if frame is None:
        return None
    called = f"__init__({', '.join(f'{k}={v!r}' for k, v in arguments.items())})"
    return _users_error(datamodule, called, error)


def protocol_problems(datamodule: Any) -> list[str]:
    """What a set-up datamodule lacks of what sanbench's model reads (docs/data.md)."""
    missing = [name for name in DATAMODULE_PROTOCOL if not hasattr(datamodule, name)]
    task = getattr(datamodule, "task", None)
    if task is not None:
        missing += [
            f"task.{field}"
            for field in ("name", "kind", "num_classes", "labels", "cv_folds")
            if not hasattr(task, field)
        ]
    if not missing:
        return []
    name = type(datamodule).__qualname__
    return [
        f"--data {name}: the datamodule has no {', '.join(missing)}; sanbench's model reads "
        "them after setup('fit') (docs/data.md, \"Any LightningDataModule\")"
    ]


def task_model(
    encoder: str,
    hidden_dim: PositiveInt | None = None,
    width_scale: PositiveFloat | None = None,
    encoder_options: dict[str, Any] | None = None,
    optimizer: PapersOptimizer = OPTIMIZER,
    lr: PositiveFloat = LR,
    weight_decay: NonNegativeFloat = WEIGHT_DECAY,
    dropout: ClosedUnitInterval = DROPOUT,
    head_hidden: PositiveInt = HEAD_HIDDEN,
    activation: Literal["relu", "elu"] = ACTIVATION,
    finetune_embeddings: bool = True,
    adadelta_rho: ClosedUnitInterval = ADADELTA_RHO,
    eps: PositiveFloat = EPS,
    optimizer_init: dict[str, Any] | None = None,
    lr_scheduler_init: dict[str, Any] | None = None,
    data: L.LightningDataModule | None = None,
) -> TaskModule:
    """Word embeddings -> encoder (tied across a pair) -> the task head (TaskModule).

    Args:
        encoder: a registered encoder (``sanbench encoders`` lists them; a misspelled one gets
            the nearest).
        hidden_dim: model width for every encoder; None keeps the builder's paper size (300
            units, Bi-BloSAN §4.1 / DiSAN §5; Multi-CNN 200 per width = 600D, MTSA 600).
        width_scale: every encoder at this fraction of its paper width instead (one ratio for
            all: 1/3 gives 100 units, Multi-CNN 67 filters per width, MTSA 200); excludes
            ``hidden_dim``.
        encoder_options: extra builder keywords, e.g. ``{block_len: 4}`` for Bi-BloSAN (whose
            r otherwise comes from the training lengths, Appendix A).
        optimizer: Adadelta ("more stable than Adam on SNLI", Bi-BloSAN §4.1, DiSAN §5) or Adam
            (sentence classification, Bi-BloSAN §4.4).
        lr: learning rate (Adadelta 0.5, DiSAN §5; Adam 1e-3, its default).
        weight_decay: L2 factor gamma on weight matrices only (1e-4 Bi-BloSAN §4.3/§4.4;
            5e-5 on SNLI, §4.1).
        dropout: drop probability (keep 0.75 SNLI, 0.7 SICK, 0.6 classification: Bi-BloSAN).
        head_hidden: the fully connected layer before the softmax (300D, Bi-BloSAN §4.1/§4.3,
            DiSAN §5.2).
        activation: of that layer: "unspecified activation functions ... Relu" (Bi-BloSAN §4.1,
            MTSA App. B); DiSAN §5 and MTSA on SNLI use elu.
        finetune_embeddings: "The word embeddings are fine-tuned during the training"
            (Bi-BloSAN §4.1, MTSA App. B).
        adadelta_rho: Adadelta's rho (TensorFlow's default 0.95, used by the authors' code).
        eps: Adadelta's and Adam's epsilon (TensorFlow's 1e-8).
        optimizer_init: ``--optimizer CLASS`` (class path and arguments), which replaces the
            papers' optimizer (linked from ``optimizer:``; not a model value).
        lr_scheduler_init: ``--lr_scheduler CLASS`` (linked from ``lr_scheduler:``).
        data: the set-up datamodule (linked from ``data:``; not a config value).
    """
    if data is None:
        raise ValueError("task_model needs the datamodule (``data``) its vocabulary comes from")
    if hasattr(data, "check_inputs"):  # every file of the run, all bad lines at once
        users_hook(data, "check_inputs")
    users_hook(data, "setup", "fit")
    problems = protocol_problems(data)
    if problems:
        raise ConfigError("\n".join(problems))
    vocab_size, dim = data.embedding_matrix.shape
    module = TaskModule(
        encoder,
        data.task.kind,
        data.task.num_classes,
        int(vocab_size),
        int(dim),
        encoder_options=builder_options(
            encoder,
            hidden_dim,
            encoder_options,
            data.length_stats,
            data.batch_size,
            width_scale,
        ),
        labels=data.task.labels,
        optimizer=optimizer,
        lr=builtin_value(lr),
        weight_decay=builtin_value(weight_decay),
        dropout=builtin_value(dropout),
        head_hidden=builtin_value(head_hidden),
        activation=activation,
        finetune_embeddings=finetune_embeddings,
        adadelta_rho=builtin_value(adadelta_rho),
        eps=builtin_value(eps),
        optimizer_init=optimizer_init,
        lr_scheduler_init=lr_scheduler_init,
    )
    module.set_embeddings(torch.as_tensor(data.embedding_matrix).float())
    module.vocabulary = Vocabulary(
        itos=data.vocab.itos, lowercase=getattr(data, "lowercase", False)
    )
    return module
