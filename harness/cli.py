"""sanbench trains, profiles and compares sentence encoders: the self-attention networks of
DiSAN, Bi-BloSAN, MTSA and MPSAN beside RNN, CNN and multi-head baselines.

Start with `sanbench profile --preset quick` (no data needed), or `sanbench fit --task trec
--encoder bi_blosan --data-dir DATA --out runs/trec` (docs/ holds the guides)."""

# The console command: each subcommand's module is imported only when it is used.

from __future__ import annotations

import gc
import os

# Only sanbench's own lines on the console: no C++ log lines of torch (c10 warnings such as the
# profiler's "Memory block of unknown size ...", read when torch loads, hence before any import
# of it) or of its profiler library kineto ("USDT: ... profiler_start"); a user's own setting
# wins. Child processes inherit them.
os.environ.setdefault("TORCH_CPP_LOG_LEVEL", "ERROR")
os.environ.setdefault("KINETO_LOG_LEVEL", "6")

import argparse
import contextlib
import importlib
import inspect
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import NoReturn

from harness.command_actions import COMMAND_ACTIONS
from harness.command_parser import (
    RESOLVED,
    TYPED,
    CommandParser,
    did_you_mean,
    options_typed,
    refusal_as_written,
    typed_options,
)
from harness.errors import InputError, RunInterruptedError, SanbenchError, UsageError
from harness.interrupts import (
    INTERRUPTED_STATUS,
    STARTING_SIGNALS,
    STATUS_KNOWN,
    TERMINATED_AT_START,
    TERMINATED_STATUS,
    interrupt_held,
    interrupt_noted,
    terminate_raises,
)
from harness.kernel_caches import kernel_caches
from harness.outdir import NotOursError, holds_no_file, out_folder
from harness.quiet import hide_lightning_tips
from harness.redaction import IMPORT, config_read, redacted_console, resume_command

# command -> (its run function, "harness.<package>.command:<function>", and a line of help).
# Every command lives in the package that does its work, in a module named ``command``: its
# ``add_arguments(parser)`` adds the options (dataclasses of that package), and the function,
# whose docstring is the command's --help description, turns the parsed config into one library
# call and returns the exit status (``OWN_PARSER = True``: the function parses its own words;
# ``OUT_AFTER_CHECKS = True``: it takes its --out folder itself, ``harness.outdir.out_folder``,
# once its options are built, so that a refusal marks and locks nothing).
# the commands that the same words resume (``profile`` needs ``--resume`` and says so itself)
RESUMED_BY_RERUN = ("fit", "suite", "reproduce", "tune")
# the commands whose stop before any run saved says whether nothing was (profile's own line says
# what it saved once its sweep folder holds rows)
SAY_WHAT_WAS_SAVED = (*RESUMED_BY_RERUN, "profile")
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "encoders": ("harness.encoder_list.command:encoders", "list every registered encoder"),
    "profile": (
        "harness.profiling.command:profile",
        "memory/latency sweep over sequence lengths",
    ),
    # {actions}: the words it takes (harness.command_actions.COMMAND_ACTIONS)
    "data": ("harness.data.command:data", "inspect a task's benchmark files ({actions})"),
    "fit": ("harness.training.command:fit", "train, validate and test one model"),
    "predict": (
        "harness.inference.command:predict",
        "labels of new sentences from a fit checkpoint",
    ),
    "encode": (
        "harness.inference.command:encode",
        "sentence vectors of new sentences from a checkpoint",
    ),
    "suite": ("harness.suite.command:suite", "run a grid of tasks x encoders x seeds"),
    "reproduce": (
        "harness.reproduce.command:reproduce",
        "the papers' accuracy tables on this machine",
    ),
    "tune": ("harness.studies.command:tune", "optuna studies (block length, dropout)"),
    "report": ("harness.report.command:report", "build the HTML/PNG report from run folders"),
}
# ``python -m MODULE`` tools that are not commands: module -> (a line of help, why no command).
# ``sanbench --help`` lists them after the commands.
DEVELOPER_TOOLS: dict[str, tuple[str, str]] = {
    "harness.profiling.gpu_checks": (
        "device | checks RUN_DIR | confirm [RUN_DIR]: the CUDA path's checks (docs/benchmarks.md)",
        "a check of sanbench's CUDA path on this machine, not a user's work: nox -s bench runs it "
        "around its sweep, a GPU user once after installing; its checks start sanbench fit, "
        "encode and itself as child processes and read their output",
    ),
    "harness.profiling.overhead": (
        "training steps/s of the harness against a bare PyTorch loop (nox -s bench)",
        "a figure for docs/benchmarks.md about sanbench's own cost, with no options and no "
        "output folder",
    ),
}
# modules sanbench starts as child processes with ``python -m``: module -> why. Nobody types them.
CHILD_PROCESSES: dict[str, str] = {
    "harness.profiling.worker": (
        "profile's measuring worker (profiling/worker_process.py), started with an allocator "
        "preloaded; its death by the OOM killer is a result"
    ),
}
# Bad input (files, values, names) that library code raises as built-in errors: a message and
# InputError's exit status, no traceback. Any other exception is an internal error (status 1).
INPUT_ERRORS = (ValueError, LookupError, OSError)
INTERNAL_ERROR_STATUS = 1
DEBUG = "--debug"
USAGE = f"""usage: sanbench [{DEBUG}] [{IMPORT} MODULE] COMMAND [options]

{__doc__.strip()}

{DEBUG}            show the traceback of an error (anywhere on the line)
{IMPORT} MODULE    import MODULE first, here and in every process sanbench starts, for the
                   encoders it registers (a module in the current folder too; repeatable)

commands (sanbench COMMAND --help for each one's options, --print_config for its config):
""" + "\n".join(f"  {name:<10} {help_text}" for name, (_, help_text) in SUBCOMMANDS.items())
USAGE += "\n\ndeveloper tools (no commands; why: harness/cli.py's DEVELOPER_TOOLS):\n" + "\n".join(
    f"  python -m {module}\n      {help_text}" for module, (help_text, _) in DEVELOPER_TOOLS.items()
)


