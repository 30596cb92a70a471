"""A section's value given by a ``--config`` file, a section's file, an inline mapping and a
flag, in any order: the last one alone is judged and used (outside check 9z items 1 and 2). An
inline mapping after a config file was refused with the file's value ("read as 20 (YAML's
octal)"), and fit refused a config file's value that a later section's file set again."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import example, given
from hypothesis import strategies as st

from harness.cli import main
from tests.harness.problem_lines import problem_lines
from tests.harness.refusal_scratch import CFG, drawn, entries, refused, scratch

STEPS = "trains nothing (the untrained model would be tested and its scores recorded as a result)"
STEPS += "; expected a positive number of steps"
# a section's key -> its valid values (one per source), its refused one and the words said
KEYS = {
    ("model", "hidden_dim"): (["12", "20", "16", "24"], "0", "expected a positive integer"),
    ("model", "dropout"): (["0.2", "0.1", "0.3", "0.4"], "5", "expected a number in [0, 1]"),
    ("trainer", "max_steps"): (["5", "3", "4", "6"], "0", STEPS),
    ("data", "batch_size"): (["16", "8", "4", "32"], "0", "expected a positive integer"),
}
SOURCES = ("config", "file", "inline", "flag")
COMMANDS = {
    "fit": "fit --task trec --encoder bilstm --data-dir trec --out new",
    "suite": "suite --tasks trec --encoders bilstm --seeds 2 --data-dir trec --out new",
}
# left out (issue 56, not fixed yet): fit's refused inline mapping followed by a section's file
# said the file's refused value twice ('--model m.yaml: expected a positive integer' too)
INLINE_THEN_FILE = {"inline", "file"}
SENTINEL = ["--data.max_length", "0"]  # refused in every draw: no run trains
SENTINEL_SAID = "--data.max_length 0: expected a positive number of tokens"


def source_words(source: str, section: str, key: str, value: str, index: int) -> list[str]:
    """The words giving ``section.key`` ``value`` from ``source`` (its files in ``cfg/``)."""
    if source == "config":
        path = Path(f"cfg/c{index}.yaml")
        path.write_text(f"{section}: {{{key}: {value}}}\n")
        return ["--config", str(path)]
    if source == "file":
        path = Path(f"cfg/s{index}.yaml")
        path.write_text(f"{key}: {value}\n")
        return [f"--{section}", str(path)]
    if source == "inline":
        return [f"--{section}", f"{{{key}: {value}}}"]
    return [f"--{section}.{key}", value]


def said_by(source: str, section: str, key: str, value: str, index: int) -> str:
    """How a refusal names ``source``'s value."""
    return {
        "config": f"--config cfg/c{index}.yaml: {section}.{key} {value}",
        "file": f"--{section} cfg/s{index}.yaml: {key} {value}",
        "inline": f"--{section} {{{key}: {value}}}: {key} {value}",
        "flag": f"--{section}.{key} {value}",
    }[source]


def said(lines: list[str], command: str) -> list[str]:
    """``lines`` without the command's name, sorted; an inline mapping's value said after its
    key or not (``--model {hidden_dim: 0}: hidden_dim: ...``) read as said after it."""
    out = []
    for line in lines:
        text = line.removeprefix(f"sanbench {command}: ")
        head, brace, rest = text.partition("}: ")
        if brace and head.startswith("--"):
            name, colon, tail = rest.partition(": ")
            if colon and " " not in name:  # no value after the key: the mapping's
                text = f"{head}{brace}{name} {head.rpartition(': ')[2]}: {tail}"
        out.append(text)
    return sorted(out)


@drawn(6)
@example(item=("model", "hidden_dim"), order=("config", "inline"), valid=[True] * 4)  # item 1
@example(item=("model", "dropout"), order=("config", "file"), valid=[False, True, True, True])
@given(
    item=st.sampled_from(list(KEYS)),
    order=st.permutations(SOURCES)
    .flatmap(lambda order: st.integers(2, 4).map(lambda n: order[:n]))
    .filter(
        lambda order: (
            not set(order) >= INLINE_THEN_FILE or order.index("file") < order.index("inline")
        )
    ),
    valid=st.lists(st.booleans(), min_size=4, max_size=4),
)
def test_the_last_source_alone_is_judged(
    item: tuple[str, str],
    order: tuple[str, ...],
    valid: list[bool],
    trec_dir: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    section, key = item
    good, bad, expected = KEYS[item]
    values = [good[i] if valid[i] else bad for i in range(len(order))]
    with scratch(trec_dir, CFG) as root:
        words = [
            word
            for index, source in enumerate(order)
            for word in source_words(source, section, key, values[index], index)
        ]
        last = len(order) - 1
        problem = [f"{said_by(order[last], section, key, bad, last)}: {expected}"]
        problem = [] if valid[last] else problem
        wanted = sorted([SENTINEL_SAID, *problem])
        for command, base in COMMANDS.items():
            printing = ["--print_config"] if command == "fit" else []
            for tail in ([], printing):
                line = [*base.split(), *words, *SENTINEL, *tail]
                lines = problem_lines(refused(root, line, capsys), command)
                assert "octal" not in "".join(lines), line
                assert said(lines, command) == wanted, line
        line = [*COMMANDS["fit"].split(), *words, "--print_config"]
        before = entries(root)
        capsys.readouterr()
        status = main(line)
        out, err = capsys.readouterr()
        assert entries(root) == before
        if valid[last]:
            assert status == 0, (line, err)
            assert str(yaml.safe_load(out)[section][key]) == values[last], line
        else:
            assert status == 2, line
            assert said(problem_lines(err, "fit"), "fit") == problem, line
