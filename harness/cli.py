"""The ``sanbench`` console command: one subcommand per module, imported only when used."""

from __future__ import annotations

import os

# Only sanbench's own lines on the console: no C++ log lines of torch (c10 warnings such as the
# profiler's "Memory block of unknown size ...", read when torch loads, hence before any import
# of it) or of its profiler library kineto ("USDT: ... profiler_start"); a user's own setting
# wins. Child processes inherit them.
os.environ.setdefault("TORCH_CPP_LOG_LEVEL", "ERROR")
os.environ.setdefault("KINETO_LOG_LEVEL", "6")

import argparse
import importlib
import re
import sys
from unittest import mock

from harness.commands.suggest import SuggestingParser
from harness.errors import InputError, SanbenchError
from harness.outdir import out_folder
from harness.quiet import hide_lightning_tips
from harness.redaction import redacted_console

# subcommand -> (module providing ``add_arguments(parser)`` and ``run(args) -> int``, help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "encoders": ("harness.commands.encoders", "list every registered encoder"),
    "profile": ("harness.commands.profile", "memory/latency sweep over sequence lengths"),
    "data": ("datamodules.cli", "inspect benchmark files (stats, coverage, errors)"),
    "fit": ("harness.commands.fit", "train, validate and test one model"),
    "predict": ("harness.commands.predict", "labels of new sentences from a fit checkpoint"),
    "encode": ("harness.commands.encode", "sentence vectors of new sentences from a checkpoint"),
    "suite": ("harness.commands.suite", "run a grid of tasks x encoders x seeds"),
    "reproduce": ("harness.commands.reproduce", "the papers' accuracy tables on this machine"),
    "tune": ("harness.commands.tune", "optuna studies (block length, dropout)"),
    "report": ("reports.cli", "build the HTML/PNG report from run folders"),
}
# Bad input (files, values, names) that library code raises as built-in errors: a message and
# InputError's exit status, no traceback. Any other exception is an internal error (status 1).
INPUT_ERRORS = (ValueError, LookupError, OSError)
INPUT_ERROR_STATUS = 2
INTERNAL_ERROR_STATUS = 1
INTERRUPTED_STATUS = 130  # 128 + SIGINT
DEBUG = "--debug"
LOCATED = re.compile(r"\S+:\d+: ")  # "file:line: ..." messages (one line per problem) stand alone


def _parser(argv: list[str]) -> tuple[argparse.ArgumentParser, object]:
    parser = SuggestingParser(prog="sanbench", description=__doc__)
    parser.add_argument(DEBUG, action="store_true", help="show the traceback of an error")
    parser.add_argument(
        "--import",
        dest="imports",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE first, here and in every process sanbench starts, for the encoders "
        "it registers (a module in the current folder too; repeatable; before COMMAND)",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    chosen = next((arg for arg in argv if not arg.startswith("-")), None)
    module = None
    for name, (module_path, help_text) in SUBCOMMANDS.items():
        if name != chosen:
            sub.add_parser(name, help=help_text)
            continue
        module = importlib.import_module(module_path)
        # a module with its own parser (``fit``: LightningCLI) gets every word after its name
        own = getattr(module, "OWN_PARSER", False)
        parser.command_parser = sub.add_parser(name, help=help_text, add_help=not own)
        if not own:  # ``sanbench COMMAND ... --debug`` too; SUPPRESS keeps a --debug before it
            parser.command_parser.add_argument(
                DEBUG, action="store_true", default=argparse.SUPPRESS
            )
        module.add_arguments(parser.command_parser)
    return parser, module


def _split_imports(argv: list[str]) -> tuple[list[str], list[str]]:
    """The ``--import MODULE`` values, wherever they stand (after the command too: the old
    ``sanbench profile --import MODULE`` spelling), and the other words."""
    imports, rest, words = [], [], iter(argv)
    for word in words:
        if word == "--import":
            imports.append(next(words, ""))
        elif word.startswith("--import="):
            imports.append(word.removeprefix("--import="))
        else:
            rest.append(word)
    return imports, rest


def _message(error: BaseException) -> str:
    """The error's text; a KeyError's without the quotes ``str`` adds."""
    return str(error.args[0]) if isinstance(error, KeyError) and error.args else str(error)


def _bare_key(error: BaseException) -> bool:
    """A ``KeyError`` whose message is only the missing key (``KeyError('101')``): a lookup
    that failed inside sanbench, not a message written for the user."""
    return isinstance(error, KeyError) and not any(" " in str(arg) for arg in error.args)


def _report(command: str, text: str) -> None:
    """``text`` on stderr, one line per problem, each prefixed unless it names ``file:line:``."""
    lines = text.splitlines() or [""]
    prefix = "" if LOCATED.match(lines[0]) else f"sanbench {command}: "
    print("\n".join(prefix + line for line in lines), file=sys.stderr)


def _status(error: BaseException, command: str) -> int:
    """Print ``error`` for the user and return the process's exit status."""
    if isinstance(error, KeyboardInterrupt):
        _report(command, "interrupted")
        return INTERRUPTED_STATUS
    if isinstance(error, SanbenchError):
        status = error.exit_status
    elif isinstance(error, INPUT_ERRORS) and not _bare_key(error):
        status = INPUT_ERROR_STATUS
    else:
        _report(command, f"internal error: {type(error).__name__}: {error}")
        print(f"(sanbench {DEBUG} {command} ... shows the traceback)", file=sys.stderr)
        return INTERNAL_ERROR_STATUS
    _report(command, _message(error) or type(error).__name__)
    if status == INPUT_ERROR_STATUS:
        print(f"(sanbench {DEBUG} {command} ... shows the traceback)", file=sys.stderr)
    return status


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand; the one place that prints errors and maps them to exit statuses:
    ``harness.errors`` types, bad input (``ValueError``, ``LookupError``, ``OSError``) exit 2,
    Ctrl-C 130, anything else 1; ``sanbench --debug COMMAND`` re-raises for the traceback."""
    imports, argv = _split_imports(sys.argv[1:] if argv is None else argv)
    hide_lightning_tips()
    parser, module = _parser(argv)
    if getattr(module, "OWN_PARSER", False) or getattr(module, "FIT_OVERRIDES", False):
        args, words = parser.parse_known_args(argv)
        args.debug = args.debug or DEBUG in words
        args.words = [word for word in words if word != DEBUG]
    else:
        args = parser.parse_args(argv)
    args.imports = imports
    with redacted_console():  # no password of a storage URL reaches the console, on any path
        try:
            # what a command puts in the environment for its child processes (SANBENCH_IMPORT,
            # PYTHONPATH, a study's storage URL) lasts as long as the command: main() is also
            # the library entry of tests, jobs and nox
            with mock.patch.dict(os.environ):
                if imports:
                    from encoders.plugins import import_modules

                    try:
                        import_modules(imports)
                    except Exception as error:
                        raise InputError(f"--import: {type(error).__name__}: {error}") from error
                with out_folder(args.command, getattr(args, "out", None)):
                    return int(module.run(args) or 0)
        except (Exception, KeyboardInterrupt) as error:
            if args.debug:
                raise
            return _status(error, args.command)


if __name__ == "__main__":
    sys.exit(main())