ACTIONS_SLOT = "{actions}"


def usage() -> str:
    """:data:`USAGE` with each ``{actions}`` of a command's help line its actions
    (:data:`COMMAND_ACTIONS`, ``data``: ``stats``), so the line names only the actions there
    are."""
    text = USAGE
    for name, (_, help_text) in SUBCOMMANDS.items():
        if ACTIONS_SLOT in help_text:
            actions = ", ".join(COMMAND_ACTIONS.get(name, ()))
            text = text.replace(help_text, help_text.replace(ACTIONS_SLOT, actions))
    return text


def entry_words(argv: list[str]) -> tuple[list[str], bool, list[str]]:
    """The ``--import MODULE`` values and ``--debug``, wherever they stand (after the command
    too), and the other words: they belong to sanbench itself, not to one command."""
    imports, debug, rest, words = [], False, [], iter(argv)
    for word in words:
        if word == IMPORT:
            imports.append(next(words, ""))
        elif word.startswith(IMPORT + "="):
            imports.append(word.removeprefix(IMPORT + "="))
        elif word == DEBUG:
            debug = True
        else:
            rest.append(word)
    return imports, debug, rest


def command_function(words: list[str]) -> tuple[str, Callable[..., int]]:
    """The command the first word names and its run function (its module imported only now)."""
    if not words or words[0] in ("-h", "--help"):
        print(usage())
        raise SystemExit(0 if words else InputError.exit_status)
    name = words[0]
    if name not in SUBCOMMANDS:
        kind = "option" if name.startswith("-") else "command"
        raise UsageError(
            f"unknown {kind} {name}{did_you_mean(name, SUBCOMMANDS)}; "
            f"commands: {', '.join(SUBCOMMANDS)}"
        )
    return name, getattr(*command_module(name))


def command_module(name: str) -> tuple[ModuleType, str]:
    """The module of the command ``name`` (imported now) and its run function's name."""
    module, _, function = SUBCOMMANDS[name][0].partition(":")
    return importlib.import_module(module), function


