"""Did-you-mean for mistyped or old options and choices, for every command's parser."""

from __future__ import annotations

import argparse
import difflib
import re
from collections.abc import Iterable

OPTION = re.compile(r"--[A-Za-z][\w.-]*")
UNRECOGNIZED = re.compile(r"unrecognized arguments: (.*)")
INVALID_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)")


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """`` (did you mean X?)`` for the closest candidate to ``word``, else ``""``."""
    close = difflib.get_close_matches(word, list(dict.fromkeys(candidates)), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def options_in(parser: argparse.ArgumentParser) -> list[str]:
    """Every ``--option`` that ``parser``'s help names."""
    return OPTION.findall(parser.format_help())


class SuggestingParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors name the option or choice a mistyped word stands for.

    ``command_parser`` (set by ``harness.cli``) is the chosen command's parser: the top-level
    parser reports unrecognized words, which are the command's options.
    """

    command_parser: argparse.ArgumentParser | None = None

    def error(self, message: str) -> None:  # type: ignore[override]
        super().error(self.with_suggestions(message))

    def with_suggestions(self, message: str) -> str:
        unknown = UNRECOGNIZED.match(message)
        if unknown:
            known = options_in(self.command_parser or self)
            hints = [
                word + did_you_mean(word.partition("=")[0], known) if word.startswith("-") else word
                for word in unknown.group(1).split()
            ]
            return f"unrecognized arguments: {' '.join(hints)}"
        choice = INVALID_CHOICE.search(message)
        if choice:
            choices = re.findall(r"'([^']*)'", choice.group(2))
            return message + did_you_mean(choice.group(1), choices)
        return message
