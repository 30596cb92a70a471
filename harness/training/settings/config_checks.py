"""Checks of a resolved fit config that need no data file: values Lightning, torch or an encoder
builder would refuse only later (after the data is read, some as a ``ZeroDivisionError``), each
as one line naming the option (docs/reliability.md, "Bad input")."""

from __future__ import annotations

import importlib
import math
from collections.abc import Mapping
from typing import Any

from jsonargparse import Namespace

from datamodules.errors import did_you_mean
from harness.command_parser import class_phrase, typed_entry, typed_now
from harness.measurement.machine_memory import physical_bytes
from harness.training.settings.fit_overrides import (
    NO_PASS,
    UNTRAINED_EXPECTED,
    duration,
    fit_typed,
)
from harness.training.settings.precision import accelerator_problems, precision_problems
from harness.training.settings.task_configs import builtin_value

# the profiler names Lightning's Trainer takes as a string (its ``_init_profiler``'s keys)
PROFILER_NAMES = ("simple", "advanced", "pytorch", "xla")
# Lightning's trainer counts that divide a step or epoch number: 0 ends in "integer modulo by
# zero" once training starts
POSITIVE_COUNTS = ("accumulate_grad_batches", "check_val_every_n_epoch")
WIDTH_KEYS = ("hidden_dim", "width_scale")  # model options that set the encoder's width


def _names_problem(
    option: tuple[str, str], value: Any, names: list[str], *, any_case: bool
) -> list[str]:
    """``option value: expected NAMES (did you mean ...?)`` for a name Lightning's registry does
    not hold, a class path written as a name too (Lightning takes that string for a name and
    refuses it: ``--trainer.accelerator lightning.pytorch.accelerators.CUDAAccelerator``; a
    ``Strategy`` or ``Accelerator`` given as a class, a config file's ``class_path`` mapping, is
    Lightning's to judge); ``option`` as typed. ``any_case``: Lightning lowers the name first
    (a strategy's; an accelerator's it takes as written, so ``CPU`` is refused)."""
    if not isinstance(value, str):
        return []
    if (value.lower() if any_case else value) in names:
        return []
    listed = f"{', '.join(names[:-1])} or {names[-1]}"
    return [f"{option[0]} {option[1]}: expected {listed}{did_you_mean(value, names)}"]


def lightning_name_problems(
    trainer: Mapping[str, Any], typed: Mapping[str, tuple[str, str]] | None = None
) -> list[str]:
    """A ``--trainer.strategy`` or ``--trainer.accelerator`` name Lightning does not know
    (refused by the Trainer only after the data is read, in its words), or a strategy that
    starts its processes by multiprocessing (:func:`forked_strategy_problems`), named as
    ``typed`` holds the option."""
    from lightning.pytorch.accelerators import AcceleratorRegistry
    from lightning.pytorch.strategies import StrategyRegistry

    forked = forked_strategies()
    strategies = ["auto", *(n for n in StrategyRegistry.available_strategies() if n not in forked)]
    accelerators = ["auto", *sorted({*AcceleratorRegistry.available_accelerators(), "gpu"})]
    problems = forked_strategy_problems(trainer.get("strategy"), typed)
    named = [("accelerator", accelerators, False)]
    if not problems:  # a forked strategy's name is said once
        named.insert(0, ("strategy", strategies, True))
    for key, names, any_case in named:
        value = trainer.get(key)
        option = (typed or {}).get(f"trainer.{key}", (f"--trainer.{key}", str(value)))
        problems += _names_problem(option, value, names, any_case=any_case)
    return problems


# the start methods of Lightning's multiprocessing launcher (a DDP strategy's ``start_method``
# other than ``popen``, which starts each process as a copy of the command)
FORKED_STARTS = ("spawn", "fork", "forkserver")


def forked_strategies() -> set[str]:
    """The names of Lightning's strategies that start their processes by multiprocessing
    (``ddp_spawn``, ``ddp_fork``, ``ddp_notebook`` and their ``find_unused_parameters``
    forms)."""
    from lightning.pytorch.strategies import StrategyRegistry

    return {
        name
        for name in StrategyRegistry.available_strategies()
        if StrategyRegistry[name]["init_params"].get("start_method") in FORKED_STARTS
    }


