"""One parser library for every ``sanbench`` command: jsonargparse, built from option dataclasses.

Every command gets ``--config FILE`` and ``--print_config``, and its flags override the file.
An option has one key (``data_dir``) and is spelled with dashes or underscores on the command
line (``--data-dir``, ``--data_dir``). A key that no option has, in a flag or in a config file,
is refused before parsing with the nearest valid key: the check compares the words and the
file's keys with the parser's own keys (:func:`unknown_keys`), never a library's message.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import contextvars
import dataclasses
import functools
import importlib
import inspect
import json
import math
import os
import re
import stat
import sys
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar

import yaml
from jsonargparse import ActionConfigFile, ActionYesNo, ArgumentParser, Namespace
from jsonargparse._typehints import ActionTypeHint  # no public name; the class options subclass it
from jsonargparse.typing import register_type

from datamodules.errors import did_you_mean, nearest
from datamodules.paths import expanded
from harness.errors import (
    FilesError,
    FilesProblem,
    InputError,
    UsageError,
    error_lines,
    refusal,
)
from harness.outdir import made_by, made_by_sanbench
from reports.contracts.fit_folder import FIT_SECTIONS

__all__ = [
    "CommandParser",
    "build",
    "choice_problems",
    "did_you_mean",
    "encoder_choice_problems",
    "names",
]


def home_path(value: str | os.PathLike[str]) -> Path:
    """A path option's value as a shell expands it unquoted at a word's start: ``~`` and
    ``~/x`` the home folder (``--out=~/x``, a config file's ``out: ~/x``, which reach sanbench
    as typed), as the data reader reads vectors; ``Path(value)`` else."""
    if not isinstance(value, str | os.PathLike):
        raise TypeError(f"expected a path, got {type(value).__name__}")
    return expanded(value)


# every command's ``Path`` option (fit's, Lightning's own) is read by :func:`home_path`
register_type(Path, serializer=str, deserializer=home_path)

PARSER_SPELLINGS = ("--config", "-c", "--print_config", "--help", "-h")  # besides the keys
T = TypeVar("T")


def message_line(error: BaseException) -> str:
    """``error``'s message on one line (jsonargparse indents a value's reasons on several)."""
    return " ".join(str(error).split())


# what a value of each of jsonargparse's checked types (and the built-ins) must be, in words
EXPECTED = {
    "PositiveInt": "a positive integer",
    "NonNegativeInt": "a non-negative integer",
    "PositiveFloat": "a positive number",
    "NonNegativeFloat": "a non-negative number",
    "ClosedUnitInterval": "a number in [0, 1]",
    "OpenUnitInterval": "a number in (0, 1)",
    "int": "an integer",
    "float": "a number",
    "bool": "true or false",
    "str": "a string",
    "Path": "a path",
    "dict": "a mapping",
    "list": "a list",
}
PARSER_KEY = re.compile(r'^Parser key "([^"]+)": ')
TYPE_NAME = re.compile(
    r"typing\.Literal\[(.*?)\](?= |,|\.|$)|Not of type (\w+)|<class '(?:[\w.]+\.)?(\w+)'>"
)
# the value as given (jsonargparse's last line), else as converted (1e30 as "Got value: 1e+30")
GIVEN_VALUE = re.compile(
    r"^.*Given value: (.*)$|^.*?Got value: (.*?)(?: - |$)|: (\S+) does not conform to restriction"
)
GIVEN_ARGUMENT = re.compile(r"Given value: (.*?)(?: - |$)|Got value: (.*?)(?: - |$)")


CLASS_PATH_PROBLEM = re.compile(r"Problem with given class_path '([^']+)': (.*?)(?: - |$)")
NOT_ACCEPTED = re.compile(r"Option '(\w+)' is not accepted")
NO_ATTRIBUTE = re.compile(r"module '([\w.]+)' has no attribute '(\w+)'")


# jsonargparse's words for a value of a subclass type that is no such class
CLASS_WORDS = ("Expected a dot import path string", "does not correspond to a subclass of")
# a class of each base sanbench users pick by class path, to show the form
CLASS_EXAMPLES = {
    "Optimizer": "torch.optim.SGD",
    "LRScheduler": "torch.optim.lr_scheduler.StepLR",
    "ReduceLROnPlateau": "lightning.pytorch.cli.ReduceLROnPlateau",
    "Logger": "CSVLogger",
    "Callback": "EarlyStopping",
    "Profiler": "SimpleProfiler",
}

# where an argument given without its class belongs instead (``--optimizer.lr`` alone)
BASE_ARGUMENT_HINTS = {("Optimizer", "lr"): "; the task's own optimizer's rate is --model.lr"}


def class_phrase(base: str) -> str:
    """What a value of a subclass type of ``base`` is, in words, with an example:
    ``an Optimizer class by name or import path (e.g. torch.optim.SGD)``."""
    spelled = base[:2].isupper()  # an acronym's first letter: LRScheduler is "an L..."
    article = "an" if base[0] in ("AEFHILMNORSX" if spelled else "AEIOU") else "a"
    example = f" (e.g. {CLASS_EXAMPLES[base]})" if base in CLASS_EXAMPLES else ""
    return f"{article} {base} class by name or import path{example}"


def _expected(text: str) -> tuple[list[str], list[str]]:
    """What the type names of a jsonargparse message stand for (``None`` left out), in words,
    and the choices of its ``Literal`` types; ([], []) when a type has no words here."""
    subtypes = text.partition("Subtypes: [")[2].partition("] Errors:")[0] or text
    classes = any(words in text for words in CLASS_WORDS)  # a subclass type (Logger, ...)
    phrases: list[str] = []
    choices: list[str] = []
    for literal, checked, named in TYPE_NAME.findall(subtypes):
        name = checked or named
        if literal:
            choices += [str(choice) for choice in ast.literal_eval(f"[{literal}]")]
        elif name in EXPECTED and EXPECTED[name] not in phrases:
            phrases.append(EXPECTED[name])
        elif name != "NoneType" and name not in EXPECTED and classes:
            phrases.append(class_phrase(name))
        elif name != "NoneType" and name not in EXPECTED:
            return [], []
    choices = list(dict.fromkeys(choices))
    return ([f"one of {', '.join(choices)}"] if choices else []) + phrases, choices


def _class_path_problem(key: str, text: str, typed: Mapping[str, tuple[str, str]]) -> str | None:
    """``--optimizer torch.optim.SDG: no class SDG in torch.optim (did you mean SGD?)`` or
    ``--optimizer.lrr: torch.optim.SGD takes no argument lrr``, from jsonargparse's message
    about the class-path value of the parser key ``key``; None for any other message. The class
    and each argument are named as ``typed`` (:func:`typed_options`) holds them, a flag's or a
    config file's (``--config c.yaml: optimizer.init_args.lrr``), else as flags."""
    found = CLASS_PATH_PROBLEM.search(text)
    if not found:
        return None
    class_path, reason = found.groups()
    option = f"--{key}"
    named = typed.get(f"{key}.class_path") or typed.get(key) or (option, class_path)

    def argument_option(name: str) -> str:
        spellings = (f"{key}.init_args.{name}", f"{key}.{name}")
        return next((typed[k][0] for k in spellings if k in typed), f"{option}.{name}")

    if unknown := NOT_ACCEPTED.search(reason):
        name = unknown.group(1)
        base = class_path.rpartition(".")[2]
        if base in CLASS_EXAMPLES:  # an argument given, no class: jsonargparse's base class
            elsewhere = BASE_ARGUMENT_HINTS.get((base, name), "")
            example = CLASS_EXAMPLES[base]
            return f"{argument_option(name)} needs {option} CLASS (e.g. {example}){elsewhere}"
        hint = did_you_mean(name, _arguments(class_path))
        return f"{argument_option(name)}: {class_path} takes no argument {name}{hint}"
    if reason.startswith(ARGUMENTS_REQUIRED):  # "--lr_scheduler.step_size is required: ..."
        names = reason.removeprefix(ARGUMENTS_REQUIRED).split(", ")
        source, colon, shown = named[0].rpartition(": ")
        section = shown.removesuffix("class_path").removesuffix(".")  # a file's: its key's
        in_file = f"{source}: {section}{'.' if section else ''}init_args." if colon else None
        return "\n".join(
            f"{argument_option(name) if in_file is None else in_file + name} is required: "
            f"{_argument_words(class_path, name)} (an argument of {class_path})"
            for name in names
        )
    if missing := NO_ATTRIBUTE.search(reason):
        module, name = missing.groups()
        hint = did_you_mean(name, dir(importlib.import_module(module)))
        return f"{named[0]} {class_path}: no class {name} in {module}{hint}"
    if argument := PARSER_KEY.match(f"{reason} "):  # "--optimizer.lr abc: expected a number"
        inner = text[found.start(2) :].rpartition(" Given value type: ")[0]  # not the class's
        given = GIVEN_ARGUMENT.search(inner)
        given = next((part for part in given.groups() if part), "") if given else ""
        phrases, _ = _expected(inner.replace(", <class 'torch.Tensor'>", ""))  # lr: float|Tensor
        expected = " or ".join(phrases) or "another value"
        spelled = argument_option(argument.group(1))
        if _non_finite(given):  # -inf: a number, refused as non_finite_problems does
            return f"{spelled} {given}: expected a finite number"
        return f"{spelled} {given}: expected {expected} (an argument of {class_path})"
    return f"{named[0]} {class_path}: {reason}"


SECTION_FILE_SUFFIXES = (".yaml", ".yml", ".json")  # ``--optimizer sgd.yaml``: a file, no class


# jsonargparse's (argparse's) words for a class's arguments left out
ARGUMENTS_REQUIRED = "the following arguments are required: "
# an argument's annotation that takes a list (``milestones: Iterable[int]``)
LIST_ANNOTATION = re.compile(r"^(?:typing\.)?(?:Iterable|Sequence|list|tuple)\[")


def _argument_words(class_path: str, name: str) -> str:
    """What the argument ``name`` of the class ``class_path`` takes, in words, from its
    annotation (``step_size: int``: ``an integer``); ``a value`` when it says nothing plain."""
    module, _, class_name = class_path.rpartition(".")
    try:
        found = getattr(importlib.import_module(module), class_name)
        annotation = inspect.signature(found).parameters[name].annotation
    except (ImportError, AttributeError, TypeError, ValueError, KeyError):
        return "a value"
    spelled = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    if LIST_ANNOTATION.match(spelled):
        return EXPECTED["list"]
    return EXPECTED.get(spelled, "a value")


def _non_finite(text: str) -> bool:
    """Whether ``text`` is a number that is infinite or NaN (``-inf``, ``1e999``)."""
    try:
        return not math.isfinite(float(text))
    except ValueError:
        return False


def _arguments(class_path: str) -> list[str]:
    """The keyword arguments of the class ``class_path`` names ([] when it cannot be read)."""
    module, _, name = class_path.rpartition(".")
    try:
        found = getattr(importlib.import_module(module), name)
        return list(inspect.signature(found).parameters)
    except (ImportError, AttributeError, TypeError, ValueError):
        return []


def rest_as_written(rest: str, given: str, option: str, text: str) -> str:
    """``rest`` of a line led by ``given`` (a flag and its value as a check says them,
    ``--data-dir empty``) with that flag and path named in it again as the file writes them:
    ``option``'s key and ``text`` (``no files in ../empty ... Point data_dir at ...``, not
    ``in empty ... Point --data-dir``); a command quoted in backticks kept as it runs."""
    flag, _, value = given.partition(" ") if given.startswith("--") else ("", "", given)
    renames = [(flag, option.rpartition(": ")[2]), (value, text)]
    parts = rest.split("`")
    for old, new in renames:
        if old and old != new:
            parts[::2] = [_word_renamed(part, old, new) for part in parts[::2]]
    return "`".join(parts)


def _word_renamed(text: str, old: str, new: str) -> str:
    """``text`` with each ``old`` that stands as a word or path of its own (not a part of
    ``emptyish`` or ``a/empty``) replaced by ``new``."""
    return re.sub(rf"(?<![\w./~-]){re.escape(old)}(?![\w/-])", lambda _: new, text)


def typed_options(
    words: Iterable[str], aliases: Mapping[str, str] | None = None
) -> dict[str, tuple[str, str]]:
    """Each parser key an option of ``words`` sets -> that option and its value as the user
    typed them (``--batch_size``, ``1e6``; the last one given), for messages that quote them,
    not the value as the parser converted it (``1000000.0``). ``aliases`` maps an option that
    is not a key (``--seed``) to its key. A ``--config`` file replaces the options before it
    that set its keys (a key, or one above or under it; an earlier file's too), and its
    values are taken as the file spells them
    (:func:`config_typed`): named ``--config FILE: KEY``, as its unknown keys are. A later
    option replaces an earlier one that sets the same value under another spelling
    (``--optimizer.lr`` a file's ``optimizer.init_args.lr``: :func:`same_value_key`). A
    section's file (``--trainer tr.yaml``, :data:`SECTION_FILES`) is read as a ``--config``
    file's section."""
    words = list(words)
    typed: dict[str, tuple[str, str]] = {}
    for index, word in enumerate(words):
        option, equals, value = word.partition("=")
        following = words[index + 1 : index + 2]
        if option in ("--config", "-c"):
            if equals or following:
                path = value if equals else following[0]
                read = config_typed(option, path)
                again = [key for key, (_, text) in read.items() if not _merged(key, text)]
                for earlier in [k for k in typed if _set_again(k, [*again, *config_keys(path)])]:
                    del typed[earlier]
                typed |= read
            else:
                typed.clear()
            continue
        if not option.startswith("--"):
            continue
        if not equals and (not following or following[0].startswith("--")):
            continue  # a flag (--overwrite, --no-prune) or a value missing
        key = (aliases or {}).get(option) or option.removeprefix("--").replace("-", "_")
        value = value if equals else following[0]
        set_here = {key: (option, value)}
        if key in SECTION_FILES:  # --trainer tr.yaml, --model '{...}': its keys, as spelled
            read = inline_typed(option, value) or config_typed(option, value)
            set_here |= {f"{key}.{k}": v for k, v in read.items()}
        for each in set_here:
            for earlier in [k for k in typed if same_value_key(k) == same_value_key(each)]:
                del typed[earlier]
        typed |= set_here
    return typed


def _set_again(key: str, keys: Iterable[str]) -> bool:
    """``key`` is set again by one of ``keys``: the same value (:func:`same_value_key`), or a
    key above or under it (a file's ``model: {}`` for ``model.dropout``)."""
    mine = same_value_key(key)
    return any(
        mine == (other := same_value_key(each))
        or mine.startswith(f"{other}.")
        or other.startswith(f"{mine}.")
        for each in keys
    )


