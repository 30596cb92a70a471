"""What a DataLoader worker process raised, read back from the exception torch raises in the
main process in its stead: the same type, whose message is the worker's traceback as text
(``Caught ValueError in DataLoader worker process 0.`` then ``Original Traceback ...``); the
exception object itself stayed in the worker."""

from __future__ import annotations

import re
import types
from dataclasses import dataclass
from pathlib import Path

# torch.utils.data's worker loop wraps what the dataset or collate_fn raised (torch._utils)
CAUGHT = re.compile(r"Caught (\w+) in DataLoader worker process \d+\.\nOriginal (.*)", re.S)
HEADER = "Traceback (most recent call last):\n"
FRAME = re.compile(r'  File "(.+)", line (\d+), in (.+)')


@dataclass(frozen=True)
class WorkerError:
    """The worker's exception: its frames (file, line, function name), outermost first, the
    name of its type and its message, as the worker's Python printed them."""

    frames: tuple[tuple[str, int, str], ...]
    kind: str
    message: str


def worker_error(error: BaseException) -> WorkerError | None:
    """The exception a DataLoader worker raised, when ``error`` is torch's re-raise of it;
    else None. Of a chain (``raise ... from``), the exception raised last."""
    text = error.args[0] if error.args and isinstance(error.args[0], str) else ""
    caught = CAUGHT.fullmatch(text)
    if caught is None or HEADER not in caught[2]:
        return None
    kind, lines = caught[1], caught[2].rpartition(HEADER)[2].splitlines()
    # frame lines are indented; the exception's own lines (``ValueError: bad row``) are not
    end = next((i for i, line in enumerate(lines) if not line.startswith(" ")), len(lines))
    frames = tuple(
        (found[1], int(found[2]), found[3])
        for line in lines[:end]
        if (found := FRAME.fullmatch(line))
    )
    message = re.sub(rf"^(?:[\w.]+\.)?{kind}(?:: |$)", "", "\n".join(lines[end:]), count=1)
    return WorkerError(frames, kind, message)


def qualified_name(file: str, line: int, name: str) -> str:
    """The qualified name (``Rows.__getitem__``) of the function ``name`` of ``file`` whose code
    holds ``line``, as the file reads now; ``name`` when no such function is found."""
    try:
        code = compile(Path(file).read_text(encoding="utf-8"), file, "exec")
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return name
    codes = [code]
    while codes:
        code = codes.pop()
        if code.co_name == name and any(at == line for *_, at in code.co_lines()):
            return code.co_qualname
        codes += [const for const in code.co_consts if isinstance(const, types.CodeType)]
    return name