def forked_strategy_problems(
    strategy: Any, typed: Mapping[str, tuple[str, str]] | None = None
) -> list[str]:
    """A strategy that starts its processes by multiprocessing: fit runs only in the process
    of the command, whose training state (the steps, the epochs' metrics, the checkpoints'
    record) a process started so does not hand back (``ddp_spawn`` was an internal error:
    "Can't pickle local object"; ``ddp_fork`` trained, then recorded no step). ``ddp`` starts
    each process as a copy of the command and runs there."""
    if isinstance(strategy, str):
        forked = strategy.lower() in forked_strategies()
    else:  # a class_path mapping: DDPStrategy's start_method
        arguments = strategy.get("init_args") if isinstance(strategy, Mapping | Namespace) else {}
        forked = isinstance(arguments, Mapping | Namespace) and (
            arguments.get("start_method") in FORKED_STARTS
        )
    if not forked:
        return []
    option, text = typed_entry(typed or {}, "trainer.strategy") or (
        "--trainer.strategy",
        str(strategy),
    )
    return [
        f"{option} {text}: sanbench runs no strategy that starts its processes by "
        "multiprocessing (ddp_spawn, ddp_fork, ddp_notebook, their find_unused_parameters "
        "forms, a start_method spawn, fork or forkserver): such a process hands back no "
        "training state; give ddp, which starts each process as a copy of the command"
    ]


def early_stopping_problems(config: Mapping[str, Any]) -> list[str]:
    """A ``--trainer.callbacks`` EarlyStopping beside the task's own early stopping
    (``run.early_stopping_patience``): two rules (Lightning refused the pair after the data
    was read when they watch one metric the same way: "Found more than one stateful callback").
    The user changes the task's, or turns it off for theirs."""
    patience = (config.get("run") or {}).get("early_stopping_patience")
    if not patience:
        return []
    return [
        f"--trainer.callbacks {callback['class_path'].rpartition('.')[2]}: the task stops early "
        f"already (--run.early_stopping_patience {patience}); give one rule: change the task's "
        "with --run.early_stopping_patience N, or --run.early_stopping_patience 0 to "
        "stop by yours alone"
        for callback in early_stopping_entries(config["trainer"].get("callbacks"))
    ]


def early_stopping_entries(callbacks: Any) -> list[Any]:
    """The entries (class path, init args) of ``--trainer.callbacks`` that are EarlyStopping
    classes or subclasses."""
    from lightning.pytorch.callbacks import EarlyStopping

    entries = []
    for callback in callbacks if isinstance(callbacks, list) else [callbacks]:
        path = callback.get("class_path") if isinstance(callback, Mapping | Namespace) else None
        module, _, name = str(path).rpartition(".")
        if module and issubclass(getattr(importlib.import_module(module), name), EarlyStopping):
            entries.append(callback)
    return entries


def fast_dev_run_problems(value: Any, text: str) -> list[str]:
    """``--trainer.fast_dev_run``: Lightning then runs a batch or a few as a check of the code,
    with no checkpoint, logger or budget, so the scores it would record are no result."""
    if value is None or value is False or value == 0:
        return []
    return [
        f"--trainer.fast_dev_run{' ' + text if text else ''}: a check of the code, not a run "
        "(Lightning then keeps "
        "no checkpoint or log, and its scores would be recorded as a result); give "
        "--trainer.max_steps N for a short run"
    ]