def shown_name(name: str, words: list[str]) -> str:
    """The command as its messages name it: with its action word (``data stats``) when it takes
    actions (:data:`COMMAND_ACTIONS`, known before its module loads) and the first word is
    one."""
    actions = COMMAND_ACTIONS.get(name, ())
    return f"{name} {words[0]}" if words and words[0] in actions else name


def parse_command(name: str, words: list[str]) -> object:
    """The command's config: the words themselves when its module parses them (``fit``:
    LightningCLI), else a :class:`CommandParser` with the options its module adds, described
    by its run function's docstring. Its usage and messages name it with its action word
    (``sanbench data stats``; :func:`shown_name`), which the usage then does not repeat."""
    module, function = command_module(name)
    if getattr(module, "OWN_PARSER", False):
        return words
    shown = shown_name(name, words)
    parser = CommandParser(f"sanbench {shown}", inspect.getdoc(getattr(module, function)))
    module.add_arguments(parser)
    for action in parser._actions:  # argparse keeps no public list of its actions
        if shown != name and not action.option_strings:  # the action word, in the name
            action.help = argparse.SUPPRESS
    return parser.parse(words)


def _message(error: BaseException) -> str:
    """The error's text; a KeyError's without the quotes ``str`` adds."""
    return str(error.args[0]) if isinstance(error, KeyError) and error.args else str(error)


def _bare_key(error: BaseException) -> bool:
    """A ``KeyError`` whose message is only the missing key (``KeyError('101')``): a lookup
    that failed inside sanbench, not a message written for the user."""
    return isinstance(error, KeyError) and not any(" " in str(arg) for arg in error.args)


def _report(command: str, text: str, then: str = "") -> None:
    """``text`` on stderr, one line per problem, each after the command's name (a
    ``file:line:`` line too), and the line ``then`` (the pointer to the help), in one write: a
    signal as the first line came out cut the rest (outside check 14 item 1). A problem is said
    by the one check that owns it: no line is dropped here, where a repeat would hide a second
    check finding it."""
    lines = text.splitlines() or [""]
    source = f"sanbench {command}" if command else "sanbench"  # no command yet: the entry point
    said = [f"{source}: {line}" for line in lines] + ([then] if then else [])
    print("\n".join(said), file=sys.stderr, flush=True)


def _status(error: BaseException, command: str) -> int:
    """Print ``error`` for the user and return the process's exit status. The one rule of the
    pointer to the help of the command the user ran: a :class:`UsageError` (a problem of the
    command's words or config file: an unknown option, a value refused; beside any other) ends
    with it; a problem of the filesystem alone (an ``--out`` that is a file, a folder of the
    user's, one that cannot be made, a symlink loop; a data folder without the task's files) is
    an :class:`InputError` and gets none: the help would not fix it."""
    if isinstance(error, KeyboardInterrupt):
        _report(command, "interrupted")
        return INTERRUPTED_STATUS
    if isinstance(error, SanbenchError):
        status = error.exit_status
    elif isinstance(error, INPUT_ERRORS) and not _bare_key(error):
        status = InputError.exit_status
    else:
        _report(command, f"internal error: {type(error).__name__}: {error}")
        print(f"(sanbench {DEBUG} {command or 'COMMAND'} ... shows the traceback)", file=sys.stderr)
        return INTERNAL_ERROR_STATUS
    # once, after every problem, whichever layer found them
    pointer = f"(see {' '.join(['sanbench', command]).strip()} --help)"
    then = pointer if isinstance(error, UsageError) else ""
    _report(command, _message(error) or type(error).__name__, then)  # the user's to fix: no hint
    return status


@contextlib.contextmanager
def environment_restored() -> Iterator[None]:
    """``os.environ`` as it was on entry once the block ends, however it ends."""
    saved = dict(os.environ)
    try:
        yield
    finally:
        for name in os.environ.keys() - saved.keys():
            del os.environ[name]
        os.environ.update(saved)


