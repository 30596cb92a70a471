"""``FitCLI``: LightningCLI for one fit (``trainer:``, ``model:``, ``data:``, ``run:``, ``out``).

The task's config (``configs/<task>.yaml``, its per-encoder values included) sets the defaults,
so any ``--config`` file and then any ``--section.key`` option wins over it. Classes are built
by :meth:`FitCLI.build`, which reads and checks every input file before ``run_fit`` touches the
run folder.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import dataclasses
import functools
import inspect
import re
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import lightning.pytorch as pl
import yaml
from jsonargparse import DefaultHelpFormatter, Namespace
from lightning.pytorch.cli import LightningArgumentParser, LightningCLI
from lightning.pytorch.utilities.exceptions import MisconfigurationException

from datamodules.datamodule import RANDOM_VECTORS_DIM, BenchmarkDataModule
from datamodules.errors import DataFormatError, nearest
from datamodules.tasks import get_task
from harness.command_parser import (
    CLASS_KEYS,
    CLASS_PATH_KEY,
    CONFIG_OPTIONS,
    PRINT_CONFIG_FLAGS,
    SECTION_FILE_SUFFIXES,
    SECTION_FILES,
    CheckedConfigFile,
    NullsChecked,
    OptionWord,
    SectionFlags,
    absolute,
    accepted,
    add_alias,
    batch_size_problems,
    broken_configs_left_out,
    class_phrase,
    config_setting,
    config_text,
    config_typed,
    did_you_mean,
    encoder_choice_problems,
    field_docs,
    flat_keys,
    flow_text,
    home_path,
    known_keys,
    negative_values_attached,
    no_option_takes,
    not_decimal_problems,
    not_meant,
    out_taken,
    parsed_value,
    parser_problem,
    print_config_problem,
    refused_keys,
    rewritten_options,
    said_as_written,
    section_flags_checked,
    section_keys_known,
    typed_entry,
    typed_now,
    typed_options,
    unread_sections,
    without_dotted,
    without_extra_words,
    without_key,
    without_unknown_options,
    yaml_text,
)
from harness.errors import FilesError, FilesProblem, InputError, UsageError, refusal
from harness.training.callbacks.efficiency_callback import TRAIN_SECONDS
from harness.training.module import logged_metrics
from harness.training.settings.class_checks import class_init_problems
from harness.training.settings.config_checks import (
    data_value_problems,
    early_stopping_entries,
    early_stopping_problems,
    empty_eval_share_problems,
    empty_share_problem,
    encoder_problems,
    fast_dev_run_problems,
    interval_problem,
    non_finite_problems,
    seed_problems,
    train_share_key,
    trainer_value_problems,
    unread_share_problem,
)
from harness.training.settings.fit_overrides import (
    CLASS_SECTIONS,
    Budget,
    budget_problems,
    fit_typed,
    path_problems,
)
from harness.training.settings.optimizers import (
    OWN_DECAY,
    add_optimizer_groups,
    monitor_problems,
    optimizer_problems,
)
from harness.training.settings.precision import record_run_name
from harness.training.settings.run_options import RunOptions
from harness.training.settings.task_configs import (
    PAPERS_OPTIMIZER_KEYS,
    ConfigError,
    ConfigUsageError,
    builtin_value,
    nested,
    task_and_encoder,
    task_defaults,
    task_option_problems,
    task_stand_in,
)
from harness.training.settings.task_model import task_model, users_init_error
from harness.training.settings.trainer_keys import FitTrainer
from harness.training.trainer_setup import trainer_arguments
from reports.contracts.fit_folder import FIT_SECTIONS

# our defaults for Lightning's own: one device, repeatable CPU runs, no sanity check or summary
# (quiet), and the datamodule's own distributed sharding (docs/training.md, DDP)
TRAINER_DEFAULTS = {
    "devices": 1,
    "deterministic": "warn",
    "num_sanity_val_steps": 0,
    "enable_model_summary": False,
    "use_distributed_sampler": False,
    "log_every_n_steps": 50,
}
CONFIG_HELP = "a YAML file of fit options (as --print_config writes it); later options win"
SHORT_FORMS = {  # option -> the config key it sets
    "--task": "data.task",
    "--encoder": "model.encoder",
    "--data-dir": "data.data_dir",
    "--embeddings": "data.embeddings",
    "--seed": "seed_everything",
    "--fold": "data.fold",
    "--encoding": "data.encoding",
}
DESCRIPTION = """Train, validate and test one model. Defaults: the task's config
(harness/training/configs/<task>.yaml), then --config files, then options."""


# reStructuredText in the docstrings fit's --help shows (Lightning's Trainer's, the model's):
# ``x``, :class:`~a.B`; and Lightning's "Default: X." where jsonargparse says sanbench's
RST_LITERAL = re.compile(r"``(.*?)``")
RST_ROLE = re.compile(r":[a-z]+:`~?([^`]*)`")
LIGHTNING_DEFAULT = re.compile(r"\s?Default: \S+\.(?=\s|$)")


def plain_text(text: str) -> str:
    """``text`` without reStructuredText markup."""
    return RST_ROLE.sub(lambda m: m[1].rpartition(".")[2], RST_LITERAL.sub(r"\1", text))


class PlainHelpFormatter(DefaultHelpFormatter):
    """jsonargparse's help in plain text, each option's default said once (jsonargparse's: the
    value sanbench uses, not the one Lightning's docstring names)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        return plain_text(LIGHTNING_DEFAULT.sub("", super()._get_help_string(action)))

    def _format_text(self, text: str) -> str:
        return super()._format_text(plain_text(text))


# Lightning's loggers that need a package sanbench does not install, and how to get it
LOGGER_PACKAGES = {
    "TensorBoardLogger": (("tensorboard", "tensorboardX"), "pip install 'sanbench[tensorboard]'"),
    "WandbLogger": (("wandb",), "pip install wandb"),
    "MLFlowLogger": (("mlflow",), "pip install mlflow"),
    "CometLogger": (("comet_ml",), "pip install comet-ml"),
    "NeptuneLogger": (("neptune",), "pip install neptune"),
}


def missing_logger_packages(value: Any) -> list[str]:
    """One line per logger of ``--trainer.logger`` (one, a list, or none) whose package is not
    installed, naming the command that installs it."""
    import importlib.util

    loggers = value if isinstance(value, list) else [value]
    problems = []
    for logger in loggers:
        class_path = str(getattr(logger, "class_path", "") or "")
        name = class_path.rpartition(".")[2]
        if name in LOGGER_PACKAGES:
            packages, install = LOGGER_PACKAGES[name]
            if not any(importlib.util.find_spec(package) for package in packages):
                problems.append(f"--trainer.logger {name} needs {packages[0]}: {install}")
    return problems


DATA_CLASS = "data_class"  # the config key of --data CLASS (a user's LightningDataModule)
CLASS_PATH = re.compile(r"[A-Za-z_][\w.]*\.[A-Za-z_]\w*")


def is_class_path(value: str) -> bool:
    """``--data my_module.MyDataModule`` names a class; ``--data FILE`` (jsonargparse's config
    file of the ``data:`` section) a file."""
    return bool(CLASS_PATH.fullmatch(value)) and not value.endswith(SECTION_FILE_SUFFIXES)


def with_data_class(words: list[str]) -> tuple[list[str], str | None]:
    """``words`` with ``--data CLASS`` spelled ``--data_class CLASS``, and the class path they
    choose (a ``--config`` file's ``data_class`` too; the last one given wins)."""
    out, chosen, index = [], None, 0
    while index < len(words):
        word = words[index]
        option, equals, value = word.partition("=")
        if not equals and index + 1 < len(words):
            value = words[index + 1]
        if option in ("--data", f"--{DATA_CLASS}") and is_class_path(value):
            out += [f"--{DATA_CLASS}", value]
            chosen = value
            index += 1 if equals else 2
            continue
        if option in ("-c", "--config") and value:
            chosen = _config_data_class(value) or chosen
        out.append(word)
        index += 1
    return out, chosen


def empty_classes_unset(words: list[str]) -> list[str]:
    """``--optimizer {}`` (``--lr_scheduler={}``) as ``--optimizer null``: a class section left
    empty is not given, as a config file's ``optimizer: {}`` is (:class:`FitConfigFile`), not
    jsonargparse's base class with no argument (``torch.optim.Optimizer``)."""
    out = list(words)
    for index, word in enumerate(out):
        option, equals, value = word.partition("=")
        at = index if equals else index + 1  # where the value stands
        if option.removeprefix("--") not in CLASS_SECTIONS or at >= len(out):
            continue
        if "".join((value if equals else out[at]).split()) == "{}":
            out[at] = f"{option}=null" if equals else "null"
    return out


def _config_data_class(path: str) -> str | None:
    import yaml

    try:
        config = yaml.safe_load(config_text(path))
    except (OSError, yaml.YAMLError, ValueError):  # ValueError: too many digits, bad bytes
        return None  # the real parser says what is wrong with the file
    return config.get(DATA_CLASS) if isinstance(config, dict) else None


def data_class(path: str | None) -> type[pl.LightningDataModule]:
    """The datamodule class of a fit: the benchmarks' (None), or a user's class path, imported
    from the current folder too."""
    if path is None:
        return BenchmarkDataModule
    import importlib

    from encoders.plugins import current_folder_importable

    current_folder_importable()
    module, _, name = path.rpartition(".")
    try:
        found = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as error:
        message = f"--data {path}: cannot import it: {type(error).__name__}: {error}"
        raise ConfigError(message) from None
    if not (isinstance(found, type) and issubclass(found, pl.LightningDataModule)):
        raise ConfigError(f"--data {path}: expected a LightningDataModule class, got {found!r}")
    return found


def unknown_key_lines(
    args: dict[str, Any], known: set[str], typed: dict[str, tuple[str, str]]
) -> list[str]:
    """One line per key of the mapping ``args`` that fit does not know, with the nearest key,
    named as ``typed`` holds it: a flag's as an unknown option (``--data.batch_sise``), a
    config file's as ``--config FILE: unknown key``, as ``sanbench fit`` names them."""
    lines = []
    for key in flat_keys(args):
        if accepted(key, known):
            continue
        option = typed.get(key, ("",))[0]
        if not option.startswith("--") or ": " in option:  # unset, or a config file's key
            where, _, written = option.rpartition(": ")
            # (-c c.yaml: )--trainer t.yaml, or --model {hidden_dim: 8, bogus: 2}: the section's
            holders = {word.removeprefix("--") for word in where.split(" ")} & set(SECTION_FILES)
            if key.partition(".")[0] in holders and written != key:
                section = f"{key.removesuffix(written)}"  # its keys as section_file_content's
                inside = {k.removeprefix(section) for k in known if k.startswith(section)}
                lines.append(f"{where}: unknown key {written}{did_you_mean(written, inside)}")
                continue
            lines.append(
                f"{where + ': ' if where else ''}unknown key {key}{did_you_mean(key, known)}"
            )
        else:
            options = {f"--{name}" for name in known}
            lines.append(f"unknown option {option}{did_you_mean(option, options)}")
    return lines


def fit_key_problems(overrides: dict[str, Any]) -> list[str]:
    """:func:`unknown_key_lines` of a command's fit ``overrides`` (dotted: ``trainer.max_stepz``)
    judged with no task or encoder chosen (``tune`` without ``--study``, ``--task`` or
    ``--encoder``), named as the command's options typed them, as fit names them beside its
    missing options: fit's keys are every task's and encoder's (an entry inside a model's
    mapping is accepted, its encoder's to judge)."""
    args = nested(overrides)
    return unknown_key_lines(args, known_keys(fit_parser()), FitCLI._typed(args))


def fit_parser() -> LightningArgumentParser:
    """fit's parser of the benchmark's datamodule, built once a process (:data:`BUILT_PARSERS`:
    a fit of no option builds it, refused)."""
    key = (FitCLI, data_class(None))
    if key not in BUILT_PARSERS:
        with contextlib.suppress(InputError):
            FitCLI({})
    return BUILT_PARSERS[key]


def given_callbacks(value: list[pl.Callback] | pl.Callback | None) -> list[pl.Callback]:
    """``--trainer.callbacks`` as a list: it takes one callback, a list, or none."""
    return [value] if isinstance(value, pl.Callback) else list(value or [])


def check_after_validation(callbacks: Any) -> None:
    """A ``--trainer.callbacks`` EarlyStopping that leaves ``check_on_train_epoch_end`` unset
    checks after each validation only, as the task's own does: Lightning's default also checks
    at an epoch's end, and a budget ending before the first validation then ended in "Early
    stopping conditioned on metric `val_acc` which is not available" (exit 1)."""
    for callback in early_stopping_entries(callbacks):
        if callback.get("init_args") is None:
            callback["init_args"] = Namespace()
        if callback["init_args"].get("check_on_train_epoch_end") is None:
            callback["init_args"]["check_on_train_epoch_end"] = False


def _task_recorded(args: list[str] | dict[str, Any], task: str) -> list[str] | dict[str, Any]:
    """``args`` choosing ``task`` as configs record it (a task file by its absolute path: the
    run's ``fit_config.yaml`` then runs from any folder), given last so that it wins."""
    from datamodules.tasks import recorded_task

    if recorded_task(task) == task:
        return args
    if isinstance(args, dict):
        return {**args, "data": {**(args.get("data") or {}), "task": recorded_task(task)}}
    return [*args, f"--data.task={recorded_task(task)}"]


def encoder_stand_in(encoder: str | None) -> str | None:
    """The registered encoder nearest to the unknown name ``encoder`` (``bilstm`` for
    ``bi-lstm``), whose defaults the other values are judged on, so that they are named in the
    same refusal as the name (as a suite's stand-ins); None when no name is near."""
    from encoders import list_encoders

    return nearest(encoder, list_encoders()) if encoder is not None else None


def given_task(words: list[str]) -> str | None:
    """The last ``--task``/``--data.task`` word as typed: jsonargparse would read a file it
    names as the task's own fields (``str | TaskSpec``), and its error dumps a Namespace."""
    options, task = ("--task", "--data.task"), None
    for index, word in enumerate(words):
        option, equals, value = word.partition("=")
        if option in options and equals:
            task = value
        elif word in options and index + 1 < len(words):
            task = words[index + 1]
    return task


def stated_config(parser: LightningArgumentParser, config: Any, flags: Iterable[str] = ()) -> str:
    """``config`` as YAML, nulls too, naming only the optimizer that runs: beside ``--optimizer
    CLASS`` the papers' keys it replaces are left out (they hold their task defaults, which
    they take again when the file is read: :func:`optimizer_problems` refuses others), and so
    is the class's own ``weight_decay`` (its default: the model's groups run
    ``model.weight_decay``, the one decay recorded).
    ``flags`` are ``--print_config``'s (LightningCLI's): ``skip_null`` (or ``skip_unset``)
    leaves the nulls out, ``skip_default`` the values that are the task's defaults."""
    if config.get("optimizer") is not None:
        config = config.clone()
        for key in PAPERS_OPTIMIZER_KEYS:
            del config[f"model.{key}"]
        if f"optimizer.init_args.{OWN_DECAY}" in config:
            del config[f"optimizer.init_args.{OWN_DECAY}"]
    skip_unset = bool({"skip_null", "skip_unset"} & set(flags))
    return parser.dump(config, skip_unset=skip_unset, skip_default="skip_default" in flags)


def current_option_names(config: Any) -> None:
    """Put ``config``'s encoder options under their current names, as ``profile`` records them:
    ``{impl: tensor}`` for MTSA warns and is recorded (printed, saved) as
    ``{attention_impl: tensor}``."""
    from encoders import current_options, list_encoders

    encoder, options = (
        config.get("model.encoder"),
        builtin_value(config.get("model.encoder_options")),
    )
    if not options or encoder not in list_encoders():
        return
    try:
        config["model.encoder_options"] = current_options(encoder, options)
    except TypeError as error:
        raise ConfigUsageError(f"--model.encoder_options: {error}") from None


def print_config_flags(words: list[str]) -> list[str] | None:
    """The flags of ``--print_config[=FLAG,...]`` among ``words`` ([] for none), or None when
    it is not asked for."""
    for index, word in enumerate(words):
        option, equals, value = word.partition("=")
        if option != "--print_config":
            continue
        following = words[index + 1 : index + 2]
        if not equals and following and not following[0].startswith("-"):
            value = following[0]  # --print_config skip_null (as without_printing reads it)
        return [flag for flag in value.split(",") if flag]
    return None


def print_config_problems(flags: list[str]) -> list[str]:
    """One line per flag ``--print_config`` does not take (``comments`` needs a library
    sanbench does not install)."""
    return [print_config_problem(flag) for flag in flags if flag not in PRINT_CONFIG_FLAGS]


HELP_WORDS = ("-h", "--help")


def without_printing(words: list[str]) -> list[str]:
    """``words`` without ``-h``/``--help`` and ``--print_config`` (with its value, if it has
    one), which would print and exit while parsing."""
    kept: list[str] = []
    skip_value = False
    for word in words:
        if skip_value and not word.startswith("-"):
            skip_value = False
            continue
        skip_value = word == "--print_config"
        if word in HELP_WORDS or word.startswith("--print_config"):
            continue
        kept.append(word)
    return kept


MISSING_OUT = "--out is required: the run folder"  # in every other command's words
# jsonargparse's refusal of a class missing an argument: said by the refusal of the argument
# misspelled before it (``--trainer.callbacks.monitr``), if any
REQUIRED = "the following arguments are required"
FAST_DEV_RUN = "--trainer.fast_dev_run"  # Lightning's option that fit refuses
# the paths a recorded config names by their absolute form (the task file: _task_recorded)
RECORDED_PATHS = ("out", "data.data_dir", "data.embeddings")


def absolute_paths(config: Namespace) -> Namespace:
    """A copy of ``config`` naming its folders and files (:data:`RECORDED_PATHS`) by absolute
    paths, as ``fit_config.yaml`` and ``--print_config`` write them: a relative path in a config
    file is read beside that file (docs/training.md), so a printed config saved in another
    folder named other folders until 2026-12-01 (``data_dir: ../k``)."""
    config = config.clone()
    for key in RECORDED_PATHS:
        value = config.get(key)
        if isinstance(value, str | Path) and str(value):  # ~ read already (home_paths)
            config[key] = type(value)(absolute(value))  # normalised (a/../b), links kept
    return config


def home_paths(config: Namespace) -> Namespace:
    """``config`` with each of its folders and files (:data:`RECORDED_PATHS`) written ``~`` or
    ``~/x`` read as the home folder, as every command's ``Path`` options are (:func:`home_path`:
    the datamodule's ``data_dir`` is a ``str | Path``, which jsonargparse keeps a string)."""
    for key in RECORDED_PATHS:
        value = config.get(key)
        if isinstance(value, str | Path) and str(value).startswith("~"):
            config[key] = type(value)(home_path(value))
    return config


# what fit's required keys take, in the words of the other commands' refusals of a missing one
REQUIRED_WHAT = {
    "model.encoder": "a registered encoder (sanbench encoders lists them)",
    "data.task": 'the task: its name, an alias, or a task file (NAME.yaml, docs/data.md "Your '
    'own data")',
}


def missing_problems(
    text: str, parser: LightningArgumentParser, refused: Iterable[str] = ()
) -> list[str]:
    """jsonargparse's "the following arguments are required: model.encoder, data.task" in the
    words of every command's refusal of a missing option (``required_word``): one line per key,
    the option as a user types it, ``--encoder is required: a registered encoder ...``, but
    for a key whose given value was ``refused`` (named already); [] for another message."""
    if not text.startswith(f"{REQUIRED}: "):
        return []
    short = {key: option for option, key in SHORT_FORMS.items()}
    refused = {*refused, *getattr(parser, "refused_in_files", ())}  # a section's file unread
    lines = []
    for key in text.partition(": ")[2].split(", "):
        if key in refused or key.partition(".")[0] in refused:
            continue
        action = parser._option_string_actions.get(f"--{key}")  # argparse keeps no public map
        given = " ".join(action.help.split()) if action and action.help else ""
        what = REQUIRED_WHAT.get(key) or plain_text(given)
        lines.append(f"{short.get(key, f'--{key}')} is required{': ' + what if what else ''}")
    return lines


def without_section_files(words: list[str], sections: set[str]) -> list[str]:
    """``words`` without the files given for ``sections`` (``--optimizer opt.yaml``, read as
    that section of a config, :data:`SECTION_FILES`), for the rest to be judged without them."""
    left_out = sections & set(SECTION_FILES)
    return rewritten_options(
        words, lambda given: ([], True) if given.option.removeprefix("--") in left_out else None
    )


@dataclasses.dataclass
class CommandFlags:
    """The flags of ``sanbench fit`` that are not config values, set while its words parse."""

    overwrite: bool = False  # --overwrite


class SetAttribute(argparse.Action):
    """A flag of the command that is not a config value: it sets ``target.name`` to True."""

    def __init__(self, option_strings: list[str], dest: str, target: Any, name: str, **kw: Any):
        super().__init__(option_strings, dest=argparse.SUPPRESS, **kw)
        self.target, self.name = target, name

    def __call__(self, parser, namespace, values, option_string=None):  # type: ignore[override]
        setattr(self.target, self.name, True)


# the parser built for each CLI class (FitCLI or a subclass) and datamodule class, never parsed
# with: building one reads Trainer's ~80 arguments from its signature and docstrings (~0.1 s of
# CPU), a deep copy takes ~6 ms. Each fit parses with its own copy: parsing sets the task's
# defaults on it (parse_arguments).
BUILT_PARSERS: dict[tuple[type, type], LightningArgumentParser] = {}


class FitConfigFile(CheckedConfigFile):
    """fit's ``--config``: a class option holding ``{}`` (``optimizer: {}``, as suite's, tune's
    and reproduce's --print_config write one not given) is read as not given."""

    EMPTY_IS_UNSET = CLASS_SECTIONS

    def __call__(self, parser, cfg, values, option_string=None):  # type: ignore[override]
        """A section of no such shape (``model: 5``) is named, as suite names it, and left out:
        the rest of the file is judged beside it, and nothing is trained."""
        said = f"{option_string} {values}"
        shapes = section_shape_problems(str(values), said)
        collected = getattr(parser, "section_problems", None)  # fit's: said beside the rest
        if shapes and collected is None:
            raise UsageError("\n".join(shapes.values()))
        collected = collected if collected is not None else {}
        collected.update(dict.fromkeys(shapes.values()))
        refused = getattr(parser, "dropped_keys", {})
        parser.dropped_keys = {**refused, str(values): {*refused.get(str(values), ()), *shapes}}
        try:
            super().__call__(parser, cfg, values, option_string)
        finally:
            parser.dropped_keys = refused


CLASS_BASES = {"optimizer": "Optimizer", "lr_scheduler": "LRScheduler"}  # a class section's base


def section_shape_problems(path: str, said: str) -> dict[str, str]:
    """Each section of the ``--config`` file ``path`` holding neither a mapping nor a file's
    name (``model: 5``, ``data: [a]``; a class section's name is its class's) -> its line,
    ``--config F: model 5: expected a mapping``; {} for a file that cannot be read (its
    problem is said by :class:`CheckedConfigFile`)."""
    try:
        content = yaml.safe_load(config_text(path))
    except (OSError, ValueError, yaml.YAMLError):  # ValueError: too many digits, bad bytes
        return {}
    if not isinstance(content, dict):
        return {}
    problems = {}
    for key in SECTION_FILES:
        value = content.get(key)
        if value is None or isinstance(value, dict | str):
            continue
        what = "a mapping"
        if key in CLASS_SECTIONS:
            what += f" or {class_phrase(CLASS_BASES[key])}"
        problems[key] = f"{said}: {key} {yaml_text(value)}: expected {what}"
    return problems


class FitArgumentParser(NullsChecked, LightningArgumentParser):
    """LightningCLI's parser, a config's null judged against its key's type (``NullsChecked``);
    each ``--model FILE`` (:data:`FIT_SECTIONS`) read by sanbench first (``section_read``: the
    file's path -> its mapping, unknown keys left out; :func:`section_flags_checked`) and given as
    that mapping without the keys refused (``section_dropped``: the path -> its keys), so that
    one refused value leaves out that value alone, not the file (its ``encoder`` judged still)."""

    section_read: dict[str, dict[str, Any]]
    section_dropped: dict[str, set[str]]

    def parse_args(self, args: Any = None, *rest: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        if args is None:
            return super().parse_args(args, *rest, **kwargs)
        read = getattr(self, "section_read", {})
        words, files = section_mapping_words(list(args), read, getattr(self, "section_dropped", {}))
        refused = getattr(self, "dropped_keys", {})
        later = config_later_keys(list(args))  # a --config file's keys set again after it
        self.dropped_keys = {
            path: {*refused.get(path, ()), *later.get(path, ())} for path in {*refused, *later}
        }
        try:
            return super().parse_args(words, *rest, **kwargs)
        except argparse.ArgumentError as error:  # the file named, as the user gave it
            for mapping, path in files.items():
                error.message = error.message.replace(repr(mapping), repr(path))
            raise
        finally:
            self.dropped_keys = refused


UNRECOGNIZED = re.compile(r"unrecognized arguments: (.+)")


def file_values(words: list[str], keys: list[str]) -> dict[str, tuple[str, str]]:
    """Each of ``keys`` that the last ``--config`` file of ``words`` setting it holds as a
    mapping or list (which :func:`config_typed` leaves out) -> ``(--config F: KEY, its YAML
    text)``: ``--config c.yaml: data.data_dir {a: 1}``, not the parser's ``{'a': 1}``."""
    found = {}
    for key in keys:
        path = config_setting(words, [key])
        try:
            content = yaml.safe_load(config_text(path)) if path else None
        except (OSError, ValueError, yaml.YAMLError):
            continue
        for part in key.split("."):
            content = content.get(part) if isinstance(content, dict) else None
        if isinstance(content, dict | list):
            found[key] = (f"--config {path}: {key}", yaml_text(content))
    return found


def section_mapping_words(
    words: list[str], read: dict[str, dict[str, Any]], dropped: dict[str, set[str]]
) -> tuple[list[str], dict[str, str]]:
    """``words`` with each ``--model FILE`` of :data:`FIT_SECTIONS` whose file ``read`` holds
    as the mapping read (``--model={hidden_dim: 0, encoder: bilstm}``), the keys ``dropped``
    gives for that path and those typed after it (:func:`later_keys`) left out; and each
    mapping given -> the file's path."""
    import yaml

    files: dict[str, str] = {}

    def rewrite(given: OptionWord) -> tuple[list[str], bool] | None:
        if given.option.removeprefix("--") not in FIT_SECTIONS or given.value not in read:
            return None
        content: Any = read[given.value]
        for key in {*dropped.get(given.value, ()), *later_keys(given.rest, given.option)}:
            content = without_dotted(content, key)
        mapping = yaml.safe_dump(dict(content), default_flow_style=True, width=1e9).strip()
        files[mapping] = given.value
        return [f"{given.option}={mapping}"], True

    out = rewritten_options(words, rewrite)
    return out, files


def inline_sections_checked(words: list[str], known: set[str]) -> SectionFlags:
    """Each mapping that ``words`` give a section of :data:`FIT_SECTIONS` (``--model '{encoder:
    bilstm, bogus: 2}'``) read as a section's file is (:func:`section_flags_checked`): its
    unknown keys named as a file's (``--model {encoder: bilstm, bogus: 2}: unknown key bogus``)
    and left out, the rest judged key by key. Until 2026-12-01 fit said jsonargparse's "Group
    'model' does not accept option 'bogus'", and a refused value left the whole mapping out
    (``--encoder is required`` beside its ``encoder: bilstm``)."""
    problems: list[str] = []
    unknown: dict[str, set[str]] = {}
    read: dict[str, dict[str, Any]] = {}

    def check(given: OptionWord) -> tuple[list[str], bool] | None:
        section, value = given.option.removeprefix("--"), given.value
        if section not in FIT_SECTIONS or not value.lstrip().startswith("{"):
            return None
        try:
            content = yaml.safe_load(value)
        except (yaml.YAMLError, ValueError):  # said by the parser
            return None
        if isinstance(content, dict):
            read[value], lines = section_keys_known(content, section, known)
            problems.extend(f"{given.option} {value}: {line}" for line in lines)
            unknown[value] = {line.removeprefix("unknown key ").partition(" ")[0] for line in lines}
        return None

    rewritten_options(words, check)
    return SectionFlags(words, problems, unknown, read, set())  # no file: none unread


def later_keys(words: list[str], option: str) -> set[str]:
    """The keys of ``option``'s section that ``words`` set (``--model.hidden_dim 5`` after
    ``--model m.yaml``: ``hidden_dim``; a later section's or ``--config`` file's too), whose
    value wins over the file's: the file's is not judged (a refused ``hidden_dim: 0`` in it
    said nothing the run would use)."""
    head = f"{option.removeprefix('--')}."
    return {key.removeprefix(head) for key in keys_set(words) if key.startswith(head)}


def keys_set(words: list[str]) -> set[str]:
    """The config keys that ``words`` set (:func:`typed_options`), a section's file's and a
    ``--config`` file's keys too: each ``--config`` read on its own (typed_options forgets the
    options before one)."""
    starts = [index for index, word in enumerate(words) if word.partition("=")[0] in CONFIG_OPTIONS]
    keys: set[str] = set()
    for start, end in zip([0, *starts], [*starts, len(words)], strict=True):
        keys |= set(typed_options(words[start:end], SHORT_FORMS))
    return keys


def config_later_keys(words: list[str]) -> dict[str, set[str]]:
    """Each ``--config`` file of ``words`` (its path as given) -> its keys of a value (not a
    section: :func:`config_typed`) that a later option or file sets again: the later value
    wins, as --help says, so the file's is not judged (``model: {hidden_dim: 0}`` before
    ``--model.hidden_dim 7``: the 0 was refused, named as the 7)."""
    later: dict[str, set[str]] = {}

    def read(given: OptionWord) -> tuple[list[str], bool] | None:
        if given.option in CONFIG_OPTIONS and given.value:
            held = config_typed(given.option, given.value)
            rest = given.rest if given.attached else given.rest[1:]
            # a file read again: its last. A class set again is jsonargparse's to replace, as
            # the flag --optimizer CLASS (its arguments carried where the new class takes them):
            # until 2026-12-01 --optimizer '{class_path: ...}' left the file's class out, and its
            # arguments were refused as of no class ("needs --optimizer CLASS")
            again = keys_set(rest) & set(held)
            later[given.value] = {key for key in again if not key.endswith(f".{CLASS_PATH_KEY}")}
        return None

    rewritten_options(words, read)
    return later


def overridden_flags_left_out(words: list[str]) -> list[str]:
    """``words`` without each flag of a value of :data:`FIT_SECTIONS` (``--model.hidden_dim
    -1``) that a later option, section's file or ``--config`` file sets again: the later value
    wins, as --help says, so the earlier one is not judged (its refusal was named as the
    later one's). A key typed with keys under it (a class's: ``--trainer.callbacks``) is
    kept."""

    def rewrite(given: OptionWord) -> tuple[list[str], bool] | None:
        key = SHORT_FORMS.get(given.option) or given.option.removeprefix("--").replace("-", "_")
        section, dot, name = key.partition(".")
        rest = given.rest if given.attached else given.rest[1:]
        if section not in FIT_SECTIONS or not dot or "." in name:
            return None
        if not (given.attached or given.rest) or given.value.startswith("--"):
            return None  # no value: the parser says so
        if any(word.startswith(f"--{key}.") for word in words) or key not in keys_set(rest):
            return None
        return [], True

    return rewritten_options(words, rewrite)


def section_keys_left_out(words: list[str], dropped: dict[str, set[str]]) -> set[str]:
    """The config keys (``model.hidden_dim``) left out of the sections' files that ``words``
    give (``--model m.yaml``), of ``dropped``: a file's path -> its keys left out."""
    typed = typed_options(words, SHORT_FORMS)
    return {
        f"{section}.{key}"
        for section in FIT_SECTIONS
        for key in dropped.get(typed.get(section, ("", ""))[1], ())
    }


INTEGER_REFUSED = re.compile(r"expected an integer$")


# jsonargparse's refusal of a section's file (``--model m.yaml``): the key inside it refused
FILE_KEY = re.compile(r"Unable to load config '([^']*)'.*?Parser key \"([\w.]+)\"", re.S)


def section_file_keys(error: BaseException) -> list[str]:
    """The keys ``error`` refuses, a section's file's as the key inside it
    (``model.hidden_dim`` of ``--model m.yaml``, not ``model``: the rest of the file is read)."""
    found = FILE_KEY.search(str(error))
    return [found.group(2)] if found and "." in found.group(2) else refused_keys(error)


def section_file_problem(
    problem: str, error: BaseException, typed: dict[str, tuple[str, str]]
) -> str:
    """``problem`` (``--model m.yaml: expected a positive integer``) with the key and value of
    the section's file that was refused (``--model m.yaml: hidden_dim 0: expected ...``): the
    file named, not the value in it, the value as ``typed`` holds it, as written (``ema_decay
    no``, not Python's ``False``); ``problem`` itself for any other refusal."""
    import yaml

    found = FILE_KEY.search(str(error))
    section, _, rest = found.group(2).partition(".") if found else ("", "", "")
    head = f"--{section} {found.group(1)}: " if found else ""
    if not rest or not problem.startswith(head):
        return problem
    option, text = typed_entry(typed, found.group(2)) or ("", "")
    if option == f"{head}{rest}":
        return f"{head}{rest} {text}: {problem.removeprefix(head)}"
    try:
        value: Any = yaml.safe_load(config_text(found.group(1)))
        for part in rest.split("."):
            value = value[part]
    except (OSError, ValueError, yaml.YAMLError, LookupError, TypeError):
        return f"{head}{rest}: {problem.removeprefix(head)}"
    return f"{head}{rest} {flow_text(value)}: {problem.removeprefix(head)}"


def refused_value(
    error: BaseException, typed: dict[str, tuple[str, str]], parser: LightningArgumentParser
) -> str:
    """The line of a value the parser refuses (:func:`parser_problem`); of a count, what it
    counts, in suite's words where suite has the option (``--trainer.max_steps 3.5: expected
    an integer: training steps per run (trainer.max_steps)``), else its help's first words
    (``--data.batch_size y: ...: training batch size``)."""
    problem = parser_problem(error, lambda key: f"--{key}", typed)
    problem = section_file_problem(problem, error, typed)
    keys = refused_keys(error)
    if not keys or not INTEGER_REFUSED.search(problem):
        return problem
    suites = [doc for doc in field_docs(Budget).values() if doc.endswith(f"({keys[0]})")]
    action = next((a for a in parser._actions if a.dest == keys[0]), None)
    text = " ".join(str(getattr(action, "help", None) or "").split())
    head = re.split(r" \(|\. |; ", text, maxsplit=1)[0].rstrip(".")
    counts = suites[0] if suites else head if head and head != argparse.SUPPRESS else ""
    return f"{problem}: {counts}" if counts else problem


class FitCLI(LightningCLI):
    """One fit's configuration, parsed from command-line words or a nested mapping."""

    def __init__(self, args: list[str] | dict[str, Any]) -> None:
        self.typed: dict[str, tuple[str, str]] = {}  # the options as typed (typed_options)
        self.unknown: list[str] = []  # the unknown options' lines, said before every other
        self.meant: set[str] = set()  # the options their near names name
        self.section_lines: list[str] = []  # the sections' files' problems (section_flags_checked)
        self.extra_callbacks: list[pl.Callback] = []
        self.printing = False  # --print_config given: it prints a config without --out
        if isinstance(args, dict):
            chosen = args.get(DATA_CLASS)
        else:
            args, chosen = with_data_class(empty_classes_unset(negative_values_attached(args)))
        self.data_class = data_class(chosen)
        try:
            with warnings.catch_warnings():  # args stand for sys.argv here, on purpose
                warnings.filterwarnings("ignore", message="LightningCLI's args parameter")
                super().__init__(
                    task_model,
                    self.data_class,
                    parser_class=FitArgumentParser,
                    trainer_class=FitTrainer,  # its int | float keys read "2" as 2 batches
                    save_config_callback=None,  # run_fit writes fit_config.yaml itself
                    trainer_defaults=TRAINER_DEFAULTS,
                    seed_everything_default=0,
                    parser_kwargs={
                        "prog": "sanbench fit",
                        "exit_on_error": False,
                        "description": DESCRIPTION,
                        "formatter_class": PlainHelpFormatter,
                    },
                    args=args,
                    run=False,
                    auto_configure_optimizers=False,  # TaskModule builds --optimizer's own
                    load_from_checkpoint_support=False,  # TaskModule saves its own arguments
                )
        except argparse.ArgumentError as error:
            if str(error).startswith(f"argument {FAST_DEV_RUN}:"):  # no value: refused all the same
                raise ConfigUsageError(fast_dev_run_problems(True, "")[0]) from None
            typed = self._typed(args)
            problems = missing_problems(str(error), self.parser)
            if not problems and str(error).startswith(REQUIRED):  # each in a file not read
                raise refusal([*self.unknown, *self._files_said()]) from None
            if problems and self._out_missing(typed):  # not the parser's: beside its own
                problems.append(MISSING_OUT)
            problems = problems or [refused_value(error, typed, self.parser)]
            raise ConfigUsageError(self._with_unknown(problems)) from None
        except FilesError:  # paths' problems alone (parse_arguments)
            raise
        except InputError as error:  # a config file's unknown keys, one line each
            raise ConfigUsageError(self._with_unknown(str(error).splitlines())) from None

    def _out_missing(self, typed: dict[str, tuple[str, str]]) -> bool:
        """No ``--out`` among the options ``typed``, and one is needed: a run's, not
        ``--print_config``'s (README prints a config without one)."""
        return "out" not in typed and not self.printing

    def _files_said(self) -> list[str]:
        """The problems of the sections' files (flags' and a ``--config`` file's), each read
        apart and left out of the parse, said beside every other problem."""
        return [*self.section_lines, *(getattr(self.parser, "section_problems", None) or {})]

    def _with_unknown(self, problems: list[str]) -> str:
        """The refusal's lines: the unknown options' first (each with its near name), then the
        other ``problems``, but for one saying that an unknown option's near name is missing."""
        files = [line for line in self._files_said() if line not in problems]
        rest = not_meant([line for line in problems if line not in self.unknown], self.meant)
        return "\n".join([*self.unknown, *files, *rest])

    @property
    def overwrite(self) -> bool:
        """``--overwrite`` was given (a flag of the command, not a config value)."""
        return self.parser.command_flags.overwrite

    def setup_parser(
        self, add_subcommands: bool, main_kwargs: dict[str, Any], subparser_kwargs: dict[str, Any]
    ) -> None:
        """A copy of the parser built once per process for this class and datamodule class
        (:data:`BUILT_PARSERS`), its command flags unset."""
        key = (type(self), self.data_class)
        built = BUILT_PARSERS.get(key)
        if built is None:
            super().setup_parser(add_subcommands, main_kwargs, subparser_kwargs)
            built = BUILT_PARSERS.setdefault(key, copy.deepcopy(self.parser))
        self.parser = copy.deepcopy(built)

    def init_parser(self, **kwargs: Any) -> LightningArgumentParser:
        """LightningCLI's parser, whose ``--config`` files have their keys checked first."""
        parser = self.parser_class(**kwargs)
        parser.add_argument("-c", "--config", action=FitConfigFile, help=CONFIG_HELP)
        return parser

    def parse_arguments(self, parser: LightningArgumentParser, args: Any) -> None:
        """Refuse unknown keys (a mapping's) with the nearest valid one, all at once; an unknown
        option (words) is named so beside every other problem, the rest judged without it; read
        the task and encoder, whose config is the parser's defaults; then LightningCLI parses,
        checking types and values."""
        if isinstance(args, dict):  # an unknown key is left out, the rest judged beside it
            known = known_keys(parser)
            self.unknown = unknown_key_lines(args, known, self._typed(args))
            for key in [key for key in flat_keys(args) if not accepted(key, known)]:
                args = dict(without_dotted(args, key))
        else:  # an unknown option is left out, the rest judged in the same refusal
            self.unknown, args, self.meant = without_unknown_options(args, parser)
            args, broken = broken_configs_left_out(args, parser.prog)  # said beside the rest
            self.unknown = [*broken, *self.unknown]
            if self.unknown and set(HELP_WORDS) & set(args):
                raise ConfigUsageError("\n".join(self.unknown))
            args, self.section_lines, parser.section_unknown, parser.section_read, unread = (
                section_flags_checked(args, SECTION_FILES, known_keys(parser))
            )
            unread_sections(parser, unread)  # its file holds no mapping: what it may hold
            inline = inline_sections_checked(args, known_keys(parser))  # --model '{...}'
            self.section_lines += inline.problems
            parser.section_unknown |= inline.unknown
            parser.section_read |= inline.read
            args = overridden_flags_left_out(args)
            parser.section_problems = {}  # a --config file's sections' (CheckedConfigFile)
        task, encoder = (
            task_and_encoder(args) if isinstance(args, dict) else self._chosen(parser, args)
        )
        if not issubclass(self.data_class, BenchmarkDataModule):
            task = None  # a user's datamodule: its own arguments, the shared defaults
        typed = self._typed(args)
        option = typed.get("data.task", ("--data.task",))[0]
        task_named = task_option_problems(option, [task] if task is not None else [])
        named = encoder_choice_problems(
            typed.get("model.encoder", ("--model.encoder",))[0], encoder
        )
        helping = isinstance(args, list) and bool(set(HELP_WORDS) & set(args))  # the name alone
        # an unknown name: the values judged as of its nearest one, in the same refusal
        task_in = task_stand_in(task) if task_named and task and not helping else None
        stand_in = encoder_stand_in(encoder) if named and not helping else None
        if (task_named and task_in is None) or (named and stand_in is None):
            raise ConfigUsageError("\n".join(task_named + named))
        task, encoder = task_in or task, stand_in or encoder
        if task is not None:
            parser.set_defaults(task_defaults(task, encoder))
            args = _task_recorded(args, task)
        flags = print_config_flags(args) if isinstance(args, list) else None
        self.printing = flags is not None
        if flags is not None:  # it prints only a config that would run, judged as a run's
            problems = print_config_problems(flags)
            if problems:
                raise ConfigUsageError("\n".join(problems))
            args = without_printing(args)
        refused, args = self._parse_the_rest(parser, args)
        self.config = home_paths(self.config)
        try:
            out_taken(parser, self.config)  # the kernel's path; a moved folder's config copy
        except UsageError as error:  # said beside the values' problems
            refused.insert(0, str(error))
        current_option_names(self.config)
        record_run_name(self.config)
        left_out = set().union(*parser.dropped_keys.values())  # a config file's refused keys
        if isinstance(args, list):  # a section's file's (--model m.yaml: hidden_dim 0)
            left_out |= section_keys_left_out(args, parser.section_dropped)
        self.typed = {
            key: spelled
            for key, spelled in self._typed(args).items()
            if not any(key == out or key.startswith(f"{out}.") for out in left_out)
        }
        if task_in is not None:  # the values judged as of its nearest name, said first
            self.config["data.task"] = task_in
        if stand_in is not None:
            self.config["model.encoder"] = stand_in
        seed_option = self.typed.get("seed_everything", ("--seed",))[0]
        problems = self.unknown + self._files_said() + task_named + named + refused
        problems += optimizer_problems(self.config, parser.get_defaults(), self.typed)
        problems += seed_problems(self.config["seed_everything"], seed_option)  # seeded next
        if problems:  # with every other value judged before the data is read, one line each
            try:
                self.check_values()
            except ConfigUsageError as error:
                problems += [line for line in str(error).splitlines() if line not in problems]
            if isinstance(args, list):  # fit's words (a suite's run names its own folders)
                problems += self._folder_problems() + self._said_beside(others=True)
            problems = said_as_written(problems, self.typed, SHORT_FORMS)  # a file's as written
            if all(isinstance(line, FilesProblem) for line in problems):  # paths' alone
                raise FilesError("\n".join(problems))  # no pointer to the help (cli._status)
            raise ConfigUsageError("\n".join(problems))
        if flags is not None:
            self.check_values()  # no number printed that the run would refuse
            print(stated_config(parser, absolute_paths(self.config), flags), end="")
            raise SystemExit(0)

    def _parse_the_rest(self, parser: LightningArgumentParser, args: Any) -> tuple[list[str], Any]:
        """LightningCLI's parse of ``args``; of words, each value the parser refuses is named
        and its option left out, and the rest parsed again (the next refusal, then the values'
        checks, are judged on it): one line per problem, not the first alone. A refusal of a
        key no word sets (a ``--config`` file's) ends it. Returns the refusals and the words
        (or mapping) parsed."""
        refused: list[str] = []
        misspelled: set[str] = set()  # the class keys of which an argument was refused
        self.refused_keys: set[str] = set()  # not said missing once left out (named already)
        parser.dropped_keys = {}  # a config file's path -> its keys refused (CheckedConfigFile)
        unknown = getattr(parser, "section_unknown", {})  # its files' (section_flags_checked)
        parser.section_dropped = {path: set(keys) for path, keys in unknown.items()}
        while True:
            try:
                super().parse_arguments(parser, args)
                return refused, args
            except argparse.ArgumentError as error:
                extra = UNRECOGNIZED.fullmatch(" ".join(str(error).split()))
                left = (
                    without_extra_words(args, extra[1])
                    if extra and isinstance(args, list)
                    else None
                )
                if extra and left is not None:  # judged without them, named beside the rest
                    refused += [no_option_takes(word) for word in extra[1].split(" ")]
                    args = left
                    continue
                keys = section_file_keys(error)
                rest, progress = self._without(parser, args, keys)
                if not progress and not refused:
                    raise  # the one problem: said as before (FitCLI.__init__)
                typed = self._typed(args)
                if isinstance(args, list):  # a file's mapping or list, as the file writes it
                    typed = {**file_values(args, keys), **typed}
                if not (keys and keys[0] in misspelled and REQUIRED in str(error)):
                    missing = missing_problems(str(error), parser, self.refused_keys)
                    if missing and isinstance(args, list) and self._out_missing(typed):
                        missing.append(MISSING_OUT)  # not the parser's: named beside its own
                    if REQUIRED in str(error) and not missing and not keys:
                        raise ConfigUsageError("\n".join(refused)) from None
                    refused += missing or [refused_value(error, typed, parser)]
                self.refused_keys.update(keys)
                if len(keys) > 1:  # an argument of a class: its name was said (its nearest)
                    misspelled.add(keys[0].rpartition(".")[0])
                if not progress:
                    raise ConfigUsageError("\n".join(refused)) from None
                args = rest

    @classmethod
    def _without(
        cls, parser: LightningArgumentParser, args: Any, keys: list[str]
    ) -> tuple[Any, bool]:
        """``args`` without the refused ``keys``: a flag's words or a mapping's key left out,
        and the keys left out of the ``--config`` file that sets them too (:meth:`_dropped`):
        every source of a refused key at once, so that the next parse does not refuse it again
        (a file's misspelt ``optimizer`` class beside a flag ``--optimizer.lr``); and whether
        anything was left out (the next parse judges the rest)."""
        words, rest = isinstance(args, list), args
        for key in keys:
            given = typed_options(rest, SHORT_FORMS).get(key) if words else None
            if given and given[1].endswith(SECTION_FILE_SUFFIXES):  # the section's file's value
                rest = without_section_files(rest, {key})  # its flags judged still (--encoder)
            else:
                rest = without_key(rest, key, SHORT_FORMS) if words else without_dotted(rest, key)
        in_file = words and cls._left_out_of_file(parser, args, keys)
        if in_file and rest == args:
            return rest, True  # a key of --model m.yaml: the rest of the file judged still
        typed = typed_options(args, SHORT_FORMS) if words else {}
        in_config = bool(keys) and all(  # a --config file's value: left out of that alone
            typed.get(key, ("",))[0].partition(" ")[0] in CONFIG_OPTIONS for key in keys
        )
        if words and rest == args and not in_config:  # a section's file's (--optimizer o.yaml)
            rest = without_section_files(rest, {key.partition(".")[0] for key in keys})
        dropped = words and cls._dropped(parser, args, keys)
        return rest, bool(rest != args or dropped)

    @staticmethod
    def _left_out_of_file(
        parser: LightningArgumentParser, words: list[str], keys: list[str]
    ) -> bool:
        """Leave ``keys`` out of the section's file of ``words`` that holds them (``--model
        m.yaml``'s ``hidden_dim``, given by :class:`FitArgumentParser`), whether its value or a
        later flag's was refused: the next parse judges neither; False when none holds them or
        they were left out already."""
        typed = typed_options(words, SHORT_FORMS)
        section, _, rest = keys[0].partition(".") if keys else ("", "", "")
        path = typed.get(section, ("", ""))[1]
        held = flat_keys(getattr(parser, "section_read", {}).get(path) or {})
        holds = bool(rest) and any(key == rest or key.startswith(f"{rest}.") for key in held)
        if section not in FIT_SECTIONS or not holds:
            return False
        dropped = parser.section_dropped.setdefault(path, set())
        if rest in dropped:
            return False
        dropped.add(rest)
        return True

    @staticmethod
    def _dropped(parser: LightningArgumentParser, words: list[str], keys: list[str]) -> bool:
        """Leave ``keys`` out of the ``--config`` file of ``words`` that set them (its other
        values are judged on the next parse); False when no file sets them or they were left
        out already."""
        path = config_setting(words, keys)
        dropped = parser.dropped_keys.setdefault(path, set()) if path else set()
        if path is None or set(keys) <= dropped:
            return False
        dropped.update(keys)
        return True

    @staticmethod
    def _typed(args: list[str] | dict[str, Any]) -> dict[str, tuple[str, str]]:
        """Each fit key the options set, as typed: of ``sanbench fit``'s words, or of the
        command whose run this config is (``suite``, ``tune``: their words or config file)."""
        if isinstance(args, list):
            return typed_options(args, SHORT_FORMS)
        given = set(flat_keys(args))  # the keys of the mapping parsed (a refused one left out)
        return {key: typed for key, typed in fit_typed(typed_now()).items() if key in given}

    @classmethod
    def _chosen(
        cls, parser: LightningArgumentParser, words: list[str]
    ) -> tuple[str | None, str | None]:
        """The task and encoder that ``words`` choose, ``--config`` files included, as the real
        parser reads them before any task's defaults are set (its ``--help`` and
        ``--print_config`` left out; building a second parser for this took about 2 s a fit).
        A value the parser refuses is left out and the rest read again (:meth:`_without`), as
        the run's parse does: the task's defaults hold beside a refused ``--model.dropout``.
        (None, None) when they cannot be read (e.g. no encoder): the real parser then says
        what is missing, or prints the help without a task's values."""
        given, words = given_task(words), without_printing(words)
        parser.dropped_keys = {}  # a config file's keys refused, left out of the next read
        unknown = getattr(parser, "section_unknown", {})  # its files' (section_flags_checked)
        parser.section_dropped = {path: set(keys) for path, keys in unknown.items()}
        try:
            while True:
                try:
                    config = parser.parse_args(words)
                    break
                except argparse.ArgumentError as error:
                    extra = UNRECOGNIZED.fullmatch(" ".join(str(error).split()))
                    left = without_extra_words(words, extra[1]) if extra else None
                    if left is not None:  # said by the run's parse
                        words = left
                        continue
                    words, progress = cls._without(parser, words, section_file_keys(error))
                    if not progress:
                        return given, None
                except InputError:
                    return given, None
        finally:
            parser.dropped_keys = {}
        return given or config.get("data.task"), config["model.encoder"]

    def add_arguments_to_parser(self, parser: LightningArgumentParser) -> None:
        for action in parser._actions:  # argparse keeps no public list of its actions
            if FAST_DEV_RUN in action.option_strings:  # refused (fast_dev_run_problems): no help
                action.help = argparse.SUPPRESS
        parser.add_class_arguments(RunOptions, "run")
        add_optimizer_groups(parser)
        parser.add_argument("--out", type=Path | None, default=None, help="the run folder")
        parser.add_argument(
            f"--{DATA_CLASS}",
            type=str | None,
            default=None,
            help="a LightningDataModule class of yours (module.Class) instead of the benchmarks' "
            "(--data CLASS; docs/data.md)",
        )
        parameters = inspect.signature(self.data_class).parameters
        if "seed" in parameters:
            parser.link_arguments("seed_everything", "data.seed")
        parser.link_arguments("out", "trainer.default_root_dir")
        parser.link_arguments("data", "model.data", apply_on="instantiate")
        for option, key in SHORT_FORMS.items():
            if not key.startswith("data.") or key.removeprefix("data.") in parameters:
                add_alias(parser, option, key, f"--{key}")
        parser.aliases = parser.aliases | {"--overwrite"}  # an option, not a key
        parser.command_flags = CommandFlags()  # copied with the parser, as its action's target
        parser.add_argument(
            "--overwrite",
            action=functools.partial(SetAttribute, target=parser.command_flags, name="overwrite"),
            nargs=0,
            help="delete an --out folder holding another run (only a run folder sanbench "
            "made, never a folder of yours)",
        )

    def instantiate_classes(self) -> None:
        """Deferred to :meth:`build` (``run_fit`` calls it after :meth:`check`)."""

    def build(self, callbacks: list[pl.Callback] | None = None) -> None:
        """Datamodule (its data read), model and trainer; ``callbacks`` join the trainer's."""
        self.extra_callbacks = list(callbacks or [])
        check_after_validation(self.config["trainer"].get("callbacks"))
        try:
            super().instantiate_classes()
        except MisconfigurationException as error:  # a trainer value Lightning refuses
            raise ConfigUsageError(str(error)) from None
        except DataFormatError as error:  # the files' bad lines; the vectors' led by its option
            raise InputError("\n".join(self._read_refusal(error))) from error
        except Exception as error:  # a user's datamodule raising in __init__: their error
            arguments = builtin_value(self.config["data"]) or {}
            users = users_init_error(self.data_class, arguments, error)
            if users is None:
                raise
            raise users from error
        limit = self.trainer.limit_train_batches  # overfit_batches', when that is set
        key = train_share_key(builtin_value(self.config["trainer"]))
        if isinstance(self.datamodule, BenchmarkDataModule) and (
            problem := empty_share_problem(
                limit, self.datamodule, self.trainer.world_size, key, self.typed
            )
        ):
            raise ConfigUsageError(problem)
        if isinstance(self.datamodule, BenchmarkDataModule):
            trainer = builtin_value(self.config["trainer"])
            problems = empty_eval_share_problems(trainer, self.datamodule, self.typed)
            late = interval_problem(trainer, self.datamodule, self.trainer.world_size, self.typed)
            if problems or late:
                raise ConfigUsageError("\n".join([*problems, *([late] if late else [])]))

    def instantiate_trainer(self, **kwargs: Any) -> pl.Trainer:
        trainer = self.config_init["trainer"]
        extra = trainer_arguments(
            RunOptions(**{k: builtin_value(v) for k, v in self.config["run"].items()}),
            self.out_dir,
            self.datamodule.task.kind,
            trainer["enable_progress_bar"],
            trainer["logger"],
            [*given_callbacks(trainer["callbacks"]), *self.extra_callbacks],
        )
        return super().instantiate_trainer(**extra, **kwargs)

    @property
    def out_dir(self) -> Path:
        if self.config["out"] is None:  # read before the other values are checked (fit's start)
            raise ConfigUsageError(MISSING_OUT)
        return Path(self.config["out"])

    def check_values(self) -> None:
        """The values that need no file, all named at once (``suite``, ``tune`` and
        ``reproduce`` check every run's resolved config so before their first run): a budget
        that trains something, trainer counts, the optimizer and scheduler built on a dummy
        parameter, the encoder built on the meta device, the data loader's workers."""
        trainer = self.config["trainer"]
        problems = budget_problems(
            trainer,
            lambda key, value: (
                typed_entry(self.typed, f"trainer.{key}") or (f"--trainer.{key}", flow_text(value))
            ),
        )
        problems += trainer_value_problems(trainer, self.typed)
        problems += early_stopping_problems(self.config)
        problems += non_finite_problems(self.config, self.typed)
        problems += class_init_problems(
            self.config.get("optimizer"), self.config["lr_scheduler"], self.typed
        )
        width = self.config["data"].get("embedding_dim") or RANDOM_VECTORS_DIM
        problems += encoder_problems(self.config["model"], width, self.typed)
        workers = self.config["data"].get("num_workers")
        if isinstance(workers, int) and workers < 0:
            problems.append(f"--data.num_workers {workers}: expected 0 (none) or more")
        share = self.config["data"].get("dev_fraction")
        if isinstance(share, int | float) and not 0 < share < 1:
            option, text = self.typed.get("data.dev_fraction", ("--data.dev_fraction", share))
            problems.append(f"{option} {text}: expected a share of train in (0, 1)")
        for key in ("batch_size", "eval_batch_size"):
            value = self.config["data"].get(key)
            option, text = self.typed.get(f"data.{key}", (f"--data.{key}", str(value)))
            if type(value) is int and value < 1:
                problems.append(f"{option} {text}: expected a positive integer")
            problems += batch_size_problems(option, value, text)
        problems += not_decimal_problems(self.typed, self._value)
        if issubclass(self.data_class, BenchmarkDataModule):  # a user's checks its own
            problems += data_value_problems(builtin_value(self.config["data"]), self.typed)
            monitored = [*logged_metrics(get_task(self.config["data"]["task"]).kind), TRAIN_SECONDS]
            problems += monitor_problems(self.config, monitored, self.typed)
        if problems:
            raise ConfigUsageError("\n".join(problems))

    def _value(self, key: str) -> Any:
        """The parsed value of the dotted ``key`` as an option spells it: ``optimizer.lr`` is
        the config's ``optimizer.init_args.lr``."""
        section, _, rest = key.partition(".")
        if section in ("optimizer", "lr_scheduler") and not rest.startswith(CLASS_KEYS):
            key = f"{section}.init_args.{rest}"
        return parsed_value(self.config, key)

    def check(self) -> None:
        """What must hold before any data is read (jsonargparse checked the types): a budget
        that trains something (every such value named), a positive batch size, folders and
        files that exist, a run folder, the packages of its loggers; every problem of these
        in one refusal."""
        try:
            self.check_values()
            problems = []
        except ConfigUsageError as error:
            problems = str(error).splitlines()
        trainer = self.config["trainer"]
        data = self.config["data"]
        if not issubclass(self.data_class, BenchmarkDataModule):  # a user's checks its own
            data = {}
        problems += self._missing_folders()
        files = self._path_problems()
        beside = self._said_beside(others=bool(problems or files))
        # --out's and the data's folder's beside the others, and beside each other; --out's
        # alone is said by the run folder's own check, the data folder's here (one line)
        if problems or files or len(beside) > len(self._out_problems()):
            lines = "\n".join(said_as_written(problems + files + beside, self.typed, SHORT_FORMS))
            # the help pointed to for a problem of the words only, not of the files (cli._status)
            raise ConfigUsageError(lines) if problems else InputError(lines)
        if data and (
            share := unread_share_problem(
                builtin_value(trainer), BenchmarkDataModule(**builtin_value(data)), self.typed
            )
        ):
            raise ConfigUsageError(share)  # before the vectors are read, the lines tokenised
        problems = missing_logger_packages(trainer["logger"])
        if problems:
            raise ConfigError("\n".join(problems))

    def _read_refusal(self, error: DataFormatError) -> list[str]:
        """The lines of ``error``, the data's read (:meth:`build`), a bad vectors line led by
        the option or key that gave the file, as written (:func:`read_refusal`); a user's
        datamodule's (``--data CLASS``) as it said them."""
        from harness.training.read_refusal import read_refusal

        data = self.config["data"]
        ours = issubclass(self.data_class, BenchmarkDataModule)
        vectors = data.get("embeddings") if ours else None
        return read_refusal(error, vectors, self.typed, SHORT_FORMS)

    def _folder_problems(self) -> list[str]:
        """What is wrong with the folders and files the options name, every problem at once:
        the required ones not given (:meth:`_missing_folders`), a ``--data-dir`` or
        ``--embeddings`` that is not there (of the benchmarks' datamodule: a user's checks its
        own); said beside any other problem, none waiting for another's fix."""
        return self._missing_folders() + self._path_problems()

    def _path_problems(self) -> list[str]:
        """A ``--data-dir`` or ``--embeddings`` that is not there (of the benchmarks'
        datamodule: a user's checks its own)."""
        problems: list[str] = []
        data = self.config["data"]
        if not issubclass(self.data_class, BenchmarkDataModule):
            return problems
        if data.get("data_dir") is not None:
            problems += path_problems("--data-dir", Path(data["data_dir"]), folder=True)
        if data.get("embeddings") is not None:
            problems += path_problems("--embeddings", Path(data["embeddings"]), folder=False)
        return problems

    def _said_beside(self, others: bool = False) -> list[str]:
        """What is checked alone once the values are right, said beside their problems too:
        ``--out`` (:meth:`_out_problems`) and a ``--data-dir`` holding none of the task's files
        (``--data-dir glove`` beside ``--trainer.max_steps -5``, or alone: one labelled line),
        and the vectors file's bad lines beside it or ``others`` (a refused value)."""
        from datamodules.readers.layouts import data_dir_problem
        from datamodules.vectors import beside_folder_problems

        problems = self._out_problems()
        data = self.config["data"]
        if not issubclass(self.data_class, BenchmarkDataModule) or data.get("data_dir") is None:
            return problems
        try:
            task = get_task(data["task"])
        except (LookupError, ValueError, OSError):  # a misspelt name or task file: said itself
            return problems
        problem = data_dir_problem([task], Path(data["data_dir"]), data.get("layout"))
        folder = beside_folder_problems(
            [problem] if problem else [], data.get("embeddings"), others
        )
        return problems + [FilesProblem(line) for line in folder]

    def _out_problems(self) -> list[str]:
        """What stops any run folder from being at ``--out`` (a file, a folder that cannot be
        made, another command's: :func:`check_out_path`; a user's: ``foreign_folder_problem``),
        said beside the values' problems
        (``--out /proc/x`` beside ``--trainer.max_steps 0``, not once that is fixed)."""
        from harness.training.run_folder import check_out_path, foreign_folder_problem

        if self.config["out"] is None:
            return []
        out = Path(self.config["out"])
        try:
            check_out_path(out)
        except InputError as error:  # the filesystem's problems: no pointer to the help alone
            return [FilesProblem(line) for line in str(error).splitlines()]
        problem = foreign_folder_problem(out, self.overwrite)  # a user's folder (--out userdir)
        return [FilesProblem(problem)] if problem else []

    def _missing_folders(self) -> list[str]:
        """``--out is required: ...`` and ``--data-dir is required: ...`` where not given (a
        task file names its files; a user's datamodule checks its own; a refused value is
        named as such); neither of ``--print_config``, which prints a file to fill in (until
        2026-12-01 it named a left-out ``--data-dir`` beside a refused value)."""
        from datamodules.task_file import is_task_file

        refused = getattr(self, "refused_keys", set())  # a given value refused: named already
        unset_out = self.config["out"] is None and "out" not in refused and not self.printing
        problems = [MISSING_OUT] if unset_out else []
        data = self.config["data"]
        benchmark = issubclass(self.data_class, BenchmarkDataModule)
        unread = "data" in getattr(self.parser, "refused_in_files", ())  # may have held it
        unset = benchmark and data["data_dir"] is None and "data.data_dir" not in refused
        unset = unset and not unread and not self.printing
        if unset and not is_task_file(data["task"]):
            problems.append(f"--data-dir is required: the folder of task {data['task']}'s files")
        return problems

    def config_yaml(self) -> str:
        """The complete resolved config, as ``--print_config`` prints it (``--config`` runs it),
        its folders and files by absolute paths: the recorded ``fit_config.yaml`` runs from any
        folder (relative ones were read against the folder it ran from)."""
        return stated_config(self.parser, absolute_paths(self.config))