def trainer_value_problems(
    trainer: Mapping[str, Any], typed: Mapping[str, tuple[str, str]] | None = None
) -> list[str]:
    """One line per ``--trainer.*`` count that must be positive, a ``val_check_interval`` that
    is neither a positive number of batches, a share of the epoch in (0, 1] nor a duration,
    a strategy or accelerator name Lightning does not know, fp16 where it cannot train right
    (:func:`precision_problems`) and ``fast_dev_run``; values as
    ``typed`` (``command_parser.typed_options``) holds them."""
    problems = []
    for key in POSITIVE_COUNTS:
        value = trainer.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value < 1:
            problems.append(f"--trainer.{key} {value}: expected a positive integer")
    interval = trainer.get("val_check_interval")
    number = isinstance(interval, int | float) and not isinstance(interval, bool)
    timed = isinstance(interval, str) and duration(interval) is not None
    if (isinstance(interval, str) and not timed) or (
        number and (interval <= 0 or (isinstance(interval, float) and interval > 1))
    ):
        problems.append(
            f"--trainer.val_check_interval {interval}: expected a positive number of "
            "batches, a share of the epoch in (0, 1] or a duration DD:HH:MM:SS"
        )
    for key in ("limit_train_batches", "limit_val_batches", "limit_test_batches"):
        value = trainer.get(key)
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if number and value < 0 and key in UNTRAINED_EXPECTED:
            continue  # a budget value: budget_problems says it (and every 0: NO_PASS's)
        if number and (value < 0 or (isinstance(value, float) and value > 1)):
            problems.append(
                f"--trainer.{key} {value}: expected a positive number of batches or a share "
                "of the epoch in (0, 1]"
            )
    max_time = trainer.get("max_time")
    if max_time is not None and duration(max_time) is None:
        problems.append(
            f"--trainer.max_time {max_time}: expected a duration DD:HH:MM:SS (e.g. 00:01:30:00) "
            "or e.g. {minutes: 30}"
        )
    clip = trainer.get("gradient_clip_val")
    if isinstance(clip, int | float) and not isinstance(clip, bool) and clip < 0:
        problems.append(f"--trainer.gradient_clip_val {clip}: expected 0 (no clipping) or more")
    every = trainer.get("log_every_n_steps")
    if isinstance(every, int) and not isinstance(every, bool) and every < 1:
        problems.append(f"--trainer.log_every_n_steps {every}: expected a positive integer")
    profiler = trainer.get("profiler")
    if isinstance(profiler, str) and profiler.lower() not in PROFILER_NAMES:
        problems.append(
            f"--trainer.profiler {profiler}: expected {', '.join(PROFILER_NAMES[:-1])} or "
            f"{PROFILER_NAMES[-1]}, or {class_phrase('Profiler')}"
            f"{did_you_mean(profiler.lower(), PROFILER_NAMES)}"
        )
    devices = trainer.get("devices")
    if str(devices).strip() in ("0", "[]"):
        problems.append(
            f"--trainer.devices {devices}: expected a positive number of devices, a list of "
            "device indices, or auto"
        )
    problems += lightning_name_problems(trainer, typed) + accelerator_problems(trainer, typed)
    problems += precision_problems(trainer, typed)
    fast = trainer.get("fast_dev_run")
    problems += fast_dev_run_problems(
        fast, (typed or {}).get("trainer.fast_dev_run", ("", str(fast)))[1]
    )
    return problems


SEED_RANGE = (0, 2**32 - 1)  # what numpy's seed takes (Lightning seeds numpy too)


def seed_problems(seed: Any, option: str = "--seed") -> list[str]:
    """``--seed`` (or ``--seed_everything``, as ``option`` names it) outside the range every
    library seeded with it accepts."""
    if isinstance(seed, int) and not SEED_RANGE[0] <= seed <= SEED_RANGE[1]:
        return [f"{option} {seed}: expected an integer from {SEED_RANGE[0]} to {SEED_RANGE[1]}"]
    return []


def non_finite_problems(
    config: Mapping[str, Any], typed: Mapping[str, tuple[str, str]]
) -> list[str]:
    """One line per number of ``model:``, ``--optimizer``'s or ``--lr_scheduler``'s arguments
    that is infinite or NaN (``--optimizer.lr 1e999``: trained into a NaN loss, whose advice
    then named another option), as ``typed`` (``command_parser.typed_options``) holds the
    option, else by its key."""
    numbers: list[tuple[str, Any]] = [
        (f"model.{key}", value) for key, value in (builtin_value(config["model"]) or {}).items()
    ]
    for group in ("optimizer", "lr_scheduler"):
        arguments = (builtin_value(config.get(group)) or {}).get("init_args") or {}
        numbers += [(f"{group}.{key}", value) for key, value in arguments.items()]
    problems = []
    for key, value in numbers:
        if isinstance(value, float) and not math.isfinite(value):
            option, text = typed.get(key, (f"--{key}", str(value)))
            problems.append(f"{option} {text}: expected a finite number")
    return problems