def _resume_line(command: str, out: str | None) -> str:
    """What follows the word of a stop before any run or job said what it saved (one that did
    says so itself): the command that resumes ``command`` when its ``--out`` holds a file, else
    that nothing was saved (a stop during the start: no folder to resume; no ``--out``: the
    command is refused, and until 2026-12-01 ``fit --bogus 1`` stopped 0.4 s in printed a
    ``resume with:`` line for it, outside check 14 item 2; until 2026-12-01 a ``profile``
    stopped before its sweep folder was made said a bare ``terminated``)."""
    if command not in SAY_WHAT_WAS_SAVED:
        return ""
    if out is None or not os.path.isdir(out) or holds_no_file(Path(out)):
        return "; nothing was saved"
    return f"\nresume with: {resume_command()}" if command in RESUMED_BY_RERUN else ""


def command_word(words: list[str]) -> str:
    """The command the words name, before its module is imported ("": none)."""
    return words[0] if words and words[0] in SUBCOMMANDS else ""


@contextlib.contextmanager
def interrupt_first(interrupted: Callable[[], bool]) -> Iterator[None]:
    """An error the block raises after a Ctrl-C was held (``interrupted()``) is the Ctrl-C's,
    raised as ``KeyboardInterrupt``: the signal came before the refusal was known, and stops
    every command alike, status 130 (until 2026-12-01 ``suite --bogus 1`` given a Ctrl-C 1 s in
    said its refusal, status 2, 12 s later, where ``tune --bogus 1`` said ``interrupted``;
    outside check 14 item 3)."""
    try:
        yield
    except Exception as error:
        if interrupted():
            raise KeyboardInterrupt from error
        raise


def _out_of(config: object) -> str | None:
    """The ``--out`` of a command's config; of fit's words, as typed (a flag or a config
    file's ``out``)."""
    if isinstance(config, list):
        return typed_options(config).get("out", (None, None))[1]
    return config.get("out")  # type: ignore[attr-defined]


def _terminated(command: str, out: str | None) -> RunInterruptedError:
    """What a SIGTERM raises while ``command`` runs, before any run or job said what it saved:
    exit 143, and the command that resumes (:func:`_resume_line`)."""
    return RunInterruptedError(f"terminated{_resume_line(command, out)}", signal.SIGTERM)


