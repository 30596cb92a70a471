"""``--optimizer CLASS`` and ``--lr_scheduler CLASS``: LightningCLI's optimizer and scheduler
groups, linked to the model (docs/training.md, "Optimizers").

The papers' optimizers stay each task config's ``model.optimizer`` (Adadelta or Adam, with
``model.lr``, ``model.adadelta_rho``, ``model.eps``); ``--optimizer`` replaces them with any
``torch.optim.Optimizer`` (or a user's) by class path. One of the two ways per run: a papers'
optimizer value changed beside ``--optimizer`` is refused. ``model.weight_decay`` is the papers'
L2 penalty gamma on weight matrices whatever the optimizer, so ``--optimizer.weight_decay`` is
refused unless it is the class's own default (which the per-matrix groups replace).
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Mapping
from typing import Any

from jsonargparse import Namespace
from lightning.pytorch.cli import LightningArgumentParser, LRSchedulerTypeTuple
from torch.optim import Optimizer
from torch.optim.lr_scheduler import ReduceLROnPlateau

from datamodules.errors import did_you_mean
from harness.training.settings.task_configs import PAPERS_OPTIMIZER_KEYS, builtin_value

OWN_DECAY = "weight_decay"  # an --optimizer class's own decay: model.weight_decay replaces it
OPTIMIZER_LINK = "model.optimizer_init"  # task_model's keywords the groups are linked to
LR_SCHEDULER_LINK = "model.lr_scheduler_init"


def class_spec(value: Any) -> dict[str, Any] | None:
    """A parsed ``--optimizer``/``--lr_scheduler`` as built-ins (``{"class_path": ...,
    "init_args": {...}}``): the model saves it, and checkpoints load with ``weights_only``."""
    if value is None:
        return None
    spec = value.as_dict() if hasattr(value, "as_dict") else dict(value)
    init_args = {key: builtin_value(arg) for key, arg in (spec.get("init_args") or {}).items()}
    return {"class_path": spec["class_path"], "init_args": init_args}


def add_optimizer_groups(parser: LightningArgumentParser) -> None:
    """``--optimizer`` (any ``torch.optim.Optimizer``) and ``--lr_scheduler`` (any of
    Lightning's scheduler types), each linked to a keyword of ``task_model`` as built-ins.
    Registered as LightningCLI's automatic groups, which FitCLI does not auto-configure
    (``auto_configure_optimizers=False``): the model builds them on its L2 groups."""
    parser.add_optimizer_args((Optimizer,))
    parser.add_lr_scheduler_args(LRSchedulerTypeTuple)
    parser.link_arguments("optimizer", OPTIMIZER_LINK, compute_fn=class_spec)
    parser.link_arguments("lr_scheduler", LR_SCHEDULER_LINK, compute_fn=class_spec)


def _class(class_path: str) -> Any:
    module, _, name = class_path.rpartition(".")
    return getattr(importlib.import_module(module), name)


def optimizer_problems(
    config: Any, defaults: Any, typed: Mapping[str, tuple[str, str]] | None = None
) -> list[str]:
    """One line per value of a parsed fit ``config`` that ``--optimizer`` would silently
    replace: a papers' optimizer key changed from its task default (``defaults``), or the
    optimizer's own ``weight_decay``; and a scheduler Lightning cannot step. ``typed``
    (``command_parser.typed_options``) names a value as given (``--config c.yaml: model.lr``)."""
    problems = []
    chosen = config.get("optimizer")
    if chosen is not None:
        class_path = chosen["class_path"]
        for key in PAPERS_OPTIMIZER_KEYS:
            value = config.get(f"model.{key}")
            if value != defaults.get(f"model.{key}"):
                option, text = (typed or {}).get(f"model.{key}", (f"--model.{key}", value))
                problems.append(
                    f"{option} {text} and --optimizer {class_path}: give one "
                    "(--model.optimizer, --model.lr, --model.adadelta_rho and --model.eps set the "
                    "papers' optimizers; --optimizer CLASS takes its own, e.g. --optimizer.lr)"
                )
        decay = (chosen.get("init_args") or {}).get(OWN_DECAY)
        parameter = inspect.signature(_class(class_path)).parameters.get(OWN_DECAY)
        if decay is not None and parameter is not None and decay != parameter.default:
            problems.append(
                f"--optimizer.weight_decay {decay}: weight decay is --model.weight_decay (the "
                "papers' L2 penalty gamma, on weight matrices only, whatever the optimizer); "
                "give it there"
            )
    scheduler = config.get("lr_scheduler")
    if scheduler is not None and _class(scheduler["class_path"]) is ReduceLROnPlateau:
        problems.append(
            f"--lr_scheduler {scheduler['class_path']}: Lightning needs the metric it watches: "
            "--lr_scheduler lightning.pytorch.cli.ReduceLROnPlateau --lr_scheduler.monitor "
            "val_acc (val_pearson for relatedness)"
        )
    return problems


def monitor_problems(
    config: Any, monitored: list[str], typed: dict[str, tuple[str, str]]
) -> list[str]:
    """One line per ``monitor`` of the scheduler (ReduceLROnPlateau's) or of a
    ``--trainer.callbacks`` class (EarlyStopping's, ModelCheckpoint's) that names none of the
    ``monitored`` metrics, with the nearest: Lightning finds out only after the first epoch
    trained (``MisconfigurationException``). ``typed`` names the options as given."""
    given: list[tuple[list[str], Any]] = []  # the keys that may have set it, its value
    scheduler = config.get("lr_scheduler")
    if scheduler is not None:
        keys = ["lr_scheduler.init_args.monitor", "lr_scheduler.monitor"]
        given.append((keys, (scheduler.get("init_args") or {}).get("monitor")))
    callbacks = config["trainer"].get("callbacks")
    for index, callback in enumerate(callbacks if isinstance(callbacks, list) else [callbacks]):
        if isinstance(callback, Mapping | Namespace):
            keys = [f"trainer.callbacks.{index}.{key}" for key in ("init_args.monitor", "monitor")]
            keys += ["trainer.callbacks.init_args.monitor", "trainer.callbacks.monitor"]
            given.append((keys, (callback.get("init_args") or {}).get("monitor")))
    problems = []
    for keys, name in given:
        if not isinstance(name, str) or name in monitored:
            continue
        option, text = next((typed[key] for key in keys if key in typed), (f"--{keys[-1]}", name))
        near = did_you_mean(name.lower(), monitored)  # Dev_Acc: val_acc (names are lower case)
        problems.append(
            f"{option} {text}: the model logs no metric {name}; it logs "
            f"{', '.join(monitored)}{near}"
        )
    return problems