def data_value_problems(
    data: Mapping[str, Any], typed: Mapping[str, tuple[str, str]] | None = None
) -> list[str]:
    """The benchmark data module's values that need no data file, as options (its
    ``__init__``'s rules, and the encoding its reading would fail on), checked with the others
    before ``--out`` is judged: a known text encoding, a positive ``max_length``, a fold of the
    task's; named as ``typed`` (``command_parser.typed_options``) holds them (``--config c.yaml:
    data.fold``)."""
    from datamodules.tasks import get_task
    from datamodules.text import known_encoding

    problems: list[str] = []
    known_encoding(data.get("encoding"), problems)
    length = data.get("max_length")
    if type(length) is int and length < 1:
        option, text = (typed or {}).get("data.max_length", ("--data.max_length", str(length)))
        problems.append(f"{option} {text}: expected a positive number of tokens")
    fold, folds = data.get("fold"), get_task(str(data["task"])).cv_folds
    if folds and type(fold) is int and not 0 <= fold < folds:
        option, text = (typed or {}).get("data.fold", ("--data.fold", str(fold)))
        problems.append(f"{option} {text}: expected 0 to {folds - 1} (the task's {folds} folds)")
    return problems


def width_clash(model: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    """The widths of ``model:`` that exclude each other, by key under ``model.`` (empty when
    none do): ``width_scale`` beside ``hidden_dim`` or ``encoder_options.hidden_dim``, and
    ``hidden_dim`` beside a different ``encoder_options.hidden_dim`` (one would overwrite the
    other silently)."""
    given = {key: builtin_value(model.get(key)) for key in WIDTH_KEYS}
    given["encoder_options.hidden_dim"] = builtin_value(options.get("hidden_dim"))
    given = {key: value for key, value in given.items() if value is not None}
    hidden, inner = given.get("hidden_dim"), given.get("encoder_options.hidden_dim")
    scaled = "width_scale" in given and len(given) > 1
    return given if scaled or (None not in (hidden, inner) and hidden != inner) else {}


def _width_typed(typed: Mapping[str, tuple[str, str]], key: str, value: Any) -> tuple[str, str]:
    """The width ``key`` of ``model:`` (:func:`width_clash`) as typed: its own option, or the
    mapping that holds it (``--model.encoder_options {hidden_dim: 4}``), else its flag."""
    parent = f"model.{key}".rpartition(".")[0]
    held = typed.get(parent) if parent != "model" else None
    return typed_entry(typed, f"model.{key}") or held or (f"--model.{key}", str(value))


def _widths_named(
    model: Mapping[str, Any], options: Mapping[str, Any], typed: Mapping[str, tuple[str, str]]
) -> str:
    """The width options and encoder options given, as ``typed`` holds them (``-c w.yaml:
    model.encoder_options.hidden_dim -3``), for a refusal of the encoder they build; the two
    options by name when none was given."""
    given = {key: model.get(key) for key in WIDTH_KEYS if model.get(key) is not None}
    given |= {f"encoder_options.{key}": value for key, value in options.items()}
    named = [" ".join(_width_typed(typed, key, value)) for key, value in given.items()]
    return " / ".join(dict.fromkeys(named)) or "--model.encoder_options / --model.hidden_dim"


def encoder_problems(
    model: Mapping[str, Any], input_dim: int, typed: Mapping[str, tuple[str, str]] | None = None
) -> list[str]:
    """The encoder of ``model:`` built on the meta device (nothing allocated): an option its
    builder does not take (one wording with ``profile``), a value it refuses, and parameters
    alone larger than this machine's memory (4 bytes each, float32), naming the width option.
    A width and a width scale given both are named as ``typed`` holds them (``--model.hidden_dim
    4 and --config w.yaml: model.width_scale 2``), not by options nobody typed."""
    import torch

    from encoders import build_encoder, unknown_options_problem
    from harness.training.settings.task_model import builder_options

    encoder = model["encoder"]
    options = builtin_value(model.get("encoder_options")) or {}
    unknown = unknown_options_problem(encoder, list(options))
    if unknown:
        return [f"--model.encoder_options: {unknown}"]
    clash = width_clash(model, options)
    if clash:
        named = [" ".join(_width_typed(typed or {}, key, value)) for key, value in clash.items()]
        return [f"{' and '.join(named)} exclude each other: give one"]
    try:
        keywords = builder_options(
            encoder,
            builtin_value(model.get("hidden_dim")),
            options,
            width_scale=builtin_value(model.get("width_scale")),
        )
        with torch.device("meta"):
            built = build_encoder(encoder, input_dim=input_dim, **keywords)
    except (ValueError, TypeError, RuntimeError) as error:  # torch's: a negative width
        return [f"{_widths_named(model, options, typed or {})}: {error}"]
    needed = 4 * sum(parameter.numel() for parameter in built.parameters())
    if needed > physical_bytes():
        given = [f"--model.{key} {model[key]}" for key in WIDTH_KEYS if model.get(key)]
        width = given[0] if given else "--model.encoder_options"
        return [
            f"{width}: the {encoder} encoder's parameters alone take {needed} bytes "
            f"({needed / 2**30:.3g} GiB), more than this machine's memory "
            f"({physical_bytes() / 2**30:.3g} GiB)"
        ]
    return []


def replicas(trainer: Mapping[str, Any]) -> int:
    """The processes a resolved fit config's trainer trains on (1 unless ``devices`` and
    ``num_nodes`` are counts)."""
    devices, nodes = trainer.get("devices"), trainer.get("num_nodes") or 1
    counted = all(isinstance(n, int) and not isinstance(n, bool) for n in (devices, nodes))
    return devices * nodes if counted else 1


def train_share_key(trainer: Mapping[str, Any]) -> str:
    """The trainer key that sets the share of an epoch's training batches: Lightning trains on
    ``overfit_batches`` in place of ``limit_train_batches`` when it is above 0."""
    overfit = trainer.get("overfit_batches") or 0
    return "trainer.overfit_batches" if overfit > 0 else "trainer.limit_train_batches"


def empty_share_problem(
    limit: object,
    datamodule: Any,
    processes: int,
    key: str = "trainer.limit_train_batches",
    typed: Mapping[str, tuple[str, str]] | None = None,
) -> str | None:
    """The line refusing ``key`` (:func:`train_share_key`) ``limit`` when, a share, it keeps no
    batch of an epoch of ``datamodule`` (a ``BenchmarkDataModule`` whose files are read: fit
    after building it, suite, tune and reproduce when they check every file); None when it
    trains something. The option is named as typed: ``typed`` (fit's), else the command's
    (``--limit-train-batches`` of a suite, ``--config FILE: trainer.overfit_batches``)."""
    if not isinstance(limit, float) or datamodule.epoch_batches(limit, processes) > 0:
        return None
    batches = datamodule.epoch_batches(None, processes)
    return _empty_share_words(key, limit, typed, batches)


def unread_share_problem(
    trainer: Mapping[str, Any],
    datamodule: Any,
    typed: Mapping[str, tuple[str, str]] | None = None,
) -> str | None:
    """:func:`empty_share_problem` before any file is parsed or vector read (the heavy part of
    a start): from the training files' lines (``datamodule.most_epoch_batches``: at most one
    example a line), a share that keeps no batch of an epoch of that many examples keeps none
    of the real one. A share the lines cannot decide is judged once the data is read."""
    key = train_share_key(trainer)
    limit = trainer.get(key.removeprefix("trainer."))
    if not isinstance(limit, float):
        return None
    most = datamodule.most_epoch_batches(limit, replicas(trainer))
    if most is None or most[0] > 0:
        return None
    batches, lines = datamodule.most_epoch_batches(None, replicas(trainer))
    bound = f" (the training files' {lines} line(s), at most one example each)"
    return _empty_share_words(key, limit, typed, batches, bound)


def _empty_share_words(
    key: str,
    limit: float,
    typed: Mapping[str, tuple[str, str]] | None,
    batches: int,
    bound: str = "",
) -> str:
    """The line refusing ``key``'s share ``limit`` of an epoch of ``batches`` batches (at most
    so many, as ``bound`` says why), the option named as typed (:func:`empty_share_problem`)."""
    typed = fit_typed(typed_now()) if typed is None else typed
    option, value = typed.get(key, (f"--{key}", str(limit)))
    return (
        f"{option} {value}: trains nothing: {value} of {'at most' if bound else 'the'} "
        f"{batches} training batch(es) of an epoch{bound} is less than one (Lightning keeps "
        "int(share x batches)); expected a share of "
        f"at least {1 / max(batches, 1):.3g}, or a number of batches"
    )


# the evaluation limits' splits, as a run's batches are named
EVAL_SPLITS = {"limit_val_batches": ("val", "dev"), "limit_test_batches": ("test", "test")}


def empty_eval_share_problems(
    trainer: Mapping[str, Any],
    datamodule: Any,
    typed: Mapping[str, tuple[str, str]] | None = None,
    batch_size: int | None = None,
) -> list[str]:
    """One line per ``limit_val_batches`` or ``limit_test_batches`` share that keeps no batch
    of the dev or test split of ``datamodule`` (a ``BenchmarkDataModule`` whose files are read;
    of ``batch_size`` examples, default its own): Lightning refused it only when the fit first
    validated or tested, as an internal error ("You requested to check 0.0001 of the
    `val_dataloader` but 0.0001 * 18 < 1"). Named as typed, as :func:`empty_share_problem`."""
    problems = []
    for key, (split, name) in EVAL_SPLITS.items():
        limit = trainer.get(key)
        if not isinstance(limit, float) or limit <= 0:  # 0: NO_PASS's, before the data
            continue
        batches = datamodule.eval_batches(split, batch_size)
        if int(limit * batches) > 0:
            continue
        typed = fit_typed(typed_now()) if typed is None else typed
        option, value = typed.get(f"trainer.{key}", (f"--trainer.{key}", str(limit)))
        problems.append(
            f"{option} {value}: {NO_PASS[key]}: {value} of the {batches} {name} batch(es) is "
            "less than one (Lightning keeps int(share x batches)); expected a share of at least "
            f"{1 / max(batches, 1):.3g}, or a number of batches"
        )
    return problems


def interval_problem(
    trainer: Mapping[str, Any],
    datamodule: Any,
    processes: int,
    typed: Mapping[str, tuple[str, str]] | None = None,
) -> str | None:
    """A ``val_check_interval`` count above the training batches of an epoch of
    ``datamodule`` (its files read) while validations count within epochs
    (``check_val_every_n_epoch`` set): no epoch reaches it. Lightning refused it at the fit's
    start in its words, which offered ``limit_val_batches`` 0.0, itself refused (``NO_PASS``)."""
    interval = trainer.get("val_check_interval")
    if not isinstance(interval, int) or isinstance(interval, bool):
        return None
    if trainer.get("check_val_every_n_epoch") is None:
        return None
    share = trainer.get(train_share_key(trainer).removeprefix("trainer."))
    batches = datamodule.epoch_batches(share, processes)
    if interval <= batches:
        return None
    option, value = (typed or {}).get(
        "trainer.val_check_interval", ("--trainer.val_check_interval", str(interval))
    )
    return (
        f"{option} {value}: more than the {batches} training batch(es) of an epoch, which no "
        f"epoch reaches (no validation would run); expected at most {batches}, or add "
        "--trainer.check_val_every_n_epoch null to count batches across epochs"
    )