def config_keys(path: str) -> list[str]:
    """The top-level keys of the config file ``path`` ([] for one that cannot be read as a
    mapping): what it sets whole, whatever their values (a null, a list), but a mapping,
    which is merged key by key with what was given before (:func:`sections_merged`)."""
    try:
        content = yaml.load(config_text(path), Loader=yaml.BaseLoader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return []
    if not isinstance(content, dict):
        return []
    return [str(key) for key, value in content.items() if not _merged(str(key), value)]


def _merged(key: str, value: Any) -> bool:
    """A config file's ``key: value`` merged key by key with what was given before, not set
    whole: a mapping, or a section's file (``model: m.yaml``, whose keys are read beside it)."""
    named = isinstance(value, str) and value.endswith(SECTION_FILE_SUFFIXES)
    return isinstance(value, dict) or (key in FIT_SECTIONS and named)


# the sections a file may fill: a fit config's sections of keys (FIT_SECTIONS: --model m.yaml,
# fit's own --run r.yaml too, until 2026-12-01 refused in jsonargparse's text by fit, "expected
# a mapping" by suite) and LightningCLI's class sections; its values are named ``--trainer
# tr.yaml: accelerator``, as a ``--config`` file's are
SECTION_FILES = (*FIT_SECTIONS, "optimizer", "lr_scheduler")


def same_value_key(key: str) -> str:
    """``key`` as one spelling of what it sets: a class's argument without ``init_args``
    (``optimizer.lr`` for ``optimizer.init_args.lr``), its class without ``class_path``
    (``optimizer`` for ``optimizer.class_path``), as LightningCLI reads both."""
    return key.replace(f".{INIT_ARGS_KEY}.", ".").removesuffix(f".{CLASS_PATH_KEY}")


# the options of the command running now as the user typed them (:func:`typed_options`), set by
# harness/cli.py's main around the command (:func:`options_typed`): the checks of its option
# dataclasses and of each run's fit config quote a value from here, wherever they run
TYPED_NOW: contextvars.ContextVar[Mapping[str, tuple[str, str]] | None] = contextvars.ContextVar(
    "typed_now", default=None
)


@contextlib.contextmanager
def options_typed(typed: Mapping[str, tuple[str, str]] | None) -> Iterator[None]:
    """While the block runs, :func:`as_typed` names the options of ``typed`` as typed."""
    token = TYPED_NOW.set(dict(typed or {}))
    try:
        yield
    finally:
        TYPED_NOW.reset(token)


def typed_now() -> Mapping[str, tuple[str, str]]:
    """The options of the command running now as typed (:data:`TYPED_NOW`; {} outside one)."""
    return TYPED_NOW.get() or {}


def as_typed(key: str, value: Any) -> tuple[str, str]:
    """The option that set the parser key ``key`` and its value, as the user typed them
    (``--max-steps``, ``1e3``; ``--config s.yaml: max_steps``, ``0``); else the option as the
    help spells it and ``value``."""
    return typed_entry(typed_now(), key) or (option_spelling(key), flow_text(value))


# the fit keys a check below harness names by fit's short flag (datamodules' ``--encoding
# utf-99: unknown encoding``, ``--data-dir d: expected the files of task ...``), whichever
# command set them (suite's ``data: {encoding: ...}``, ``data: {data_dir: d}``)
FIT_FLAGS = {
    "--encoding": "data.encoding",
    "--data-dir": "data.data_dir",
    "--embeddings": "data.embeddings",
}


def held_keys(sections: Iterable[str]) -> set[str]:
    """The keys a file of ``sections`` may set: each section and the command's own key of a
    fit flag under it (suite's ``data_dir`` of ``data.data_dir``), none said missing beside
    the line of a section file that could not be read (it may have held them)."""
    sections = set(sections)
    return sections | {
        flag.removeprefix("--").replace("-", "_")
        for flag, key in FIT_FLAGS.items()
        if key.partition(".")[0] in sections
    }


def unread_sections(parser: ArgumentParser, sections: Iterable[str]) -> None:
    """Count the :func:`held_keys` of ``sections`` whose file could not be read (``--data
    missing.yaml``, a config file's ``data: missing.yaml``) among ``parser``'s keys refused in
    files: the file's one line is said, no "is required" line for what it may have held."""
    parser.refused_in_files = getattr(parser, "refused_in_files", set()) | held_keys(sections)


WORD_KEYS = ("runs",)  # a positional's keys (report's run folders), its lines led by its value


def file_folder(path: str | Path) -> Path | None:
    """The folder that the relative paths of the file ``path`` are read beside (its own);
    None for a file with no folder of its own (a pipe, ``--config <(printf ...)``,
    ``/dev/fd/N``: no regular file), whose paths are the working folder's, as a flag's."""
    path = expanded(path)
    return path.parent if path.is_file() else None


def kernel_path(path: str | Path) -> Path:
    """``path`` naming what the kernel finds at it, shortened by name where that keeps its
    meaning: ``a/./b`` as ``a/b``, ``d/..`` dropped where ``d`` is no symlink; a link followed
    by ``..`` (``L/../k``) is its target's, so its target's parent (os.path.normpath and
    abspath drop ``L/..`` by name: another folder). Other links kept, a relative path
    relative until a link's target is named."""
    root = Path(path).anchor
    kept: list[str] = []
    for part in Path(path).parts[1 if root else 0 :]:
        if part != ".." or (not root and kept[-1:] in ([], [".."])):
            kept.append(part)
            continue
        here = Path(root, *kept)
        if here.is_symlink():  # its ``..`` is its target's parent
            root, *kept = Path(os.path.realpath(here)).parts
        kept = kept[:-1]  # ``/..`` is ``/``
    return Path(root, *kept)


def absolute(path: str | Path) -> Path:
    """``path`` absolute, from the working folder, as :func:`kernel_path` shortens it."""
    return kernel_path(Path.cwd() / path)


def beside_file(path: str | Path, name: str | Path) -> Path:
    """``name`` (a path written in the file ``path``) as read: beside that file, or from the
    working folder for a file with no folder of its own (:func:`file_folder`), its ``..``
    resolved where the kernel's meaning stays (:func:`kernel_path`: ``../given/../made/runs/s``
    named a folder only while ``given`` existed: a recorded command failed once the config
    file's folder was gone)."""
    return kernel_path((file_folder(path) or Path()) / expanded(name))


def typed_folder(option: str) -> Path | None:
    """The folder a value named by ``option`` (:func:`typed_options`') is read beside: its
    ``--config`` file's (``--config c.yaml: data_dir``), or the section file's that holds it
    (``--config c.yaml: data sub/d.yaml: data_dir``, ``--data sub/d.yaml: data_dir``); None
    for the working folder (a flag, an inline mapping, a pipe)."""
    head, _, rest = option.partition(" ")
    path, _, inner = rest.partition(": ")
    if head in CONFIG_OPTIONS:
        section, _, name = inner.partition(" ")
        name, held, _ = name.partition(": ")
        return (
            file_folder(beside_file(path, name))
            if section in SECTION_FILES and held
            else (file_folder(path))
        )
    if head.removeprefix("--") in SECTION_FILES and inner:
        return file_folder(path)
    return None


def said_as_written(
    lines: Iterable[str],
    typed: Mapping[str, tuple[str, str]] | None = None,
    aliases: Mapping[str, str] | None = None,
) -> list[str]:
    """``lines`` with each one that names a value by a flag not typed (``--encoding utf-99:
    unknown encoding``, ``--out afile is a file``, ``--lengths 8,-3``, ``--space ../c/sp.yaml``,
    the file read beside the config) named as the user wrote it: a ``--config`` file's
    (``--config c.yaml: encoding utf-99: ...``), an inline mapping's (``--data {data_dir: d}:
    data_dir d``), a dotted key's (``--data.data_dir d``), as :func:`as_typed` names the values it
    quotes: the one place every command's problems pass (:func:`build`, fit's refusals), so
    a check below harness names its value by the flag alone. ``typed`` is
    :func:`typed_options`' (the command's now by default); ``aliases`` maps a flag to the key
    it sets (fit's ``--encoding``: ``data.encoding``). A :class:`FilesProblem` stays one."""
    typed = typed_now() if typed is None else typed
    # the flag and its value as a check says them, the file's key and value as written, and
    # the path looked at where the value was read beside the config file
    spellings: list[tuple[str, str, str, str]] = []
    for key, (option, text) in typed.items():
        flags = {f"--{key.replace('_', '-')}", f"--{key}", f"--{same_value_key(key)}"}
        flags |= {
            flag for flag, aliased in {**FIT_FLAGS, **(aliases or {})}.items() if aliased == key
        }
        shown = {text: ""}
        folder = typed_folder(option)
        relative = not expanded(text).is_absolute()
        if folder is not None and relative:  # read beside it
            beside = str(kernel_path(folder / text))  # as beside_file reads it
            shown[beside] = f" (read beside the config file: {absolute(beside)})"
            shown[str(absolute(beside))] = shown[beside]  # as a run made of it reads it
        elif relative:  # as a run made of it reads it (a suite's: from any folder)
            shown.setdefault(str(absolute(text)), "")
        if text.startswith("~"):  # as read: the home folder (home_path)
            shown.setdefault(str(absolute(expanded(text))), "")
        listed = text.startswith("[") and text.endswith("]")
        items = [i.strip() for i in (text[1:-1] if listed else text).split(",") if i.strip()]
        if listed:  # a list, as the comma list it reads
            shown[",".join(items)] = ""
        spellings += [
            (f"{flag} {value}", option, text, shown[value])  # the text: looked at beside too
            for flag in flags
            for value in shown
        ]
        if len(items) > 1 or listed:  # one name of a list ('--encoders bilstmm: expected ...')
            spellings += [(f"{flag} {item}", option, item, "") for flag in flags for item in items]
        if key in WORD_KEYS:  # a positional's value, said by itself ('/x: no such folder')
            items = items if listed else [text]
            folder = typed_folder(option)
            spellings += [  # each read beside the config, named so (first: the same text too)
                (str(kernel_path(folder / item)), option, item, f" (read beside the {at})")
                for item in items
                if folder is not None
                and not expanded(item).is_absolute()
                and (at := f"config file: {absolute(folder / item)}")
            ]
            spellings += [(item, option, item, "") for item in items]
    spellings.sort(key=lambda spelling: -len(spelling[0]))  # the longest value first
    said: list[str] = []
    for line in lines:
        for given, option, text, looked_at in spellings:
            rest = line[len(given) :]
            if line.startswith(given) and rest[:1] in (":", " ", ""):
                rest = rest_as_written(rest, given, option, text)  # the path there as written
                looked_at = "" if looked_at.strip(" ()").partition(": ")[2] in rest else looked_at
                written = f"{option} {text}{rest}{looked_at}"
                line = FilesProblem(written) if isinstance(line, FilesProblem) else written
                break
        said.append(line)
    return said


def refusal_as_written(
    error: InputError,
    typed: Mapping[str, tuple[str, str]] | None = None,
    aliases: Mapping[str, str] | None = None,
) -> InputError:
    """``error`` (an ``--out`` refused alone) with its lines named as the user wrote them
    (``-c c.yaml: out ../afile is a file``, not ``--out afile``), of the same kind:
    :func:`said_as_written`, the one place lines are renamed as typed, of ``typed``
    and ``aliases``."""
    error.args = ("\n".join(said_as_written(str(error).splitlines(), typed, aliases)),)
    return error


def refused_key(error: BaseException) -> str | None:
    """The parser key whose value a jsonargparse error refuses (``model.hidden_dim``), if any."""
    found = PARSER_KEY.match(message_line(error))
    return found.group(1) if found else None


def _counts(hint: object) -> bool:
    """``hint`` is an integer's: ``int`` or ``int | None`` (an option whose default is unset)."""
    return hint is int or (hint is not None and set(typing.get_args(hint)) == {int, type(None)})


def refused_keys(error: BaseException) -> list[str]:
    """The parser keys to leave out after jsonargparse refused a value (:func:`refused_key`):
    that key, or for an argument a class does not take only that argument
    (``optimizer.momentm``, ``optimizer.init_args.momentm``), the class and its other
    arguments kept to be judged."""
    key = refused_key(error)
    if key is None:
        return []
    found = CLASS_PATH_PROBLEM.search(message_line(error))
    unknown = NOT_ACCEPTED.search(found.group(2)) if found else None
    if unknown:
        return [f"{key}.{unknown.group(1)}", f"{key}.init_args.{unknown.group(1)}"]
    return [key]


def config_setting(words: list[str], keys: Iterable[str]) -> str | None:
    """The last ``--config`` file of ``words`` (its path as given) that sets one of the dotted
    ``keys`` or a key under it: the file whose value the parser read, unless a later flag set
    it (:func:`without_key` leaves those out first)."""
    setting = None
    for index, word in enumerate(words):
        option, equals, value = word.partition("=")
        if option not in ("--config", "-c") or not (equals or index + 1 < len(words)):
            continue
        path = value if equals else words[index + 1]
        try:
            content = yaml.safe_load(config_text(path))
        except (OSError, ValueError, yaml.YAMLError):  # ValueError: too many digits, bad bytes
            continue
        if isinstance(content, dict):  # a section's file (model: m.yaml) read as its keys
            content = {**content, **_section_files_held(content, Path(path))}
        given = list(flat_keys(content)) if isinstance(content, dict) else []
        if any(k == key or k.startswith(f"{key}.") for k in given for key in keys):
            setting = path
    return setting


def _section_files_held(content: dict[str, Any], config: Path) -> dict[str, Any]:
    """Each section of the config file ``config`` that names a file holding a mapping
    (``model: m.yaml``, beside the config file) -> that mapping."""
    held = {}
    for key in SECTION_FILES:
        value = content.get(key)
        if isinstance(value, str) and value.strip():
            mapping = section_file_mapping(str(beside_file(config, value)))
            if mapping is not None and json.loads(mapping):
                held[key] = json.loads(mapping)
    return held


def without_key(words: list[str], key: str, aliases: Mapping[str, str] | None = None) -> list[str]:
    """``words`` without the options that set ``key`` or a key under it (``--optimizer`` and
    ``--optimizer.lr`` for ``optimizer``; ``--trainer.callbacks+=...``), with their values:
    what is left is parsed again to find the other problems (:func:`typed_options`' rules)."""
    kept: list[str] = []
    skip_value = False
    for word in words:
        if skip_value:
            skip_value = False
            if not word.startswith("--"):
                continue
        option, equals, _ = word.partition("=")
        named = (aliases or {}).get(option) or option.removeprefix("--").replace("-", "_")
        named = named.rstrip("+")
        if option.startswith("--") and (named == key or named.startswith(f"{key}.")):
            skip_value = not equals
            continue
        kept.append(word)
    return kept


def without_dotted(mapping: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    """A nested ``mapping`` without the dotted ``key`` (``model.hidden_dim``) and what is under
    it: :func:`without_key` for a config given as a mapping (``suite``'s and ``tune``'s runs).
    A mapping left empty goes too, as the words of its options would (``lr_scheduler:
    {init_args: {step_size: 0}}`` without its one argument is no class's config)."""
    head, _, tail = key.partition(".")
    if head not in mapping:
        return mapping
    inner = mapping[head]
    if tail and (not isinstance(inner, Mapping) or without_dotted(inner, tail) is inner):
        return mapping
    rest = without_dotted(inner, tail) if tail else {}
    if rest:
        return {**mapping, head: rest}
    return {name: value for name, value in mapping.items() if name != head}


STDIN = "/dev/stdin"  # what ``--config -`` reads: standard input, as a pipe
STREAM_TEXTS: dict[tuple[str, int, int], str] = {}  # a pipe's text by (path, device, inode)


def config_text(path: str | Path) -> str:
    """The text of the config file ``path``, each read once: a pipe (``--config <(printf
    ...)``) gives its text to the first read only, and a config is read in several places (its
    values as typed, its keys, the parser). A regular file is read each time (it may change
    between two in-process commands). ``-`` is standard input, read as the pipe
    :data:`STDIN` (its lines name ``-``, as typed)."""
    path = expanded(STDIN if str(path) == "-" else path)
    status = path.stat()
    if stat.S_ISREG(status.st_mode):
        return path.read_text()
    key = (str(path), status.st_dev, status.st_ino)
    if key not in STREAM_TEXTS:
        STREAM_TEXTS[key] = path.read_text()
    return STREAM_TEXTS[key]


def config_typed(option: str, path: str) -> dict[str, tuple[str, str]]:
    """Each dotted key of the config file ``path`` with a scalar value -> ``(--config PATH:
    KEY, its text)``: yaml's BaseLoader keeps every scalar as written (``017``, ``1e3``), not
    as YAML 1.1 reads it (15, 1000.0). {} for a file that cannot be read as a mapping
    (:class:`CheckedConfigFile` names that problem)."""
    try:
        content = yaml.load(config_text(path), Loader=yaml.BaseLoader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return {}
    if not isinstance(content, dict):
        return {}
    typed = {key: (f"{option} {path}: {shown}", text) for key, shown, text in scalar_items(content)}
    for section in SECTION_FILES:  # model: m.yaml, read beside it: 'model m.yaml: hidden_dim'
        name = content.get(section)
        if isinstance(name, str) and name.strip():
            file = str(beside_file(path, name))
            for key, (said, text) in config_typed(option, file).items():
                shown = said.removeprefix(f"{option} {file}: ")
                typed[f"{section}.{key}"] = (f"{option} {path}: {section} {name}: {shown}", text)
    return typed


def inline_typed(option: str, value: str) -> dict[str, tuple[str, str]]:
    """Each dotted key of a mapping typed as ``option``'s value (``--model '{hidden_dim: 20}'``)
    with a scalar value -> ``(--model {hidden_dim: 20}: KEY, its text)``, as
    :func:`config_typed` reads a file's; {} for a value that is no such mapping."""
    if _inline_mapping(value) is None:
        return {}
    content = yaml.load(value, Loader=yaml.BaseLoader)
    return {key: (f"{option} {value}: {shown}", text) for key, shown, text in scalar_items(content)}


def scalar_items(
    mapping: dict[str, Any], prefix: str = "", shown: str = ""
) -> Iterator[tuple[str, str, str]]:
    """The dotted keys of a nested mapping's scalar (string) leaves, as written (a list's
    entries by their index: ``trainer.callbacks[0].init_args.monitor``, keyed
    ``trainer.callbacks.0.init_args.monitor``) and their values; a list of scalars is one
    value (``[1]``)."""
    for key, value in mapping.items():
        dotted, named = f"{prefix}{key}", f"{shown}{key}"
        if isinstance(value, dict):
            yield from scalar_items(value, dotted + ".", named + ".")
        elif isinstance(value, list) and any(isinstance(item, dict) for item in value):
            for index, item in enumerate(value):
                if isinstance(item, dict):
                    yield from scalar_items(item, f"{dotted}.{index}.", f"{named}[{index}].")
        elif isinstance(value, list) and all(isinstance(item, str) for item in value):
            yield dotted, named, f"[{', '.join(value)}]"
        elif isinstance(value, str):
            yield dotted, named, value


def typed_entry(typed: Mapping[str, tuple[str, str]], key: str) -> tuple[str, str] | None:
    """``key``'s option and value as ``typed`` (:func:`typed_options`) holds them; a mapping a
    file gives (``trainer: {max_time: {seconds: 0}}``, whose leaves ``typed`` holds) as one
    option, its value as written: ``--config z.yaml: trainer.max_time``, ``{seconds: 0}``.
    None when no option of ``typed`` sets it."""
    if key in typed:
        return typed[key]
    leaves = {k.removeprefix(f"{key}."): v for k, v in typed.items() if k.startswith(f"{key}.")}
    options = {option.removesuffix(f".{leaf}") for leaf, (option, _) in leaves.items()}
    if len(options) != 1 or any(not o.endswith(f".{leaf}") for leaf, (o, _) in leaves.items()):
        return None  # none, from two sources, or a list's entries among them
    nested: dict[str, Any] = {}
    for leaf, (_, text) in leaves.items():
        *path, last = leaf.split(".")
        place = nested
        for part in path:
            place = place.setdefault(part, {})
        place[last] = text
    return options.pop(), flow_text(nested)


def flow_text(value: Any) -> str:
    """A nested mapping of texts in YAML's flow style, each text as written: ``{seconds: 0}``."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key}: {flow_text(leaf)}" for key, leaf in value.items()) + "}"
    return str(value)


DECIMAL_INTEGER = re.compile(r"\s*[+-]?[0-9]+\s*")  # ASCII digits: ``\d`` takes ``１０`` too


def not_decimal_problems(
    typed: Mapping[str, tuple[str, str]], value_of: typing.Callable[[str], Any]
) -> list[str]:
    """One line per option of ``typed`` (:func:`typed_options`) read as an integer
    (``value_of(key)``) from a form YAML 1.1 reads so but nobody types a count in: ``0x10``
    (16), ``0b11`` (3), ``1:20`` (80, base 60), or ``017`` read as 15 (octal; a config file's
    YAML reads it so, a flag as 17); and from one Python's ``int`` reads but the docs never
    show, ``1_000`` or full-width ``１０``: refused with the plain spelling ("write 1000"). A
    number key (``lr``, jsonargparse's ``PositiveInt``) is judged alike: ``lr: 0x10`` is 16.0."""
    problems = []
    for key, (option, text) in typed.items():
        value = value_of(key)
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        if isinstance(value, float) and _decimal_number(text, value):
            continue  # 0.5, 1e-3, .inf: read as written
        # the words of any value that is no integer (``1e6: expected an integer``), the plain
        # spelling beside them
        noun = "integer" if isinstance(value, int) else "number"
        article = "an" if isinstance(value, int) else "a"
        if not DECIMAL_INTEGER.fullmatch(text):
            plain, based = _python_integer(text), _based_integer(text)
            said = f"expected {article} {noun}"
            if plain == value:
                said = f"write {plain}"
            elif based == value:  # 0x10: the value it reads as, plainly
                said += f" (write {based})"
            problems.append(f"{option} {text}: {said}")
        elif value != int(text):
            problems.append(
                f"{option} {text}: read as {int(value)} (YAML's octal); expected {article} "
                f"{noun} without a leading 0"
            )
        elif LEADING_ZERO.fullmatch(text):  # a flag's 017 is 17, a config file's 15: refused
            problems.append(
                f"{option} {text}: expected {article} {noun} without a leading 0 "
                f"(write {int(text)})"
            )
    return problems


LEADING_ZERO = re.compile(r"\s*[+-]?0[0-9]+\s*")  # 017: octal to YAML 1.1, 17 to a flag


def _based_integer(text: str) -> int | None:
    """``text`` as an integer with a base prefix (``0x10``, ``0o17``, ``0b11``), None when it is
    none."""
    try:
        return int(text.strip(), 0)
    except ValueError:
        return None


def _decimal_number(text: str, value: float) -> bool:
    """Whether ``text`` is a number written in decimal (``0.5``, ``1e-3``, ``-inf``, YAML's
    ``.inf``) that reads as ``value``, not an integer YAML 1.1 reads otherwise (``017``)."""
    spelled = text.strip().lower().replace(".inf", "inf").replace(".nan", "nan")
    if not spelled.isascii() or "_" in spelled or LEADING_ZERO.fullmatch(spelled):
        return False
    try:
        number = float(spelled)
    except ValueError:
        return False
    return number == value or (math.isnan(number) and math.isnan(value))


def _python_integer(text: str) -> int | None:
    """``text`` as Python's ``int`` reads it (``1_000``, ``１０``), None when it does not."""
    try:
        return int(text)
    except ValueError:
        return None


def parsed_value(namespace: Any, key: str) -> Any:
    """The value of the dotted ``key`` in ``namespace``, through nested mappings (a section
    given as ``--data.batch_size``); None when it holds none."""
    value = namespace
    for part in key.split("."):
        if not isinstance(value, Mapping | Namespace) or part not in value:
            return None
        value = value[part]
    return value


PRINT_CONFIG_FLAGS = ("skip_null", "skip_unset", "skip_default")  # --print_config=FLAG,...
INVALID_CHOICE = re.compile(r"argument (\S+): invalid choice: '?(.*?)'? \(choose from (.*)\)$")
INVALID_FLAG = re.compile(r'Invalid option "(.*)" for --print_config')


def print_config_problem(flag: str) -> str:
    """The line for a ``--print_config`` flag that is none of :data:`PRINT_CONFIG_FLAGS`."""
    expected = f"{', '.join(PRINT_CONFIG_FLAGS[:-1])} or {PRINT_CONFIG_FLAGS[-1]}"
    hint = did_you_mean(flag, PRINT_CONFIG_FLAGS)
    return f"--print_config={flag}: expected {expected} (comma-separated){hint}"


def _choice_problem(text: str) -> str | None:
    """argparse's "argument action: invalid choice: 'stat' (choose from 'stats')" and
    jsonargparse's 'Invalid option "skip_nul" for --print_config' in sanbench's words, with the
    nearest choice; None for any other message."""
    if flag := INVALID_FLAG.search(text):
        return print_config_problem(flag.group(1))
    found = INVALID_CHOICE.search(text)
    if not found:
        return None
    name, value, listed = found.groups()
    choices = [choice.strip().strip("'") for choice in listed.split(",")]
    named = f"{name} {value}" if name.startswith("-") else value  # a positional: its value
    expected = choices[0] if len(choices) == 1 else f"one of {', '.join(choices)}"
    return f"{named}: expected {expected}{did_you_mean(value, choices)}"


def parser_problem(
    error: BaseException,
    spelled: typing.Callable[[str], str],
    typed: Mapping[str, tuple[str, str]] | None = None,
) -> str:
    """The one line sanbench prints for a value a parser refuses: ``--model.hidden_dim 0:
    expected a positive integer``, not jsonargparse's dump of the type's union. The option and
    its value are named as ``typed`` (:func:`typed_options`) holds them, else ``spelled(key)``
    and the value jsonargparse names; a message that names no key's value (argparse's own)
    stays as it is, on one line."""
    text = message_line(error)
    key = PARSER_KEY.match(text)
    if not key:
        return _choice_problem(text) or text
    option, typed_value = typed_entry(typed or {}, key.group(1)) or (spelled(key.group(1)), None)
    if digits := TOO_MANY_DIGITS.search(text):
        count = int(digits.group(1))
        refused, option, typed_value = _long_number(key.group(1), count, typed or {}) or (
            key.group(1),
            option,
            typed_value,
        )
        return too_many_digits_problem(refused, option, typed_value, count)
    class_problem = _class_path_problem(key.group(1), text, typed or {})
    if class_problem:
        return class_problem
    phrases, choices = _expected(text[key.end() :])
    if not phrases:
        return text
    found = GIVEN_VALUE.search(text)
    value = next((part for part in found.groups() if part is not None), "") if found else ""
    value = value if typed_value is None else typed_value
    hint = did_you_mean(value, choices) if choices and value else ""
    named = f"{option}{' ' + value if value else ''}"
    return f"{named}: {_unknown_classes(text)}expected {' or '.join(phrases)}{hint}"


# Python's refusal to read an integer of more than sys.get_int_max_str_digits() digits
TOO_MANY_DIGITS = re.compile(r"Exceeds the limit \(\d+ digits\).*?value has (\d+) digits")


def _long_number(
    key: str, digits: int, typed: Mapping[str, tuple[str, str]]
) -> tuple[str, str, str] | None:
    """The key at or under ``key`` (``optimizer.init_args.lr`` of ``optimizer``), its option and
    text as ``typed`` holds them, whose value has ``digits`` digits; None when none has."""
    found = [
        (typed_key, *spelled)
        for typed_key, spelled in typed.items()
        if (typed_key == key or typed_key.startswith(f"{key}."))
        and sum(character.isdigit() for character in spelled[1]) == digits
    ]
    return found[-1] if found else None


def too_many_digits_problem(key: str, option: str, text: str | None, digits: int) -> str:
    """A number of thousands of digits (``--data.batch_size 1000...``), which Python refuses
    to read ("Exceeds the limit (4300 digits) ..."), named by its first digits and length, with
    the option's bound where it has one."""
    shown = f" {text.strip()[:12]}..." if text else ""
    if key.rpartition(".")[2] in ("batch_size", "eval_batch_size"):
        bound = f"a batch holds at most {MAX_BATCH_SIZE:,} sentences"
    else:
        bound = "far beyond any value it takes"
    return f"{option}{shown} ({digits} digits): {bound}"


def long_numbers_problem(option: str, path: str) -> str:
    """One :func:`too_many_digits_problem` line per value of the config file ``path`` with more
    digits than Python reads as an integer (``sys.get_int_max_str_digits()``)."""
    lines = []
    for key, (named, text) in config_typed(option, path).items():
        digits = sum(character.isdigit() for character in text)
        if digits > sys.get_int_max_str_digits():
            lines.append(too_many_digits_problem(key, named, text, digits))
    return "\n".join(lines) or f"{option} {path}: a number of too many digits"


UNKNOWN_CLASS = re.compile(
    r"Expected a dot import path string: ([\w.]+)|Expected a path but ([\w.]+) either not"
)
BASE_CLASS = re.compile(r"<class '((?:\w+\.)+\w+)'>")


def _subclass_names(base: type) -> set[str]:
    """The public names of ``base``'s subclasses imported so far, at any depth: the bare names
    jsonargparse resolves (``EarlyStopping`` for a ``Callback``)."""
    found, stack = set(), list(base.__subclasses__())
    while stack:
        subclass = stack.pop()
        if not subclass.__name__.startswith("_") and subclass.__name__ not in found:
            found.add(subclass.__name__)
            stack += subclass.__subclasses__()
    return found


def _unknown_classes(text: str) -> str:
    """``Foo is no Callback class (did you mean ...?); `` for each name of jsonargparse's
    message about a class type that resolves to no class, with the nearest subclass name of
    the type's base class; ``""`` for any other message."""
    unknown = list(dict.fromkeys("".join(found) for found in UNKNOWN_CLASS.findall(text)))
    bases = []
    for path in dict.fromkeys(BASE_CLASS.findall(text.partition(" Errors: ")[0])):
        module, _, name = path.rpartition(".")
        try:
            bases.append(getattr(importlib.import_module(module), name))
        except (ImportError, AttributeError):
            continue
    if not unknown or not bases:
        return ""
    base_name = " or ".join(dict.fromkeys(base.__name__ for base in bases))
    candidates = set().union(*(_subclass_names(base) for base in bases))
    return "".join(
        f"{name} is no {base_name} class{did_you_mean(name, candidates)}; " for name in unknown
    )


def option_spelling(key: str) -> str:
    """The option of a parser key as the help shows it: ``--batch-size``, ``--model.dropout``."""
    return f"--{key}" if "." in key else f"--{key.replace('_', '-')}"


# a negative number (-8,16, -1e-3, -.5, -inf, -nan) that argparse would read as an option
NEGATIVE_VALUE = re.compile(r"-(\.?\d[\w.,:+-]*|inf|infinity|nan)", re.IGNORECASE)
# a dataclass field's metadata: a mapping option spelled as LightningCLI spells a class
CLASS_PATH_OPTION = {"class_path": True}
# a dataclass field's metadata: a mapping option whose key holds a list of classes, spelled as
# LightningCLI spells it (:func:`class_list_words`)
TRAINER_CLASS_LISTS = {"class_lists": ("callbacks",)}
CLASS_KEYS = ("class_path", "init_args", "dict_kwargs")
YAML_NULL = re.compile(r"null|Null|NULL|~")  # YAML's words for none


class OptionWord(typing.NamedTuple):
    """A word of a command line read as an option and its value: ``--model=m.yaml``, or
    ``--model`` and the word after it."""

    word: str  # as given
    option: str  # the word, or its part before "="
    value: str  # the part after "=", else the next word ("" at the end)
    attached: bool  # the value is part of the word (``--model=m.yaml``)
    rest: list[str]  # the words after it

    @property
    def given(self) -> list[str]:
        """The word and its value's word, as given."""
        return [self.word] if self.attached else [self.word, *self.rest[:1]]


# what a rewrite answers for an option: the words that replace it, and whether its value's
# word is taken with it; None keeps the word as given
Rewrite = Callable[[OptionWord], "tuple[list[str], bool] | None"]


def rewritten_options(words: list[str], rewrite: Rewrite) -> list[str]:
    """``words`` with each word that ``rewrite`` answers replaced by the words it gives, the
    word of its value left out too where the answer says it took it (``--model m.yaml`` ->
    ``--model={...}``). One reader of an option's value for every rewrite of a command line."""
    out: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        option, equals, value = word.partition("=")
        rest = words[index + 1 :]
        value = value if equals else (rest[:1] or [""])[0]
        answer = rewrite(OptionWord(word, option, value, bool(equals), rest))
        if answer is None:
            out.append(word)
            index += 1
            continue
        replaced, took_value = answer
        out += replaced
        index += 2 if took_value and not equals else 1
    return out


def class_path_words(words: list[str], options: set[str]) -> list[str]:
    """LightningCLI's spelling of a class option (``--optimizer torch.optim.SGD --optimizer.lr
    0.05``) as the keys of its config (``--optimizer.class_path torch.optim.SGD
    --optimizer.init_args.lr 0.05``), for the mapping ``options`` (``{"--optimizer"}``); the
    class and its arguments are checked by the parser that builds it (fit's). ``--optimizer
    null`` stays the option's null: not given, as fit reads it (as a class path, it was a
    class of none: jsonargparse's base class, torch.optim.Optimizer). A file given as the
    class (``--optimizer sgd.yaml``) is read as the section it holds, as fit reads one
    (:func:`section_file_mapping`)."""

    def rewrite(given: OptionWord) -> tuple[list[str], bool] | None:
        name, _, key = given.option.partition(".")
        value = given.value
        kept = not key and (YAML_NULL.fullmatch(value.strip()) or _missing_section_file(value))
        if name not in options or kept:  # a missing file: said by without_unknown_options
            return None
        if not key and (section := section_file_mapping(value)) is not None:
            return [f"{name}={section}"], True
        attached = f"={value}" if given.attached else ""
        if not key and not value.lstrip().startswith("{"):  # a mapping is the config's form
            return [f"{name}.class_path{attached}"], False
        if key and key.partition(".")[0] not in CLASS_KEYS:
            return [f"{name}.init_args.{key}{attached}"], False
        return None

    return rewritten_options(words, rewrite)


def section_file_mapping(value: str) -> str | None:
    """The section that the file ``value`` holds (``class_path: torch.optim.SGD`` and
    ``init_args: {lr: 0.1}``) as the mapping a class option takes (``{}`` for an empty file:
    not given), as fit's LightningCLI reads ``--optimizer sgd.yaml``; None where ``value``
    names no file (a class path) or one that holds no mapping, left to the class's check."""
    if not value or not expanded(value).is_file():
        return None
    try:
        content = yaml.safe_load(config_text(value))
    except (OSError, UnicodeDecodeError, yaml.YAMLError, ValueError):
        return None
    content = {} if content is None else content
    return json.dumps(content, default=str) if isinstance(content, dict) else None


def section_file_words(words: list[str], sections: Iterable[str]) -> list[str]:
    """``words`` with each ``--SECTION FILE`` or ``--SECTION MAPPING`` of ``sections``
    (``--model m.yaml``, ``--model '{dropout: 0.1}'``: an option taking a mapping) as one
    option per key of the mapping (``--model.dropout=0.1``), so that it sets those keys and
    keeps the section's others, as fit's LightningCLI merges it key by key (a later
    ``--config`` file's section: :func:`sections_merged`); any other value is left as given."""
    options = {f"--{section}" for section in sections}

    def rewrite(given: OptionWord) -> tuple[list[str], bool] | None:
        if given.option not in options:
            return None
        name = given.option.removeprefix("--")
        if (held := section_file_mapping(given.value)) is not None:  # its paths beside it
            held = json.dumps(section_paths_beside(json.loads(held), name, given.value))
        section = held or _inline_mapping(given.value)
        if section is None:
            return None
        keys = json.loads(section).items()
        return [f"{given.option}.{key}={value_word(value)}" for key, value in keys], True

    return rewritten_options(words, rewrite)


def value_word(value: Any) -> str:
    """``value`` as a flag's word that reads back as it: a text as typed (``../data``, not
    ``"../data"``, which a mapping option kept with its quotes, recorded so and read as a
    path of that name), JSON where the text would read as another value (``'0.1'``) and for
    any other value."""
    if isinstance(value, str) and value.strip() == value and _yaml_value(value) == value:
        return value
    return json.dumps(value)


def _yaml_value(text: str) -> Any:
    """``text`` read as YAML; None where it is no YAML value."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return None


class SectionFlags(typing.NamedTuple):
    """:func:`section_flags_checked`'s answer."""

    words: list[str]  # without each section's file that holds no mapping
    problems: list[str]  # every file's problems, ``--trainer t.yaml: unknown key bogus``
    unknown: dict[str, set[str]]  # a file's path -> its unknown keys (left out of ``read``)
    read: dict[str, dict[str, Any]]  # a file's path -> the mapping it holds
    unread: set[str]  # each section whose file holds no mapping (:func:`unread_sections`)


def section_flags_checked(
    words: list[str], sections: Iterable[str], known: set[str]
) -> SectionFlags:
    """The one reader of each ``--SECTION FILE`` of ``sections`` (``--trainer t.yaml``, ``--run
    r.yaml``, ``--optimizer o.yaml``) that ``words`` give, for every command: the lines of its
    problems in sanbench's words (:func:`section_file_content`: ``unknown key bogus``, ``empty;
    expected a mapping of run's keys``), said beside the rest, and the file left out of the
    words where it holds no mapping. A class's file (``--optimizer``) holding a mapping is kept
    as given, its class and arguments judged by the parser that builds it; until 2026-12-01 an
    empty one was taken as none (fit trained with ``optimizer: null``), and fit refused a ``--run``
    file in jsonargparse's text."""
    problems: list[str] = []
    unknown: dict[str, set[str]] = {}
    read: dict[str, dict[str, Any]] = {}
    unread: set[str] = set()
    wanted = set(sections)

    def rewrite(given: OptionWord) -> tuple[list[str], bool] | None:
        section, value = given.option.removeprefix("--").replace("-", "_"), given.value
        null = YAML_NULL.fullmatch(value.strip())  # ~: not given, not the home folder
        if section not in wanted or not value or null or not expanded(value).exists():
            return None
        content, lines = section_file_content(value, section, known)
        if content is not None and section not in FIT_SECTIONS:  # a class's: its parser's
            return None
        problems.extend(f"{given.option} {value}: {line}" for line in lines)
        if content is None:
            if not holds_nothing(value):  # an empty file holds nothing: its keys not given
                unread.add(section)
            return [], True
        if lines:
            unknown.setdefault(value, set()).update(
                line.removeprefix("unknown key ").partition(" ")[0] for line in lines
            )
        read[value] = content
        return None

    return SectionFlags(rewritten_options(words, rewrite), problems, unknown, read, unread)


def section_files_checked(
    words: list[str], sections: set[str], parser: ArgumentParser
) -> tuple[list[str], list[str]]:
    """``words`` with each ``--SECTION FILE`` of ``sections`` (``--trainer t.yaml``) as the
    mapping its file holds, its unknown keys left out (left out whole where it holds none, its
    keys counted by :func:`unread_sections` on ``parser``), and the lines of its problems in
    fit's words (:func:`section_flags_checked`), said beside the rest."""
    checked = section_flags_checked(words, sections, known_keys(parser))
    unread_sections(parser, checked.unread)

    def rewrite(given: OptionWord) -> tuple[list[str], bool] | None:
        section, value = given.option.removeprefix("--"), given.value
        if section not in FIT_SECTIONS or value not in checked.read:
            return None
        return [f"{given.option}={json.dumps(checked.read[value], default=str)}"], True

    return rewritten_options(checked.words, rewrite), checked.problems


def _inline_mapping(value: str) -> str | None:
    """A mapping typed as an option's value (``{dropout: 0.1}``) as JSON; None for another
    value (left to the option's check)."""
    if not value.lstrip().startswith("{"):
        return None
    try:
        content = yaml.safe_load(value)
    except (yaml.YAMLError, ValueError):
        return None
    return json.dumps(content, default=str) if isinstance(content, dict) else None


def sections_merged(content: dict[str, Any], cfg: Namespace) -> dict[str, Any]:
    """Each section of a config file's ``content`` that an earlier file or option gave as a
    mapping too (suite's ``model``: a ``dict`` option, which jsonargparse would replace whole)
    -> the two merged key by key, as fit's LightningCLI merges its sections: a later file's
    ``model: {dropout: 0.1}`` keeps an earlier ``hidden_dim: 12``. A class's arguments merge
    by :func:`class_merged`."""
    merged = {}
    for key, given in content.items():
        previous = cfg.get(key) if key in cfg else None
        if isinstance(previous, dict) and isinstance(given, dict):
            merged[key] = class_merged(previous, given)
    return merged


def class_merged(previous: Any, given: Any) -> Any:
    """A section or class option given again (``given``) over its value before (``previous``),
    by LightningCLI's rule, for every command and however given (a file, a mapping, flags):
    keys merge one by one, a class's arguments too while the class stays (none named, or the
    same); another class keeps those earlier arguments it takes, its own given over them
    (Adam's ``lr`` and ``amsgrad``, then ``torch.optim.SGD``: SGD with the ``lr``). A value
    that is not a mapping (``null``: not given) replaces the one before."""
    if not (isinstance(previous, dict) and isinstance(given, dict)):
        return given
    previous, given = _arguments_nested(previous), _arguments_nested(given)
    if same_class(given.get(CLASS_PATH_KEY), previous.get(CLASS_PATH_KEY)):  # Adam, as named
        given = {key: value for key, value in given.items() if key != CLASS_PATH_KEY}
    earlier = previous.get(INIT_ARGS_KEY)
    if given.get(CLASS_PATH_KEY) not in (None, previous.get(CLASS_PATH_KEY)):
        taken = _arguments(given[CLASS_PATH_KEY])
        previous = {k: v for k, v in previous.items() if k in CLASS_KEYS or k in taken}
        if isinstance(earlier, dict):
            earlier = {k: v for k, v in earlier.items() if k in taken}
    merged = {**previous, **given}
    later = given.get(INIT_ARGS_KEY, {})
    if isinstance(earlier, dict) and isinstance(later, dict):
        merged[INIT_ARGS_KEY] = {**earlier, **later}
    return merged


def _class_named(path: str) -> Any:
    """The object the dotted ``path`` imports (``torch.optim.adam.Adam``); None if none."""
    module, _, name = path.rpartition(".")
    try:
        return getattr(importlib.import_module(module), name) if module else None
    except (ImportError, AttributeError, ValueError):
        return None


def same_class(given: Any, previous: Any) -> bool:
    """Whether the class path ``given`` names the class ``previous`` names, as the parser
    resolves them: a short name (``Adam``) that of a dotted path's class (``torch.optim.Adam``),
    two dotted paths importing one class (``torch.optim.adam.Adam``); not the same text (kept)."""
    if not (isinstance(given, str) and isinstance(previous, str)) or given == previous:
        return False
    if "." not in given or "." not in previous:  # a short name: the class's own name
        short, full = sorted((given, previous), key=lambda path: "." in path)
        found = _class_named(full)
        return "." not in short and getattr(found, "__name__", None) == short
    found = _class_named(given)
    return found is not None and found is _class_named(previous)


def _arguments_nested(value: dict[str, Any]) -> dict[str, Any]:
    """A class's mapping with its arguments under ``init_args``, where a flag puts them beside
    the class (``--optimizer.lr 0.1``: ``{class_path: ..., lr: 0.1}``); a section's mapping
    that names no class (``model: {dropout: 0.1}``) as it is."""
    if not set(value) & {CLASS_PATH_KEY, INIT_ARGS_KEY}:
        return value
    arguments = {key: each for key, each in value.items() if key not in CLASS_KEYS}
    nested = {key: each for key, each in value.items() if key in CLASS_KEYS}
    held = value.get(INIT_ARGS_KEY)
    if arguments:
        nested[INIT_ARGS_KEY] = {**(held if isinstance(held, dict) else {}), **arguments}
    return nested


# the keys of a class entry in a list of classes (``--trainer.callbacks.init_args.KEY``)
CLASS_PATH_KEY = "class_path"
INIT_ARGS_KEY = "init_args"


def class_list_words(words: list[str], options: set[str]) -> list[str]:
    """``words`` with every word of each list option of ``options`` (``--trainer.callbacks``)
    folded into one ``--trainer.callbacks=[{"class_path": ..., "init_args": {...}}, ...]`` where
    the first stood: ``OPTION CLASS`` starts the list again, ``OPTION+=CLASS`` adds a class,
    ``OPTION.KEY VALUE`` (or ``.init_args.KEY``) is an argument of the last class given, as
    LightningCLI reads them. An option whose words give no class first, or give the list as a
    YAML mapping or list, is left as it is (the check of fit's config names that)."""
    for option in sorted(options):
        words = _folded(words, option)
    return words


def _folded(words: list[str], option: str) -> list[str]:
    """:func:`class_list_words` for one ``option``."""
    out: list[str] = []
    classes: list[dict[str, Any]] = []
    at: int | None = None  # where the folded option stands in ``out``
    index = 0
    while index < len(words):
        word = words[index]
        name, equals, attached = word.partition("=")
        key = _key(name.removesuffix("+"), option)
        if key is None:
            out.append(word)
            index += 1
            continue
        value = attached if equals else (words[index + 1 : index + 2] or [""])[0]
        taken = 1 if equals else 2
        literal = value.lstrip().startswith(("{", "["))
        if literal or (key not in ("", CLASS_PATH_KEY) and not classes):
            return words  # a config's form, or an argument before any class: said by fit's check
        if key in ("", CLASS_PATH_KEY):
            entry = {CLASS_PATH_KEY: value}
            classes = [*classes, entry] if name.endswith("+") else [entry]
        else:
            classes[-1].setdefault(INIT_ARGS_KEY, {})[key.removeprefix(f"{INIT_ARGS_KEY}.")] = value
        if at is None:
            at = len(out)
            out.append("")
        index += taken
    if at is not None:
        out[at] = f"{option}={json.dumps(classes)}"
    return out


def _key(name: str, option: str) -> str | None:
    """What ``name`` sets under ``option``: ``""`` for the option itself, ``monitor`` for
    ``option.monitor``; None for another option."""
    if name == option:
        return ""
    return name.removeprefix(f"{option}.") if name.startswith(f"{option}.") else None


def negative_values_attached(words: list[str]) -> list[str]:
    """``--lengths -8,16`` as ``--lengths=-8,16`` (``-inf``, ``-1e-3`` alike): argparse reads a
    word that starts with a dash as an option unless it is one plain negative number, so the
    value would go missing and the parser say "expected one argument" instead of what is wrong
    with it."""
    out: list[str] = []
    for word in words:
        previous = out[-1] if out else ""
        if NEGATIVE_VALUE.fullmatch(word) and previous.startswith("--") and "=" not in previous:
            out[-1] = f"{previous}={word}"
        else:
            out.append(word)
    return out


def integer_problems(options: object, least: dict[str, int]) -> list[str]:
    """``--NAME V: expected a positive integer`` (or non-negative, for a least value of 0)
    for each field of ``options`` named in ``least`` that is set and below its least value, or
    a bool (``true`` in a YAML file is an int to Python, not a count)."""
    problems = []
    for name, smallest in least.items():
        value = getattr(options, name)
        if value is not None and (isinstance(value, bool) or value < smallest):
            kind = "positive" if smallest else "non-negative"
            option, text = as_typed(name, value)
            problems.append(f"{option} {text}: expected a {kind} integer")
    return problems


MAX_BATCH_SIZE = 1_000_000
"""The most sentences a batch may hold: more than any benchmark's split (SNLI's training split,
the largest, has 550,152), so a larger one is a typo (``1e20``), refused before any work."""


def batch_size_problems(option: str, value: int | None, text: str | None = None) -> list[str]:
    """``[]`` unless the integer ``value`` (``text`` as typed) is above
    :data:`MAX_BATCH_SIZE` (a value below 1 is :func:`integer_problems`')."""
    if type(value) is not int or value <= MAX_BATCH_SIZE:
        return []
    return [
        f"{option} {value if text is None else text}: a batch holds at most "
        f"{MAX_BATCH_SIZE:,} sentences (more than any benchmark's split)"
    ]


def names(text: str, option: str) -> list[str]:
    """A comma-separated list of names, at least one (:class:`InputError` otherwise)."""
    listed = [name.strip() for name in text.split(",") if name.strip()]
    if not listed:
        raise InputError(f"{option}: expected a comma-separated list such as trec,sst2")
    return listed


def choice_problems(option: str, value: str | None, allowed: Iterable[str]) -> list[str]:
    """``[]`` when ``value`` is one of ``allowed`` (or unset), else the problem, with the
    nearest choice: a choice is checked here, not by a ``Literal`` type, to name it."""
    allowed = list(allowed)
    if value is None or value in allowed:
        return []
    return [f"{option} {value}: expected one of {', '.join(allowed)}{did_you_mean(value, allowed)}"]


def encoder_choice_problems(option: str, text: str | None) -> list[str]:
    """``[]`` for a registered encoder's name (or unset); else the problem in the wording every
    command shares with ``profile``: the nearest name (``bi_blosn``), or for a variant
    ``NAME:KEY=VALUE`` the options its builder does not take, each with the nearest one
    (``attention_imp``: did you mean attention_impl?), or, where a command takes one name,
    where the options go (``--model.encoder_options``)."""
    from encoders import list_encoders, unknown_options_problem

    known = list_encoders()
    from harness.measurement.profiled_step import variant_parts

    name, variant, parts = variant_parts(text or "")
    if text is None or text in known or not variant or name not in known:
        return choice_problems(option, name if variant else text, known)
    written = [(key, eq, value) for key, eq, value in parts if (key + eq + value).strip()]
    unknown = unknown_options_problem(name, [key.strip() for key, _, _ in written])
    if unknown:
        return [f"{option} {text}: {unknown}"]
    given = ", ".join(key + (": " if eq else "") + value for key, eq, value in written)
    return [
        f"{option} {text}: takes an encoder's name only; give its options as "
        f"--model.encoder_options '{{{given}}}'"
    ]


def flat_keys(mapping: dict[str, Any], prefix: str = "") -> Iterator[str]:
    """The dotted keys of a nested mapping's leaves (``trainer.max_epochs``)."""
    for key, value in mapping.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            yield from flat_keys(value, dotted + ".")
        else:
            yield dotted


def known_keys(parser: ArgumentParser) -> set[str]:
    """Every key ``parser`` accepts, dotted (``model.dropout``), from its own defaults."""
    return set(parser.get_defaults().keys())


def accepted(key: str, known: set[str]) -> bool:
    """``key`` is a known key, a section holding known keys (``model``), or an entry inside a
    known mapping or class value (``model.encoder_options.block``)."""
    return key in known or any(
        other.startswith(key + ".") or key.startswith(other + ".") for other in known
    )


def unknown_keys(keys: Iterable[str], known: set[str]) -> list[str]:
    """Each key of ``keys`` that is not :func:`accepted`, with the nearest known key."""
    return [f"{key}{did_you_mean(key, known)}" for key in keys if not accepted(key, known)]


def unknown_options(words: Iterable[str], parser: ArgumentParser) -> list[str]:
    """Each ``--option`` of ``words`` that ``parser`` does not take, with the nearest one.

    A dash spelling stands for the underscore key (``--data-dir``: ``data_dir``),
    ``--KEY+`` for an item appended to a list option (``--trainer.callbacks+=X``), and
    ``--no-KEY`` for a yes/no option; ``parser.aliases`` adds options that are not keys."""
    return without_unknown_options(list(words), parser)[0]


def without_unknown_options(
    words: list[str], parser: ArgumentParser
) -> tuple[list[str], list[str], set[str]]:
    """The lines of :func:`unknown_options`, ``words`` without each unknown option and its
    value (the next word, unless the value is attached with ``=``, the next word is an option
    or one of ``parser.positional_words``: ``data --verbos stats``), so that the rest is
    judged in the same refusal (an option of one dash, ``-x``, alike; a misspelt command's
    word, ``data --verbos stat``, is the command's, not a value), and the options their near
    names name (whose absence the
    unknown one's line says already). A section's file that is not there (``--optimizer
    /x/sgd.yaml``) is said so and left out alike (jsonargparse dumped its own message)."""
    known = known_keys(parser)
    aliases: set[str] = getattr(parser, "aliases", set())
    spelled = {f"--{k.replace('_', '-')}" for k in known if "." not in k}
    spelled |= {f"--{k}" for k in known if "." in k} | aliases | set(PARSER_SPELLINGS)
    problems: list[str] = []
    rest: list[str] = []
    meant: set[str] = set()
    index = 0
    while index < len(words):
        word = words[index]
        option, equals, attached = word.partition("=")
        option = option.removesuffix("+")  # jsonargparse's append: KEY+=VALUE
        key = option.removeprefix("--").replace("-", "_")
        index += 1
        if key in SECTION_FILES and accepted(key, known):
            value = attached if equals else (words[index : index + 1] or [""])[0]
            if _missing_section_file(value):
                problems.append(  # a path's problem: no pointer alone (errors.refusal)
                    FilesProblem(f"{option} {value}: no such file (a file of the section's values)")
                )
                unread_sections(parser, [key])
                index += 0 if equals else 1
                continue
        one_dash = SHORT_OPTION.fullmatch(option) and option not in parser._option_string_actions
        if not one_dash and (
            not word.startswith("--")
            or option in aliases
            or option in PARSER_SPELLINGS
            or accepted(key, known)
            or (key.startswith("no_") and key.removeprefix("no_") in known)
        ):
            rest.append(word)
            continue
        near = _nearest_option(option, spelled)
        problems.append(f"unknown option {option}{f' (did you mean {near}?)' if near else ''}")
        meant |= {near} if near else set()
        positional = getattr(parser, "positional_words", set())
        value = words[index] if not equals and index < len(words) else "-"
        if not value.startswith("-") and nearest(value, positional) is None:
            index += 1  # its value, unless the command's word (or one misspelt: stat)
    return problems, rest, meant


# argparse's words for the words left over once every option and positional took its own
UNRECOGNIZED = re.compile(r"unrecognized arguments: (.+)")


def without_extra_words(words: list[str], extra: str) -> list[str] | None:
    """``words`` without the last of each word of ``extra`` (argparse's leftover words, joined
    by spaces) that is no option; None when one is not among them as a word."""
    rest = list(words)
    for word in reversed(extra.split(" ")):
        found = [i for i, w in enumerate(rest) if w == word and not w.startswith("-")]
        if not found:
            return None
        del rest[found[-1]]
    return rest


def no_option_takes(word: str) -> str:
    """The line of a word that no option takes (``fit extra ...``), in every command's words."""
    return f"extra word {word}: no option takes it (an option's value follows its --NAME)"


SHORT_OPTION = re.compile(r"-[A-Za-z_]\S*")  # an option of one dash (-x), not a number


def _missing_section_file(value: str, path: str | None = None) -> bool:
    """Whether a section's value (``--optimizer VALUE``) names a file (a path, or a name ending
    ``.yaml``) that is not there (at ``path``, where a config file's value is read; else at
    ``value``); a class path, a mapping or null names none."""
    names_file = "/" in value or value.endswith(SECTION_FILE_SUFFIXES)
    there = expanded(path or value).exists()
    return names_file and not value.lstrip().startswith("{") and not there


def _nearest_option(option: str, spelled: set[str]) -> str | None:
    """The option of ``spelled`` nearest ``option``, by ``did_you_mean``'s measure over
    ``spelled`` and the first words of each (``--tables`` of ``--tables-only``: ``--tabel`` is
    nearer to it than to ``--trainer``); None when none is near."""
    full: dict[str, str] = {}
    for name in sorted(spelled, key=len, reverse=True):
        words = re.split(r"(?<=\w)[-_](?=\w)", name.removeprefix("--"))
        for count in range(1, len(words)):
            full[f"--{'-'.join(words[:count])}"] = name
    full |= {name: name for name in spelled}
    close = nearest(option, full)
    return full[close] if close else None


def not_meant(lines: Iterable[str], meant: set[str]) -> list[str]:
    """``lines`` without those that say an option of ``meant`` is required (``--input is
    required: ...``): an unknown option's line names it already as the one meant."""
    return [line for line in lines if line.partition(" is required")[0] not in meant]


def moved_copy(path: Path, content: dict[str, Any], command: str) -> tuple[Path, str] | None:
    """The ``out`` that the config file ``path`` names and why it is refused, when ``path`` is
    the copy a run folder keeps of its own config (``fit_config.yaml``, ``OUT/suite-config-K-
    of-N.yaml``, ...: in a folder ``command`` made, its records say: a user's config named
    ``fit_config.yaml`` makes no run folder) and that ``out`` (absolute, as the copies
    write it) is another folder: the folder was moved since (that ``out`` gone) or copied
    (still there), and its copy would run on the old place, or on the original. None
    otherwise (a relative ``out``, a study's ``best_config.yaml``: a fit config in a folder
    tune made). Both folders are said absolute and normalised (``b/../c`` as ``/abs/c``)."""
    out = content.get("out")
    folder = absolute(path).parent
    if not isinstance(out, str) or not Path(out).is_absolute():
        return None
    if not made_by_sanbench(folder) or made_by(folder) != command:
        return None
    if Path(out).resolve() == folder.resolve():
        return None
    made = kernel_path(out)
    if Path(out).is_dir():  # the original still there: a new run may be meant
        return Path(out), (
            f"--config {path}: the config of the run folder {made}, copied to {folder}: it "
            f"runs in {made}, which is still there, not in the copy; to run it in the copy, "
            f"add --out {folder} (for a new run, an --out of a new folder)"
        )
    return Path(out), (
        f"--config {path}: the config of a run folder made in {made} and moved since, which "
        f"sanbench does not follow; to run it where it is now, add --out {folder}"
    )


def out_taken(parser: ArgumentParser, config: Namespace) -> None:
    """The one place every command takes its parsed ``out`` (a folder or a file): made the
    path the kernel writes to (:func:`kernel_path`: ``--out L/../runs/f1``, ``L`` a symlink,
    is the link's target's ``runs/f1``, as a config file's ``out`` is read; until 2026-12-01 a
    run's checkpoint path dropped ``L/..`` by name and the run failed after training), then
    :func:`check_not_moved` on the value as given."""
    out = config.get("out")
    if isinstance(out, str | Path) and str(out) and not str(out).startswith("~"):
        config["out"] = type(out)(kernel_path(out))
    check_not_moved(parser, out)


def check_not_moved(parser: ArgumentParser, out: Any) -> None:
    """Raise :class:`UsageError` when ``out``, the folder the parsed config runs in, is the
    old place a moved folder's config copy names (:func:`moved_copy`, noted by
    :class:`CheckedConfigFile` as it read the copy): a later ``--out`` runs it elsewhere."""
    problem = getattr(parser, "moved_copies", {}).get(Path(out)) if out is not None else None
    if problem:
        raise UsageError(problem)


FOUND = {list: "a list", str: "text", int: "a number", float: "a number", bool: "a yes/no"}


def section_file_content(
    path: str | Path, section: str, known: set[str]
) -> tuple[dict[str, Any] | None, list[str]]:
    """The mapping that the file of ``section``'s values at ``path`` holds (``--model m.yaml``,
    a config file's ``model: m.yaml``), its keys that ``known`` (the parser's) does not take
    left out; and one line per problem in sanbench's words (``unknown key bogus``, ``expected a
    mapping of model's keys (found a list)``, a YAML error with its line). None for a file that
    holds no mapping (a folder, an empty file, a list, not YAML)."""
    what = f"expected a mapping of {section}'s keys"
    try:
        if expanded(path).is_dir():
            return None, [f"a folder; {what} (a YAML file)"]
        content = yaml.safe_load(config_text(path))
    except OSError as error:
        return None, [error.strerror or str(error)]
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(error, "problem", None) or message_line(error)
        return None, [f"not YAML ({where}{problem}); {what}"]
    except (UnicodeDecodeError, ValueError) as error:  # bad bytes, thousands of digits
        return None, [f"not readable ({message_line(error)}); {what}"]
    if content is None:
        return None, [f"empty; {what}"]
    if not isinstance(content, dict):
        return None, [f"{what} (found {FOUND.get(type(content), type(content).__name__)})"]
    content, problems = section_keys_known(content, section, known)
    return section_paths_beside(content, section, path), problems


def section_keys_known(
    content: dict[str, Any], section: str, known: set[str]
) -> tuple[dict[str, Any], list[str]]:
    """``content``, a mapping of ``section``'s values (a file's, an option's ``{...}``), without
    its keys that ``known`` (the parser's) does not take; and one line per such key, named as
    the mapping writes it, with the nearest of the section's keys: ``unknown key bogus``."""
    inside = {key.removeprefix(f"{section}.") for key in known if key.startswith(f"{section}.")}
    problems = []
    for key in list(flat_keys(content)):
        if not accepted(f"{section}.{key}", known):
            problems.append(f"unknown key {key}{did_you_mean(key, inside)}")
            content = dict(without_dotted(content, key))
    return content, problems


def section_files_read(
    content: dict[str, Any], config: Path, sections: Iterable[str], known: set[str]
) -> tuple[dict[str, Any], dict[str, str | None], list[str]]:
    """``content`` of the config file ``config`` with each section of ``sections`` (``model``,
    ``optimizer``) that names a file (``model: m.yaml``) as the section the file holds, as fit
    reads it: a relative name beside the config file, as jsonargparse reads it; for each such
    key, the file read (None for a file that is not there, its value kept); and the problems
    of the files read (:func:`section_file_content`), ``model m.yaml: unknown key bogus``: a
    file holding no mapping is left out, so is a key that ``known`` does not take."""
    content = dict(content)
    read: dict[str, str | None] = {}
    problems: list[str] = []
    for key in sorted(sections):
        value = content.get(key)
        if not isinstance(value, str) or YAML_NULL.fullmatch(value.strip()):
            continue
        name = str(beside_file(config, value))
        if Path(name).exists():
            section, lines = section_file_content(name, key, known)
            problems += [f"{key} {value}: {line}" for line in lines]
            if section is None:
                del content[key]
            else:
                content[key] = section or None
            read[key] = name
        elif _missing_section_file(value, name):
            read[key] = None
    return content, read, problems


def file_sections(known: set[str]) -> list[str]:
    """The sections of :data:`SECTION_FILES` among the parser keys ``known`` (a file may fill
    each)."""
    return [key for key in SECTION_FILES if key in known or accepted(key, known)]


CONFIG_OPTIONS = ("--config", "-c")
# every key of a config file naming a file or folder, read beside the config file as its
# section files are (jsonargparse's rule; docs/training.md "Config files"): tune's --space,
# predict's and encode's --input and --ckpt, every command's --data-dir, --embeddings and
# --out, data stats' --cache-dir, fit's data section, report's run folders
FILE_KEYS = (
    *("space", "input", "ckpt", "data_dir", "embeddings", "cache_dir", "out", "runs"),
    *("data.data_dir", "data.embeddings"),
)


def _beside(value: Any, config: Path) -> Any:
    """``value`` (a path, or a list of them) with each relative path made the path beside the
    config file ``config``; None where nothing changes (absolute, ``~``, null, no text, a
    config with no folder of its own: :func:`file_folder`)."""
    if isinstance(value, list):
        moved = [_beside(item, config) for item in value]
        changed = any(item is not None for item in moved)
        return [new or old for new, old in zip(moved, value, strict=True)] if changed else None
    if not isinstance(value, str) or not value.strip() or YAML_NULL.fullmatch(value.strip()):
        return None
    if expanded(value).is_absolute() or (folder := file_folder(config)) is None:
        return None
    return str(kernel_path(folder / value))  # as beside_file


def path_text(value: int | float, written: str | None) -> str:
    """A path key's value YAML read as a number or a boolean (``017`` as 15, ``yes`` as
    true) as its file writes it (``written``, :func:`config_typed`'s): a folder's name."""
    return written if written is not None else yaml_text(value)


def section_paths_beside(content: Any, section: str, file: str | Path) -> Any:
    """The mapping ``content`` of ``section``'s file ``file`` (``data: sub/d.yaml``, ``--data
    d.yaml``) with each relative path of :data:`FILE_KEYS` under that section (``data_dir``)
    made the path beside that file, as a config file's own are: a path in a file is read beside
    that file. Any other value as given."""
    if not isinstance(content, dict):
        return content
    moved = {
        leaf: new
        for key in FILE_KEYS
        if key.startswith(f"{section}.")
        and (new := _beside(content.get(leaf := key.removeprefix(f"{section}.")), Path(file)))
        is not None
    }
    return {**content, **moved}


def files_beside(content: dict[str, Any], config: Path, known: set[str]) -> dict[str, Any]:
    """Each key of :data:`FILE_KEYS` that ``content`` (of the config file ``config``) gives as
    a relative path -> that path beside the config file, as its section files are read: the
    one rule for a config file's paths (a flag's stay the working folder's). A number or a
    YAML boolean is a name, as the file writes it (``out: 017``, ``out: yes``, as ``--out
    yes``). A key under a section (``data.data_dir``) is given as its section's mapping with
    that path changed."""
    beside: dict[str, Any] = {}
    written = {key: text for key, (_, text) in config_typed("", str(config)).items()}
    for key in FILE_KEYS:
        section, _, leaf = key.rpartition(".")
        holder = beside.get(section, content.get(section)) if section else content
        if not accepted(key, known) or not isinstance(holder, dict):
            continue  # a key of a mapping option too (suite's data: {data_dir: d})
        given = holder.get(leaf)
        named = isinstance(given, int | float)  # a YAML boolean too (out: yes): a name
        text = path_text(given, written.get(key)) if named else given
        if (moved := _beside(text, config) or (text if named else None)) is None:
            continue
        if section:
            beside[section] = {**holder, leaf: moved}
        else:
            beside[key] = moved
    return beside


# what each option of one or more words takes, for a config file's value of no such shape
LISTED_NOUNS = {"runs": "run folder", "lengths": "length", "predict_lengths": "length"}


def listed_values(
    content: dict[str, Any], parser: ArgumentParser, said: str
) -> tuple[dict[str, Any], list[str]]:
    """The values of a config file's ``content`` for an option of one or more words (a
    positional's, ``report``'s ``runs``; a comma list's, ``tasks``) as that option reads them,
    and the problems of those of no such shape, said as the file (``said``) writes them: a
    scalar is a list of one (``runs: /x``, as on the command line), a number its text
    (``lengths: 8``); an empty list, a mapping or a list of lists is refused
    (``encoders []: expected at least one encoder``), its key left out to judge the rest."""
    positional = {action.dest for action in parser._actions if action.nargs == "+"}
    listed = positional | getattr(parser, "comma_lists", set())
    values: dict[str, Any] = {}
    problems: list[str] = []
    for key, value in content.items():
        if key not in listed or value is None:
            continue
        noun = LISTED_NOUNS.get(key, key.removesuffix("s"))
        entries = value if isinstance(value, list) else [value]
        if isinstance(value, dict) or any(isinstance(e, dict | list) for e in entries):
            shown = yaml_text(value)
            problems.append(f"{said}: {key} {shown}: expected one {noun} or a list of {noun}s")
        elif not entries:
            problems.append(f"{said}: {key} []: expected at least one {noun}")
        elif key in positional:
            values[key] = [e if isinstance(e, str) else yaml_text(e) for e in entries]
        elif not isinstance(value, list | str):
            values[key] = yaml_text(value)  # lengths: 8 as --lengths 8
    return values, problems


def yaml_text(value: Any) -> str:
    """``value`` as YAML's flow style writes it on one line: ``{bilstm: 1}``, ``8``, ``true``."""
    return yaml.safe_dump(value, default_flow_style=True, width=1 << 30).split("\n")[0]


def config_file_problem(option: str, value: str, prog: str) -> str | None:
    """The problem of the ``--config`` file ``value`` that leaves none of its options read, in
    sanbench's words: not there (a :class:`FilesProblem`, naming the path looked at), not
    YAML (its line), no mapping (``found a list``); None for a file of options."""
    path = expanded(value)
    said = f"{option} {value}"
    try:
        if path.is_dir():
            return f"{said}: a folder; expected a YAML file of options"
        content = yaml.safe_load(config_text(path))
    except FileNotFoundError:
        return FilesProblem(f"{said}: no such file: {path.absolute()}")
    except OSError as error:
        return FilesProblem(f"{said}: {error.strerror or error}: {path.absolute()}")
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(error, "problem", None) or message_line(error)
        return (
            f"{said}: not YAML ({where}{problem}); fix the file or re-create it with "
            f"`{prog} ... --print_config > FILE`"
        )
    except ValueError as error:  # an integer of thousands of digits: Python's limit
        if TOO_MANY_DIGITS.search(str(error)):
            return None  # said by the config action, key by key
        return f"{said}: not readable ({message_line(error)})"
    if content is None:
        return f"{said}: empty; expected a mapping of options, as --print_config writes"
    if isinstance(content, dict):
        return None
    found = FOUND.get(type(content), type(content).__name__)
    return f"{said}: expected a mapping of options, as --print_config writes (found {found})"


def broken_configs_left_out(words: list[str], prog: str) -> tuple[list[str], list[str]]:
    """``words`` without each ``--config FILE`` (``-c``) whose file gives no options
    (:func:`config_file_problem`), and those files' problems: the rest of the command line is
    judged beside them. One reader of ``--config`` files for every command: ``-c -`` is
    standard input (:func:`config_text`), named ``-`` as typed."""
    problems: list[str] = []

    def rewrite(given: OptionWord) -> tuple[list[str], bool] | None:
        if given.option not in CONFIG_OPTIONS or not (given.attached or given.rest):
            return None
        if (problem := config_file_problem(given.option, given.value, prog)) is not None:
            problems.append(problem)
            return [], True
        return given.given, True

    kept = rewritten_options(words, rewrite)
    return kept, problems


def _absolute(value: Any) -> Any:
    """A path (or a list of them) as ``--print_config`` writes it: absolute and normalised
    (``/abs/data``, not ``other/../data``; links kept: :func:`absolute`), ``~`` as written;
    another value as given."""
    if isinstance(value, list):
        return [_absolute(item) for item in value]
    if isinstance(value, str | Path) and str(value)[:1] not in ("", "~"):
        return str(absolute(value))
    return value


# the words a yes/no flag (jsonargparse's ActionYesNo) takes for true or false
YES_NO_WORDS = ("true", "yes", "false", "no")


def yes_no_problems(
    content: Mapping[str, Any], parser: ArgumentParser, option: str, path: str
) -> dict[str, str]:
    """Each key of a config file's ``content`` that is a yes/no flag of ``parser``
    (``overwrite``) holding a value that is not true or false (``overwrite: 5``) -> its line,
    the value as the file writes it (``--config c.yaml: overwrite 5: expected true or false``),
    not jsonargparse's "Value not boolean: 5." naming neither the key nor the file."""
    flags = {action.dest for action in parser._actions if isinstance(action, ActionYesNo)}
    typed = typed_options([option, path])
    problems = {}
    for key in flags & set(content):
        value = content[key]
        if isinstance(value, bool) or (isinstance(value, str) and value.lower() in YES_NO_WORDS):
            continue
        named, text = typed_entry(typed, key) or (f"{option} {path}: {key}", str(value))
        problems[key] = f"{named} {text}: expected true or false"
    return problems


class CheckedConfigFile(ActionConfigFile):
    """``--config FILE``: jsonargparse's config file, whose keys are checked first: every
    unknown key is named, with the nearest valid one, before any value is applied. The copy
    of a folder moved since is noted (:func:`moved_copy`, refused by :func:`check_not_moved`
    when no later ``--out`` is given). A key of :attr:`EMPTY_IS_UNSET` holding an empty
    mapping is read as not given."""

    # keys whose ``{}`` means "not given" (a class option's: fit's ``lr_scheduler: {}``, as
    # suite's --print_config writes an unset one, is jsonargparse's base class with no argument)
    EMPTY_IS_UNSET: tuple[str, ...] = ()

    def __call__(self, parser, cfg, values, option_string=None):  # type: ignore[override]
        path = expanded(str(values))
        try:
            text = config_text(path)
            content = yaml.safe_load(text)
        except OSError as error:
            raise UsageError(f"{option_string} {path}: {error.strerror}") from None
        except ValueError as error:  # an integer of thousands of digits: Python's limit
            if not TOO_MANY_DIGITS.search(str(error)):
                raise
            raise UsageError(long_numbers_problem(option_string, str(values))) from None
        except yaml.YAMLError as error:
            raise UsageError(
                f"{path}: not YAML ({message_line(error)}); fix the file or re-create it with "
                f"`{parser.prog} ... --print_config > FILE`"
            ) from None
        if not isinstance(content, dict):
            raise UsageError(f"{path}: expected a mapping of options, as --print_config writes")
        command = parser.prog.removeprefix("sanbench ").partition(" ")[0]  # data stats: data
        if moved := moved_copy(path, content, command):
            parser.moved_copies = {**getattr(parser, "moved_copies", {}), moved[0]: moved[1]}
        known = known_keys(parser)
        listed, shapes = listed_values(content, parser, f"{option_string} {values}")
        content = {**content, **listed}  # report's runs: /x, as [/x]; lengths: 8 as 8
        beside = listed | files_beside(content, path, known)  # space: sp.yaml, beside it
        content = {**content, **beside}
        content, read, in_files = section_files_read(content, path, file_sections(known), known)
        merged = sections_merged(content, cfg)  # an earlier model: {...} kept key by key
        content = {**content, **merged}
        unknown = [key for key in flat_keys(content) if not accepted(key, known)]
        problems = [
            f"{option_string} {path}: unknown key {key}" for key in unknown_keys(unknown, known)
        ]
        not_yes_no = yes_no_problems(content, parser, option_string, str(values))
        problems += [*shapes, *not_yes_no.values()]
        said = f"{option_string} {values}: "
        refused = [*(line.removeprefix(said).partition(" ")[0] for line in shapes), *not_yes_no]
        for key in refused:  # refused: the rest judged without it, not named missing
            content = dict(without_dotted(content, key))
            parser.refused_in_files = getattr(parser, "refused_in_files", set()) | {key}
        problems += [  # a path's problem alone: no pointer to the help (errors.refusal)
            FilesProblem(
                f"{option_string} {path}: {key} {content[key]}: no such file: "
                f"{beside_file(path, content[key])} (a file of the "
                "section's values, read beside the config file)"
            )
            for key, name in read.items()
            if name is None
        ]
        unread = [  # a file not there, or holding no mapping (an empty one holds nothing)
            key
            for key, name in read.items()
            if name is None or (key not in content and not holds_nothing(name))
        ]
        unread_sections(parser, unread)  # a file not there, or holding no mapping
        problems += [f"{option_string} {path}: {line}" for line in in_files]
        collected = getattr(parser, "section_problems", None)  # fit's: said beside every other
        if problems and collected is None:
            raise UsageError("\n".join(problems))
        if problems:
            collected.update(dict.fromkeys(problems))
            for key in [*unknown, *(key for key, name in read.items() if name is None)]:
                content = dict(without_dotted(content, key))
            read = {key: name for key, name in read.items() if name is not None}
        dropped = getattr(parser, "dropped_keys", {}).get(str(values), ())
        dropped = [*dropped, *(key for key in self.EMPTY_IS_UNSET if content.get(key) == {})]
        for key in dropped:  # refused already: the rest of the file is judged without them
            content = without_dotted(content, key)
        changed = bool(dropped or read or problems or beside or merged)  # a key left out or moved
        if changed:
            text = yaml.safe_dump(content)
        # a pipe's text, read once, is handed over as a config string (jsonargparse takes one)
        given = values if path.is_file() and str(values) != "-" and not changed else text
        for key in merged:  # the file's value holds the one before (jsonargparse failed on it)
            cfg[key] = None
        super().__call__(parser, cfg, given, option_string)


class NullsChecked(ArgumentParser):
    """A parser that judges a null against its option's type: jsonargparse takes a config's
    null (a file's ``fold: ~``, a mapping's None) for "unset" and checks it nowhere, so
    ``data: {fold: ~}`` reached the datamodule as None (an internal error) where ``--data.fold
    null`` is refused. A required key left null is named as missing, as without the key."""

    def validate(self, namespace: Namespace, skip_unset: bool = True, **kwargs: Any) -> None:
        super().validate(namespace, skip_unset=skip_unset, **kwargs)
        if not skip_unset or kwargs.get("branch") is not None:
            return  # every value judged already, or a branch's keys are not the parser's
        required = {action.dest for action in self._actions if action.required}
        options = {action.dest for action in self._actions} - required
        nulls = Namespace()
        for key, value in namespace.items():
            if value is None and key in options:
                nulls[key] = None
        if nulls:
            super().validate(nulls, skip_unset=False, skip_required=True)


class MissingOptionsError(UsageError):
    """Required options or words not given (by the words or a ``--config`` file)."""


def required_word(action: argparse.Action) -> str:
    """A required option or word as a user types it, and what it takes, for a refusal that
    names it: ``--out is required: folder for the site``, ``RUNS... is required: run
    folders``, ``ACTION is required: one of stats`` (not argparse's "the following arguments
    are required: runs, out")."""
    if action.option_strings:
        named = action.option_strings[0]
    else:
        named = action.dest.upper() + ("..." if action.nargs == "+" else "")
    choices = action.choices
    what = f"one of {', '.join(choices)}" if choices else " ".join(action.help.split())
    return f"{named} is required: {what}"


class ClassOption(ActionTypeHint):
    """A mapping option spelled as LightningCLI spells a class (suite's ``--optimizer``): each
    value given (``--optimizer '{class_path: torch.optim.SGD}'``, ``--optimizer.lr 0.1``)
    over the one before (a ``--config`` file's) by fit's rule (:func:`class_merged`), where
    jsonargparse failed on a class set again over a file's mapping."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not args:  # argparse making the option's action: this class's
            return ClassOption(_typehint=self._typehint, _enable_path=self._enable_path, **kwargs)
        parser, cfg, value, option = args
        previous = cfg.get(self.dest)
        cfg[self.dest] = None  # parsed alone, then merged
        super().__call__(parser, cfg, value, option)
        cfg[self.dest] = class_merged(previous, cfg.get(self.dest))
        return None


class CommandParser(NullsChecked):
    """A ``sanbench`` command's parser: ``--config``/``--print_config``, options added from
    dataclasses (:meth:`add_options`), and :meth:`parse` raising :class:`InputError`."""

    def __init__(self, prog: str, description: str | None = None, **kwargs: Any) -> None:
        super().__init__(
            prog=prog,
            description=description,
            exit_on_error=False,
            formatter_class=argparse.RawDescriptionHelpFormatter,
            **kwargs,
        )
        self.aliases: set[str] = set()
        self.positional_words: set[str] = set()  # a positional's choices (``data stats``)
        self.class_options: set[str] = set()  # options spelled as a class (class_path_words)
        self.class_lists: set[str] = set()  # keys spelled as a list of classes (class_list_words)
        self.comma_lists: set[str] = set()  # keys of a comma list (listed_values)
        self.refused_in_files: set[str] = set()  # a config file's keys refused (listed_values)
        self.checked: list[type] = []  # the dataclasses :meth:`add_options` added: built to check
        self.dumping = False  # within :meth:`dump`: a config printed needs no required option
        # a command's check of the other values when a required option is left out (its
        # problems are said beside that option's: :meth:`_beside_missing`), and while it parses
        self.beside_missing: Callable[[Namespace], list[str]] | None = None
        # a command's check of the values its runs take (each run's fit config), made before a
        # --print_config is printed, a required option left out too (a file to fill in): the
        # options built, their own problems said beside the runs' values' (``--seeds 0`` beside
        # ``--model.hidden_dim 0``), as the run says them
        self.printed_values_problems: Callable[[Namespace], list[str]] | None = None
        self.required_later = False
        self.add_argument(
            *CONFIG_OPTIONS,  # -c too, as fit's LightningCLI takes it
            action=CheckedConfigFile,
            help="a YAML file of options (as --print_config writes it); later flags override it",
        )

    def add_options(self, options: type) -> None:
        """One option per field of the dataclass ``options``, with its type, default and
        attribute docstring; a ``bool`` field is a yes/no flag (``--KEY``, ``--no-KEY``), a
        field with ``metadata={"positional": True}`` a word without an option name, and a
        dataclass field adds its own fields at the same level (:func:`build` nests them)."""
        self.checked.append(options)
        self._add_fields(options)

    def _add_fields(self, options: type) -> None:
        hints = typing.get_type_hints(options)
        docs = field_docs(options)
        for field in dataclasses.fields(options):
            hint = hints[field.name]
            if dataclasses.is_dataclass(hint):
                self._add_fields(hint)
                continue
            if field.metadata.get("positional"):
                self._add_positional(field, hint, docs.get(field.name, ""))
                continue
            names = [f"--{field.name.replace('_', '-')}"]
            if "_" in field.name:
                names.append(f"--{field.name}")
            if field.metadata.get("class_path"):
                self.class_options |= set(names)
            self.class_lists |= {
                f"{names[0]}.{key}" for key in field.metadata.get("class_lists", ())
            }
            default = _default(field)
            help_text = docs.get(field.name, "").replace("%", "%%")  # argparse formats help
            if hint is bool:
                action = ActionYesNo(no_prefix="no-")
                self.add_argument(
                    *names, dest=field.name, action=action, default=default, help=help_text
                )
                continue
            shown = "" if default in (None, {}, dataclasses.MISSING) else f" (default {default})"
            if field.metadata.get("comma_list"):  # a config file's [trec, mr] too (:func:`build`)
                hint = hint | tuple[int | str, ...]
                self.comma_lists.add(field.name)
            self.add_argument(
                *names,
                dest=field.name,
                **(  # a class option's null: none
                    {"action": ClassOption(typehint=hint | None)}
                    if field.metadata.get("class_path")
                    else {"type": hint}
                ),
                required=default is dataclasses.MISSING,
                default=None if default is dataclasses.MISSING else default,
                help=help_text + shown,
            )

    def validate(self, namespace: Namespace, skip_unset: bool = True, **kwargs: Any) -> None:
        """Every required option or word left out (or null) named as typed, one line each
        (:func:`required_word`), before the values are judged; not of a config printed (by
        :meth:`dump`: a file to fill in)."""
        skipped = self.dumping or self.required_later or kwargs.get("skip_required")
        if not (skipped or kwargs.get("branch")):
            missing = [
                required_word(action)
                for action in self._actions
                if action.required
                and namespace.get(action.dest) is None
                and action.dest not in self.refused_in_files  # said as the file writes it
            ]
            if missing:
                raise MissingOptionsError("\n".join(missing))
        if self.required_later:  # left out: said by parse, beside the others' problems
            kwargs["skip_required"] = True
        super().validate(namespace, skip_unset=skip_unset, **kwargs)

    def dump(self, cfg: Namespace, *args: Any, **kwargs: Any) -> str:
        """The config as ``--print_config`` writes it, a class option in fit's shape: its
        arguments under ``init_args`` (``optimizer: {class_path: torch.optim.SGD, init_args:
        {lr: 0.05}}``), however given, as ``sanbench fit --print_config`` writes it; without the
        keys an options class says do not apply (its ``not_printed(values)``, if any). A class
        option not given is ``null``, as fit writes it, which every command's ``--config`` reads
        as not given (until 2026-11-30 ``{}``, which fit read so but printed ``null``)."""
        cfg = cfg.clone()
        for option in self.class_options:
            key = option.lstrip("-")
            value = cfg.get(key)
            if not value and key in cfg:
                cfg[key] = None
            if isinstance(value, dict) and value.get("class_path"):
                arguments = {k: v for k, v in value.items() if k not in CLASS_KEYS}
                nested = (value.get("init_args") or {}) | arguments  # flags, after a file's
                cfg[key] = {"class_path": value["class_path"], "init_args": nested}
        for options in self.checked:  # a choice's options left out where another is chosen
            for key in getattr(options, "not_printed", lambda _: ())(cfg):
                del cfg[key]
        for key in FILE_KEYS:  # absolute: read beside the printed file, it names the same
            section, _, leaf = key.rpartition(".")
            holder = cfg.get(section) if section else None
            if isinstance(holder, dict) and leaf in holder:  # suite's data: {data_dir: ...}
                cfg[section] = {**holder, leaf: _absolute(holder[leaf])}
            elif not isinstance(holder, dict) and key in cfg:
                cfg[key] = _absolute(cfg.get(key))
        self.dumping = True
        try:
            return super().dump(cfg, *args, **kwargs)
        finally:
            self.dumping = False

    def _add_positional(self, field: dataclasses.Field, hint: Any, help_text: str) -> None:
        """A field with ``metadata={"positional": True}``: a word without an option name (a
        ``list[X]`` field takes one or more), its ``choices`` from the metadata."""
        if typing.get_origin(hint) is list:
            self.add_argument(field.name, nargs="+", type=typing.get_args(hint)[0], help=help_text)
        else:
            choices = field.metadata.get("choices")
            self.positional_words |= set(choices or ())
            self.add_argument(field.name, type=hint, choices=choices, help=help_text)

    def parse(self, words: list[str]) -> Namespace:
        """The parsed options, and under :data:`GIVEN` the keys the words (or a ``--config``
        file) set, as opposed to the defaults; unknown options, bad config files and values the
        parser refuses raise :class:`InputError`, one line per problem. An integer of the
        command's own options not written in decimal (``--config c.yaml: max_steps 017``) is
        kept under :data:`PROBLEMS`, for :func:`build` to say beside every other problem."""
        words, broken = broken_configs_left_out(words, self.prog)  # said beside the rest
        self.section_problems: dict[str, None] = {}  # the config files' (CheckedConfigFile)
        self.refused_in_files = set()
        self.dropped_keys: dict[str, set[str]] = {}  # a file's keys refused (CheckedConfigFile)
        try:
            namespace = self._parse(words)
        except InputError as error:
            raise refusal([*broken, *self.section_problems, *error_lines(error)]) from None
        namespace[PROBLEMS] = [*broken, *self.section_problems, *namespace[PROBLEMS]]
        namespace[REFUSED] = sorted(self.refused_in_files)
        return namespace

    def _parse(self, words: list[str]) -> Namespace:
        """:meth:`parse` of ``words`` whose ``--config`` files each hold a mapping."""
        typed = typed_options(negative_values_attached(words))  # --optimizer.lr, as typed
        sections = set(file_sections(known_keys(self)))  # a class's file too, before its class
        words, lines = section_files_checked(words, sections, self)
        self.section_problems |= dict.fromkeys(lines)
        words = class_path_words(negative_values_attached(words), self.class_options)
        sections -= {option.removeprefix("--") for option in self.class_options}
        words = section_file_words(words, sections)
        words = class_list_words(words, self.class_lists)
        unknown, words, meant = without_unknown_options(words, self)  # said with the rest's
        refused: list[str] = []  # own values refused, said beside the rest (parsed without)
        while True:
            try:
                namespace = self._parsed(words, unknown, refused, typed)
                out_taken(self, namespace)
                if any(word.partition("=")[0] in CONFIG_OPTIONS for word in words):
                    namespace[RESOLVED] = self.dump(namespace, skip_validation=True)
                namespace[GIVEN] = sorted(self.parse_args(words, defaults=False).keys())
                namespace[TYPED] = typed
                break
            except argparse.ArgumentError as error:
                extra = UNRECOGNIZED.fullmatch(message_line(error))
                rest = without_extra_words(words, extra.group(1)) if extra else None
                if extra and rest is not None:  # judged without them, named beside the rest
                    refused += [self.extra_word(word) for word in extra.group(1).split(" ")]
                    words = rest
                    continue
                problem = parser_problem(error, option_spelling, typed_options(words))
                missing = set(problem.removeprefix(ARGUMENTS_REQUIRED).split(", "))
                said_by_file = missing <= self.refused_in_files  # a config file's line
                if not (problem.startswith(ARGUMENTS_REQUIRED) and said_by_file):
                    refused.append(problem + self.what_it_counts(error))
                rest = self._without_refused(words, error)
                if rest is None:  # a required option's file value refused: the rest beside
                    left = MissingOptionsError(problem) if problem not in refused else None
                    beside = self._beside_missing(words, unknown, left, typed) if left else []
                    lines = [*unknown, *refused, *not_meant(beside, meant)]
                    raise UsageError("\n".join(lines)) from None
                words = rest
            except UsageError as error:
                beside = self._beside_missing(words, unknown, error, typed)
                if not (unknown or refused or beside):
                    raise
                lines = [line for line in str(error).splitlines() if line not in unknown]
                lines = [*unknown, *refused, *not_meant([*lines, *beside], meant)]
                said = type(error)("\n".join(lines))
                said.problem_lines = lines  # a missing section file's: a FilesProblem
                raise said from None
        own = {action.dest for action in self._actions} - self.refused_in_files  # said already
        not_decimal = not_decimal_problems(
            {key: spelled for key, spelled in typed_options(words).items() if key in own},
            functools.partial(parsed_value, namespace),
        )
        namespace[PROBLEMS] = unknown + refused + not_decimal
        return namespace

    def extra_word(self, word: str) -> str:
        """The line of a word no option or positional takes (``data stats stats``), not the
        parser's "unrecognized arguments"."""
        positional = [a.dest.upper() for a in self._actions if not a.option_strings]
        if len(positional) == 1:
            command = " ".join(self.prog.split()[:2])  # sanbench data, not its action's
            return f"extra word {word}: {command} takes one {positional[0]}"
        return no_option_takes(word)

    def _beside_missing(
        self,
        words: list[str],
        unknown: list[str],
        error: UsageError,
        typed: Mapping[str, tuple[str, str]],
    ) -> list[str]:
        """What the command's :attr:`beside_missing` finds in the other values when ``error``
        names required options left out (``encode --ckpt a.ckpt --input b.txt``: the files'
        problems beside the missing ``--out``, not once it is given); [] otherwise. Its lines
        name the options as ``typed`` holds them (a ``--trainer t.yaml`` file's keys by the
        file, not as the flags ``words`` rewrote them to: ``unknown option --trainer.bogus``
        until 2026-12-01)."""
        if self.beside_missing is None or not isinstance(error, MissingOptionsError):
            return []
        self.required_later = True
        try:
            namespace = self._parsed(words, unknown)
        except (argparse.ArgumentError, UsageError):
            return []
        finally:
            self.required_later = False
        with options_typed(typed):  # its lines name a file's values as written
            lines = said_as_written(self.beside_missing(namespace))
        return not_required(lines, self.refused_in_files)  # an unread file's may hold them

    def _without_refused(self, words: list[str], error: BaseException) -> list[str] | None:
        """``words`` without the flag of the command's own option whose value ``error``
        refuses (``--seeds x``), to judge the rest as of its default; None where that is no
        such flag (a required option's, a config file's value, a fit section's entry)."""
        key = refused_key(error)
        action = next((a for a in self._actions if a.dest == key), None)
        if action is None or "." in (key or ""):
            return None
        rest = without_key(words, key or "")
        if rest == words and (path := config_setting(words, [key])) is not None:
            dropped = getattr(self, "dropped_keys", {})  # the file read again without it
            if key in dropped.get(path, set()):
                return None
            self.dropped_keys = {**dropped, path: {*dropped.get(path, set()), key}}
            self.refused_in_files |= {key}  # said as the file writes it, not named missing
            return words
        return rest if rest != words and not action.required else None

    def what_it_counts(self, error: BaseException) -> str:
        """``: how many runs (seeds 0..N-1) ...``: the help of the command's own integer option
        whose value ``error`` refuses (``--seeds 1,2`` read as a list of seeds; ``--jobs x``,
        an ``int | None``, alike); else ''."""
        key = refused_key(error)
        integer = (a for a in self._actions if _counts(getattr(a, "_typehint", a.type)))
        action = next((a for a in integer if a.dest == key), None)
        if action is None or not action.help:
            return ""
        text = " ".join(action.help.split())
        # a help shared by commands, 'jobs: suite, parts of ...; tune, workers ...': this one's
        head, _, clauses = text.partition(": ")
        command = self.prog.split()[-1]
        mine = [c for c in clauses.split("; ") if c.startswith(f"{command}, ")]
        return f": how many {head}, {mine[0].removeprefix(f'{command}, ')}" if mine else f": {text}"

    def _parsed(
        self,
        words: list[str],
        unknown: list[str],
        refused: list[str] | None = None,
        typed: Mapping[str, tuple[str, str]] | None = None,
    ) -> Namespace:
        """``words`` parsed (a ``--print_config`` printed once the options are built, if no
        option was ``unknown`` and no value ``refused``: ``aggregate_only: 1`` was printed
        ``false`` until 2026-12-01; a config file's value refused, by its own check, alike).
        ``typed``: the options as the user typed them, before ``words`` were rewritten (a
        section file's keys named by the file, not as the flags it became)."""
        if any(word.startswith("--print_config") for word in words):
            printed = [w for w in words if not w.startswith("--print_config")]
            self._check_before_printing(printed, typed_options(words) if typed is None else typed)
            # said by _parse and parse: a config file's unknown key among them (section_problems)
            if unknown or refused or self.refused_in_files or self.section_problems:
                raise UsageError("\n".join(unknown))
        return self.parse_args(words)

    def _check_before_printing(
        self, words: list[str], typed: Mapping[str, tuple[str, str]]
    ) -> None:
        """``--print_config`` prints only a config that would run: the options are built
        (checked) first, every problem raised at once. A config missing a required option is
        still printed (a file to fill in), and one naming a path not there yet (``report nope``,
        ``data stats --data-dir nope``: the run's machine makes it, as fit's ``--data-dir``;
        until 2026-12-01 refused, an unknown option beside it unsaid)."""
        try:
            namespace = self.parse_args(words)
        except MissingOptionsError:
            self._check_values_given(words)
        except argparse.ArgumentError as error:  # a value refused: said as the run says it
            if not message_line(error).startswith(ARGUMENTS_REQUIRED):
                raise
            self._check_values_given(words)
        else:
            if self.printed_values_problems is None:  # else it builds them, beside the rest
                with options_typed(typed_options(words)):
                    for options in self.checked:
                        with contextlib.suppress(FilesError):  # the paths alone: the run's
                            build(options, namespace, paths=False)
        self._check_run_values(words, typed)

    def _check_run_values(self, words: list[str], typed: Mapping[str, tuple[str, str]]) -> None:
        """The values the command's runs take (:attr:`printed_values_problems`: each run's fit
        config, ``model: {hidden_dim: 0}`` in a suite's file) judged as the run judges them,
        every problem at once, a required option left out or not."""
        if self.printed_values_problems is None:
            return
        self.required_later = True
        try:
            namespace = self.parse_args(words)
        finally:
            self.required_later = False
        with options_typed(typed):
            lines = said_as_written(self.printed_values_problems(namespace))
        if lines:
            raise refusal(lines)

    def _check_values_given(self, words: list[str]) -> None:
        """The values given judged, a required option left out (``aggregate_only: ~``, no
        ``--out``): an ``argparse.ArgumentError`` for a refused one, as the run raises it."""
        self.required_later = True
        try:
            self.parse_args(words)
        except UsageError:
            return
        finally:
            self.required_later = False


# a field's metadata: a comma list (``--tasks trec,mr``), which a config file may also give as
# a YAML list (``tasks: [trec, mr]``); :func:`build` joins it with commas, as the option reads
COMMA_LIST = {"comma_list": True}

# The keys of a parsed namespace that list the options given and hold them as typed
# (``CommandParser.parse``; :func:`options_typed`)
GIVEN = "__given__"
TYPED = "__typed__"
PROBLEMS = "__problems__"
REFUSED = "__refused__"  # a config file's keys whose values were refused (said already)
RESOLVED = "__resolved__"  # the config a --config file and the flags make (--print_config's)


def add_alias(parser: ArgumentParser, option: str, key: str, help_text: str) -> None:
    """``option VALUE`` sets ``key`` (``--task`` for ``--data.task``) and is not a key itself;
    :func:`unknown_options` knows it from ``parser.aliases``."""
    aliases = getattr(parser, "aliases", set())
    parser.aliases = aliases | {option}
    metavar = key.rpartition(".")[2].upper()
    parser.add_argument(
        option, action=functools.partial(SetKey, key=key), metavar=metavar, help=help_text
    )


class SetKey(argparse.Action):
    """An alias option: its value is stored under another key, and it has no key of its own."""

    def __init__(self, option_strings: list[str], dest: str, key: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest=argparse.SUPPRESS, **kwargs)
        self.key = key

    def __call__(self, parser, namespace, values, option_string=None):  # type: ignore[override]
        namespace[self.key] = values


def field_docs(options: type) -> dict[str, str]:
    """The attribute docstrings of a dataclass's fields (the text under each field)."""
    from docstring_parser import parse_from_object

    return {param.arg_name: param.description or "" for param in parse_from_object(options).params}


def _default(field: dataclasses.Field) -> Any:
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return field.default


def build(
    options: type[T],
    namespace: Namespace,
    beside: Callable[[dict[str, Any]], list[str]] | None = None,
    part: bool = False,
    paths: bool = True,
) -> T:
    """The dataclass ``options`` from a parsed ``namespace`` (its dataclass fields from the same
    level, as :meth:`CommandParser.add_options` added them). Every problem is raised at once, as
    one :class:`UsageError`: each part's, the whole's own (checked with a failed part at its
    default, or as its class's ``stand_in(namespace)``: a refused ``--max-length 0``'s paths
    given, which may clash with a fit section's), and then the problems of each part made that
    its command judges later, beside its names and files (a part's ``problems()``: a budget, a
    launcher), and what ``beside`` finds in the values (each run's fit config, which the
    command checks once the options are right), so none waits for another's fix. The parse's
    own (:data:`PROBLEMS`) lead, said by the whole (a ``part`` leaves them out). Not
    ``paths``: the filesystem's problems (:class:`FilesProblem`) are said only when no other
    is (a :class:`FilesError`), as ``--print_config`` leaves them to the run."""
    hints = typing.get_type_hints(options)
    values: dict[str, Any] = {}
    stand_ins: dict[str, Any] = {}  # a refused part's, for the whole's own check alone
    problems: list[str] = [] if part else list(namespace.get(PROBLEMS) or [])
    for field in dataclasses.fields(options):
        if dataclasses.is_dataclass(hints[field.name]):
            try:
                values[field.name] = build(hints[field.name], namespace, part=True)
            except InputError as error:
                problems += error_lines(error)
                if (stand_in := getattr(hints[field.name], "stand_in", None)) is not None:
                    stand_ins[field.name] = stand_in(namespace)
        elif field.name in namespace:
            values[field.name] = plain(namespace[field.name])
            if field.metadata.get("comma_list") and isinstance(values[field.name], list | tuple):
                values[field.name] = ",".join(map(str, values[field.name]))  # [32, 64]: 32,64
    try:
        built = options(**values, **stand_ins)
    except ValueError as error:  # options of a package below harness check with ValueError
        problems += error_lines(error)
    if problems:
        lines = [line for problem in problems for line in _lines(problem)]
        for part in values.values():
            later = getattr(part, "problems", None) if dataclasses.is_dataclass(part) else None
            lines += [line for line in (later() if later else []) if line not in lines]
        if beside is not None:
            lines += [
                line for line in beside(_beside_whole(values, stand_ins)) if line not in lines
            ]
        lines = not_required(lines, namespace.get(REFUSED) or ())  # its file's
        if not paths:
            lines = [line for line in lines if not isinstance(line, FilesProblem)] or lines
        raise refusal(said_as_written(lines))  # the help pointed to for a problem of the words
    return built


def holds_nothing(path: str | Path) -> bool:
    """Whether the section file ``path`` is empty (YAML null: no key, comments at most): its
    options are known to be not given, so their "is required" lines stay true (a folder, a
    file not YAML or holding a list: what it may hold is not known, :func:`unread_sections`)."""
    try:
        return yaml.safe_load(config_text(str(path))) is None
    except (OSError, ValueError, yaml.YAMLError):
        return False


def not_required(lines: list[str], keys: Iterable[str]) -> list[str]:
    """``lines`` without the "is required" line of each of ``keys``, refused in a config file
    or held by a section file not read (:func:`unread_sections`): said by its file's line."""
    refused = tuple(f"{option_spelling(key)} is required" for key in keys)
    return [line for line in lines if not line.startswith(refused)]


def _beside_whole(values: dict[str, Any], stand_ins: dict[str, Any]) -> dict[str, Any]:
    """The parts ``values`` of a refused whole as ``build``'s ``beside`` judges them: each as
    its ``beside_whole`` of the whole's parts, a refused part's ``stand_ins`` among them, where
    it has one (fit's sections without a key another option gives another value: that clash is
    the whole's line, the runs judged beside it; a refused ``--max-length 0``'s paths given
    clash too, until 2026-12-01 left in, so the runs' own problems went unsaid)."""
    whole = {**stand_ins, **values}
    return {
        name: part.beside_whole(whole) if hasattr(part, "beside_whole") else part
        for name, part in values.items()
    }


def _lines(problem: str) -> list[str]:
    """A problem's lines, a :class:`FilesProblem` kept whole (one line, and marked)."""
    return [problem] if isinstance(problem, FilesProblem) else problem.splitlines()


def plain(value: Any) -> Any:
    """A value as the dataclasses take it, data at any depth: a section parsed as jsonargparse's
    ``Namespace`` (a ``dict[str, Any]`` field given key by key) as a dict, and so the classes of
    a section's list (``trainer.callbacks``), which a manifest would otherwise hold as their
    repr."""
    if isinstance(value, Namespace):
        return value.as_dict()
    if isinstance(value, Mapping):
        return {key: plain(entry) for key, entry in value.items()}
    if isinstance(value, list):
        return [plain(entry) for entry in value]
    return value
