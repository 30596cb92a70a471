"""``--optimizer`` and ``--lr_scheduler`` judged before any data is read: each class built on a
dummy parameter and stepped, as training will, and every argument it refuses named on its own
line, as the user gave it, in sanbench's words (docs/training.md, "Bad input"); beside them the
values torch takes but that leave nothing to train with: a learning rate of 0, a scheduler's
count below 0 or a factor of 0 or less (the rate multiplied to 0), a rate made negative or NaN.
"""

from __future__ import annotations

import importlib
import inspect
import math
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import torch

from harness.training.settings.task_configs import builtin_value

# what torch raises for arguments it refuses (StepLR's ``step_size`` 0: a modulo by zero)
REFUSALS = (ValueError, TypeError, ZeroDivisionError)
# an argument torch refuses, in words, by its name (torch's own reason for the others)
EXPECTED = {
    "lr": "expected a positive learning rate",
    "momentum": "expected 0 or more",
    "eps": "expected 0 or more",
    "weight_decay": "expected 0 or more",
    "betas": "expected two numbers in [0, 1)",
    "rho": "expected a number in [0, 1]",
    "alpha": "expected 0 or more",
    "lr_decay": "expected 0 or more",
    "initial_accumulator_value": "expected 0 or more",
    "momentum_decay": "expected 0 or more",
}
FACTORS = ("gamma", "factor")  # a scheduler's arguments the learning rate is multiplied by
NOT_COUNTS = ("last_epoch",)  # integer arguments of a scheduler that are not counts
STEPS_WATCHED = 50  # scheduler steps whose learning rate must stay a positive number
Typed = Mapping[str, tuple[str, str]]


def _class(class_path: str) -> Any:
    module, _, name = class_path.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _spelled(group: str, key: str, value: Any, typed: Typed) -> str:
    """The argument ``key`` of ``--group`` and its value, as the user gave them: a flag
    (``--optimizer.lr -1``) or a config file's key (``--config c.yaml: optimizer.init_args.lr
    -1``)."""
    for name in (f"{group}.init_args.{key}", f"{group}.{key}"):
        if name in typed:
            return " ".join(typed[name])
    return f"--{group}.{key} {value}"


def _required(parameters: Mapping[str, inspect.Parameter], key: str) -> bool:
    """Whether the class's argument ``key`` has no default (StepLR's ``step_size``)."""
    return key in parameters and parameters[key].default is inspect.Parameter.empty


def _takes(arguments: dict[str, Any], attempt: Callable[..., Any]) -> bool:
    """Whether the class is built and stepped with ``arguments``."""
    try:
        attempt(arguments)
    except REFUSALS:
        return False
    return True


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def class_init_problems(optimizer: Any, lr_scheduler: Any, typed: Typed | None = None) -> list[str]:
    """One line per argument of ``--optimizer`` and ``--lr_scheduler`` (parsed class specs, or
    None) that torch refuses or that leaves nothing to train with, each named as ``typed``
    (``command_parser.typed_options``) holds it. The scheduler is judged on an optimizer of the
    accepted arguments, whatever the others."""
    typed = typed or {}
    problems: list[str] = []
    accepted: dict[str, Any] = {"lr": 0.1}
    optimizer_class: Any = torch.optim.SGD
    if optimizer is not None:
        spec = builtin_value(optimizer)
        optimizer_class = _class(spec["class_path"])
        own = _optimizer_own_problems(spec, typed)
        lines, accepted = _trial("optimizer", spec, _optimizer_attempt(optimizer_class), typed)
        problems += list({**lines, **own}.values())

    def fresh_optimizer() -> torch.optim.Optimizer:
        parameter = torch.nn.Parameter(torch.zeros(1))
        try:
            return optimizer_class([parameter], **accepted)
        except REFUSALS:  # only together are its arguments refused: said already
            return torch.optim.SGD([parameter], lr=0.1)

    if lr_scheduler is not None:
        spec = builtin_value(lr_scheduler)
        attempt = _scheduler_attempt(_class(spec["class_path"]), fresh_optimizer)
        own = _scheduler_own_problems(spec, attempt, typed)
        lines, accepted = _trial("lr_scheduler", spec, attempt, typed)
        problems += list({**lines, **own}.values())
        if not lines and not own:
            problems += _rate_problems(spec, accepted, attempt, typed)
    return problems