def _interrupted(command: str, out: str | None) -> BaseException:
    """What a Ctrl-C raises before any run or job of ``command`` said what it saved (one that
    did says so itself), from its start on: ``interrupted`` and :func:`_resume_line`, as a
    SIGTERM's line (until 2026-12-01 one held while ``suite``, ``reproduce`` or ``fit`` started
    said a bare ``interrupted``, outside check at 9564b86 item 2); a command that saves nothing,
    ``KeyboardInterrupt``."""
    if command not in SAY_WHAT_WAS_SAVED:
        return KeyboardInterrupt()
    return RunInterruptedError(f"interrupted{_resume_line(command, out)}", signal.SIGINT)


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand; the one place that prints errors and maps them to exit statuses:
    ``harness.errors`` types, bad input (``ValueError``, ``LookupError``, ``OSError``) exit 2,
    Ctrl-C 130, SIGTERM (what runs stops as on Ctrl-C) 143, anything else 1; ``sanbench --debug
    COMMAND`` re-raises for the traceback."""
    imports, debug, words = entry_words(sys.argv[1:] if argv is None else argv)
    STATUS_KNOWN.clear()
    name = ""  # the command, once known
    shown = ""  # the command as messages name it (shown_name)
    typed = None  # the options as typed, once parsed
    saved_in = None  # the --out a stop may leave to resume, once parsed
    with redacted_console():  # no password of a storage URL reaches the console, on any path
        try:
            # what a command puts in the environment for its child processes (SANBENCH_IMPORT,
            # PYTHONPATH, a study's storage URL) lasts as long as the command: main() is also
            # the library entry of tests, jobs and nox
            # compiled kernels (the attention tiles) in a stated place, reused by every later
            # process of this machine (docs/training.md, "Compiled kernels")
            with environment_restored(), kernel_caches():
                # a Ctrl-C while the command's libraries load and its words are checked waits
                # for them (harness.program): an import it stops leaves a library half made
                with (
                    interrupt_held(
                        lambda: shown or shown_name(command_word(words), words[1:]),
                        lambda: _resume_line(name or command_word(words), None),
                    ) as interrupted,
                    interrupt_first(interrupted),
                ):
                    # a signal harness.program blocked (and one it held) is held from here
                    signal.pthread_sigmask(signal.SIG_UNBLOCK, STARTING_SIGNALS)
                    hide_lightning_tips()  # 30 ms: a Ctrl-C then was a traceback (SIG_DFL)
                    name, run = command_function(words)
                    shown = shown_name(name, words[1:])
                    if imports:
                        from encoders.plugins import import_modules

                        try:
                            import_modules(imports)
                        except Exception as error:
                            message = f"{IMPORT}: {type(error).__name__}: {error}"
                            raise InputError(message) from error
                    config = parse_command(name, words[1:])
                saved_in = _out_of(config)  # what a stop may leave to resume
                if interrupted():
                    raise KeyboardInterrupt
                out = None if isinstance(config, list) else config.get("out")
                if getattr(command_module(name)[0], "OUT_AFTER_CHECKS", False):
                    out = None  # the command's own, after its checks
                typed = None if isinstance(config, list) else config.get(TYPED)
                resolved = None if isinstance(config, list) else config.get(RESOLVED)
                with (
                    options_typed(typed),  # the checks quote values as typed (1e6)
                    config_read(resolved),  # recorded beside the results (recorded_command)
                    interrupt_noted() as noted,
                    terminate_raises(lambda: _terminated(name, saved_in)) as terminated,
                    out_folder(name, out),
                ):
                    try:
                        return int(run(config) or 0)
                    except Exception as error:
                        if isinstance(error, SanbenchError):
                            raise
                        if terminated():  # what the SIGTERM broke
                            raise _terminated(name, saved_in) from error
                        if noted():
                            raise KeyboardInterrupt from error  # what the Ctrl-C broke
                        raise
                    finally:
                        STATUS_KNOWN.set()  # a signal from here on: outside_the_command
        except SystemExit as done:  # --help and --print_config
            STATUS_KNOWN.set()
            return done.code if isinstance(done.code, int) else 0
        except (Exception, KeyboardInterrupt) as error:
            STATUS_KNOWN.set()  # a signal now changes nothing: the message is said whole
            if isinstance(error, KeyboardInterrupt):
                error = _interrupted(name or command_word(words), saved_in)
            if debug:
                raise error
            if isinstance(error, NotOursError):  # a config file's out named as written
                error = refusal_as_written(error, typed)
            return _status(error, shown)


def outside_the_command(signum: int, frame: object) -> None:
    """SIGINT and SIGTERM where no handler of the command's is in place (between its blocks,
    and as it unwinds): ignored once the command's status is known, as a signal then changes
    nothing (the interpreter's shutdown and the default action ended sanbench by the signal,
    status -15 with no line, a SIGTERM as ``sanbench encoders`` printed its table: outside
    check 8y item 1); before, a Ctrl-C raises ``KeyboardInterrupt`` as Python's handler does,
    and a SIGTERM ends sanbench at once with :data:`TERMINATED_AT_START` (nothing was saved)."""
    if STATUS_KNOWN.is_set():
        return
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    print(TERMINATED_AT_START, file=sys.stderr, flush=True)
    os._exit(TERMINATED_STATUS)


def entry() -> NoReturn:
    """The ``sanbench`` program: :func:`main`, then its exit without the interpreter's last
    garbage collection over every object torch, pandas and matplotlib made (``gc.freeze``: 0.8 s
    of every command's end, measured; the files and processes are closed by then). Where the
    command has no handler in place, SIGINT and SIGTERM are :func:`outside_the_command`'s: once
    the status is known they change nothing (status -2 seen from outside until 2026-11-30: a
    Ctrl-C 2 s into ``sanbench encoders``)."""
    signal.signal(signal.SIGINT, outside_the_command)
    signal.signal(signal.SIGTERM, outside_the_command)
    status = main()
    # the interpreter's shutdown gives a signal handled in Python back its default action;
    # an ignored one stays ignored
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    gc.freeze()
    sys.exit(status)


if __name__ == "__main__":
    entry()