def _optimizer_attempt(optimizer_class: Any) -> Callable[[dict[str, Any]], Any]:
    def attempt(arguments: dict[str, Any]) -> Any:
        return optimizer_class([torch.nn.Parameter(torch.zeros(1))], **arguments)

    return attempt


def _scheduler_attempt(
    scheduler_class: Any, fresh_optimizer: Callable[[], torch.optim.Optimizer]
) -> Callable[..., Any]:
    """Build the scheduler on a fresh optimizer and step both ``steps`` times (the metric a
    ReduceLROnPlateau watches held still); returns the learning rates after each step."""

    def attempt(arguments: dict[str, Any], steps: int = 1) -> list[float]:
        built = fresh_optimizer()
        rates = []
        with warnings.catch_warnings():  # "lr_scheduler.step() before optimizer.step()"
            warnings.simplefilter("ignore")
            scheduler = scheduler_class(built, **arguments)
            for _ in range(steps):
                built.step()
                if isinstance(scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau):
                    scheduler.step(0.0)  # the metric it watches
                else:
                    scheduler.step()
                rates += [float(group["lr"]) for group in built.param_groups]
        return rates

    return attempt


def _optimizer_own_problems(spec: Mapping[str, Any], typed: Typed) -> dict[str | None, str]:
    """A learning rate of 0: torch takes it, and nothing would train."""
    rate = (spec.get("init_args") or {}).get("lr")
    if _number(rate) and rate == 0:
        return {
            "lr": f"{_spelled('optimizer', 'lr', rate, typed)}: {EXPECTED['lr']} (0 trains nothing)"
        }
    return {}


def _scheduler_own_problems(
    spec: Mapping[str, Any], attempt: Callable[..., Any], typed: Typed
) -> dict[str | None, str]:
    """Argument -> its line, for what torch takes but makes no schedule: a count below 0
    (``step_size -2``; ``expected a positive integer`` when 0 is refused too) and a factor the
    learning rate is multiplied by of 0 or less (``gamma 0``)."""
    problems: dict[str | None, str] = {}
    arguments = spec.get("init_args") or {}
    parameters = inspect.signature(_class(spec["class_path"])).parameters
    required = {key: value for key, value in arguments.items() if _required(parameters, key)}
    for key, value in arguments.items():
        spelled = _spelled("lr_scheduler", key, value, typed)
        if key in FACTORS and _number(value) and value <= 0:
            problems[key] = f"{spelled}: expected a positive factor (the rate is multiplied by it)"
        elif type(value) is int and value < 0 and key not in NOT_COUNTS:
            zero_counts = _takes({**required, key: 1}, attempt) and _takes(
                {**required, key: 0}, attempt
            )
            expected = "0 or more" if zero_counts else "a positive integer"
            problems[key] = f"{spelled}: expected {expected}"
    return problems


def _trial(
    group: str, spec: Mapping[str, Any], attempt: Callable[[dict[str, Any]], Any], typed: Typed
) -> tuple[dict[str | None, str], dict[str, Any]]:
    """The arguments of ``spec`` that ``attempt`` (building the class) refuses, each tried alone
    and then beside the others it takes, so that each is named, not torch's first reason alone;
    the class and its arguments together (key None) when only their combination is refused.
    Non-finite numbers are left to ``non_finite_problems``. Returns argument -> line, and the
    arguments taken."""
    arguments = {
        key: value
        for key, value in (spec.get("init_args") or {}).items()
        if not (_number(value) and not math.isfinite(value))
    }
    try:
        attempt(arguments)
        return {}, arguments
    except REFUSALS:
        pass
    parameters = inspect.signature(_class(spec["class_path"])).parameters
    required = {key: value for key, value in arguments.items() if _required(parameters, key)}
    try:
        attempt(required)
    except REFUSALS as error:  # no argument can be judged without them
        if len(required) == 1:
            ((key, value),) = required.items()
            return {key: _argument_line(group, spec["class_path"], key, value, error, typed)}, {}
        return {None: _combination_line(group, spec, required, error, typed)}, {}
    alone: dict[str, BaseException] = {}
    for key, value in arguments.items():
        if key in required or (key in parameters and parameters[key].default == value):
            continue  # a default is no one's choice
        try:
            attempt({**required, key: value})
        except REFUSALS as error:
            alone[key] = error
    accepted = {key: value for key, value in arguments.items() if key not in alone}
    lines: dict[str | None, str] = {}
    for key, error in alone.items():
        try:
            attempt({**accepted, key: arguments[key]})  # refused alone, taken beside the others
        except REFUSALS:
            lines[key] = _argument_line(
                group, spec["class_path"], key, arguments[key], error, typed
            )
        else:
            accepted[key] = arguments[key]
    if lines:
        return lines, accepted
    try:
        attempt(accepted)
    except REFUSALS as error:  # the combination alone: the class and its arguments
        return {None: _combination_line(group, spec, accepted, error, typed)}, {}
    return {}, accepted


def _argument_line(
    group: str, class_path: str, key: str, value: Any, error: BaseException, typed: Typed
) -> str:
    """``--optimizer.momentum -1: expected 0 or more``: an argument the class refuses, in words
    (:data:`EXPECTED`), else with the class's own reason."""
    spelled = _spelled(group, key, value, typed)
    if isinstance(error, ZeroDivisionError):
        expected = "a positive integer" if type(value) is int else "a value other than 0"
        return f"{spelled}: {class_path} divides by it; expected {expected}"
    if key in EXPECTED:
        return f"{spelled}: {EXPECTED[key]}"
    return f"{spelled}: {class_path} refuses it ({error})"


def _combination_line(
    group: str, spec: Mapping[str, Any], arguments: Mapping[str, Any], error: BaseException,
    typed: Typed,
) -> str:  # fmt: skip
    """``--optimizer torch.optim.SGD --optimizer.nesterov true --optimizer.dampening 0.5:
    torch.optim.SGD refuses them together (WHY)``: the class and its arguments that differ from
    its defaults, as given, then the class's own reason."""
    class_path = spec["class_path"]
    defaults = inspect.signature(_class(class_path)).parameters
    given = [
        _spelled(group, key, value, typed)
        for key, value in arguments.items()
        if key not in defaults or defaults[key].default != value
    ]
    why = "a division by zero" if isinstance(error, ZeroDivisionError) else str(error)
    return " ".join([f"--{group} {class_path}", *given]) + f": {class_path} refuses them ({why})"


def _rate_problems(
    spec: Mapping[str, Any], arguments: dict[str, Any], attempt: Callable[..., Any], typed: Typed
) -> list[str]:
    """The scheduler's arguments on one line when, stepped :data:`STEPS_WATCHED` times, it makes
    the learning rate negative or NaN (torch takes them; training would diverge)."""
    try:
        rates = attempt(arguments, STEPS_WATCHED)
    except REFUSALS:  # OneCycleLR stepped past its total_steps: its own schedule's end
        return []
    step, rate = next(
        ((index, rate) for index, rate in enumerate(rates) if not rate >= 0), (None, None)
    )
    if step is None:
        return []
    given = [_spelled("lr_scheduler", key, value, typed) for key, value in arguments.items()]
    named = " ".join([f"--lr_scheduler {spec['class_path']}", *given])
    return [f"{named}: makes the learning rate {rate} at step {step + 1}; expected a positive rate"]
