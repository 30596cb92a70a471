"""``InferenceOptions``: what ``sanbench predict`` and ``sanbench encode`` read, checked before
torch; errors go to ``harness.cli`` (one line per problem, exit status 2). ``--out`` is written
only when it is new, or a file sanbench made and ``--overwrite`` is given (``harness.outdir``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from datamodules.text import known_encoding
from harness.command_parser import batch_size_problems, integer_problems
from harness.outdir import SHOWN, made_by_sanbench, out_file_problems, suffix_problems
from harness.training.checkpoint_file import checkpoint_problem

CHECKPOINT_SUFFIX = ".ckpt"
FIT_CHECKPOINTS = "give a checkpoint that sanbench fit wrote (OUT/checkpoints/*.ckpt)"


@dataclass(frozen=True)
class InferenceOptions:
    """A checkpoint applied to a file of sentences."""

    ckpt: Path
    """a checkpoint of `sanbench fit`"""
    input: Path
    """UTF-8, one whitespace-tokenized sentence per line (pair tasks: two, tab-separated)"""
    out: Path
    """the file to write (predict: .csv, encode: .npy); not an existing one sanbench did not
    make"""
    overwrite: bool = False
    """replace --out when an earlier sanbench predict/encode wrote it (never another file)"""
    batch_size: int = 128
    """sentences per batch"""
    encoding: str | None = None
    """decode the input file with this encoding (default UTF-8)"""

    def problems(self, suffix: str) -> tuple[list[str], list[str]]:
        """Every problem at once: the paths' (of the filesystem), then the values'."""
        return path_problems(vars(self), suffix), value_problems(vars(self), suffix)


def given_problems(values: Mapping[str, Any], suffix: str) -> list[str]:
    """Every problem with the paths and values that ``values`` gives (an option's key -> its
    value), at once; one left out (None, or no key) is passed by: its refusal is said beside
    these (``predict --ckpt a.ckpt --input b.txt`` without ``--out``, or with ``--batch-size
    x``: the files' problems too, not only once those are fixed)."""
    return path_problems(values, suffix) + value_problems(values, suffix)


def path_problems(values: Mapping[str, Any], suffix: str) -> list[str]:
    """The problems of the files ``values`` names (``--ckpt``, ``--input``, ``--out``): the
    filesystem's, which the command's help would not fix (``harness.cli._status``)."""
    ckpt, source, out = (values.get(key) for key in ("ckpt", "input", "out"))
    problems = [] if ckpt is None else _file_problems("ckpt", Path(ckpt), CHECKPOINT_SUFFIX)
    problems += [] if source is None else _file_problems("input", Path(source), None)
    if ckpt is not None and Path(ckpt).is_file() and (problem := checkpoint_problem(Path(ckpt))):
        problems.append(f"--ckpt {ckpt}: {problem}; {FIT_CHECKPOINTS}")
    if out is None:
        pass
    elif (
        source is not None
        and Path(source).is_file()
        and Path(out).exists()
        and (Path(out).samefile(source))
    ):
        problems.append(f"--out {out} is the --input file; choose another file name")
    else:
        said = out_file_problems(Path(out), suffix, bool(values.get("overwrite")))
        problems += [line for line in said if line not in suffix_problems(Path(out), suffix)]
    return problems


def value_problems(values: Mapping[str, Any], suffix: str) -> list[str]:
    """The problems of the values ``values`` gives (``--batch-size``, ``--encoding``, an
    ``--out`` not ending ``suffix``): the words'."""
    out = values.get("out")
    said = [] if out is None or Path(out).is_dir() else suffix_problems(Path(out), suffix)
    batch_size = values.get("batch_size", InferenceOptions.batch_size)
    problems = integer_problems(SimpleNamespace(batch_size=batch_size), {"batch_size": 1})
    problems += batch_size_problems("--batch-size", batch_size)
    known_encoding(values.get("encoding"), problems)
    return said + problems


def _file_problems(name: str, path: Path, suffix: str | None) -> list[str]:
    """``--NAME path`` is no file: missing, or a folder (its ``suffix`` files named)."""
    if path.is_file():
        return []
    if not path.is_dir():
        return [f"--{name} {path}: no such file"]
    inside = _checkpoints_in(path) if suffix else []
    if not inside:
        kind = f"holding no {suffix} file {SEARCHED}" if suffix else "not a file"
        return [f"--{name} {path} is a folder, {kind}; give a file"]
    more = f" (and {len(inside) - SHOWN} more)" if len(inside) > SHOWN else ""
    shown = ", ".join(str(p) for p in inside[:SHOWN])
    return [f"--{name} {path} is a folder; give one of its files: {shown}{more}"]


# where a --ckpt folder's checkpoints are looked for (:func:`_checkpoints_in`)
SEARCHED = (
    "(in it, its checkpoints/ and the run folders sanbench made in it; under it only when "
    "sanbench made it or the folder holding it)"
)


MADE_ABOVE = 3  # a suite's runs/TASK/ENCODER: the deepest folder above a run's


def _checkpoints_in(folder: Path) -> list[Path]:
    """The checkpoints a ``--ckpt`` folder offers: every one under a folder sanbench made (a
    fit's, a suite's), else its own, those of its ``checkpoints/`` and every one under each
    folder in it that sanbench made (a folder of fit runs): a search of any folder given
    walked all of ``/tmp`` and named other users' runs. A folder inside one sanbench made (a
    suite's ``runs/`` or ``runs/trec/``, :data:`MADE_ABOVE` levels up at most) is its."""
    if any(made_by_sanbench(above) for above in [folder, *folder.parents[:MADE_ABOVE]]):
        return sorted(folder.rglob(f"*{CHECKPOINT_SUFFIX}"))
    own = sorted(folder.glob(f"*{CHECKPOINT_SUFFIX}"))
    own += sorted(folder.glob(f"checkpoints/*{CHECKPOINT_SUFFIX}"))
    return own + [p for run in _runs_in(folder) for p in sorted(run.rglob(f"*{CHECKPOINT_SUFFIX}"))]


def _runs_in(folder: Path) -> list[Path]:
    """The folders directly in ``folder`` that sanbench made (one not readable is passed by)."""
    try:
        children = sorted(p for p in folder.iterdir() if p.is_dir())
    except OSError:
        return []
    runs = []
    for child in children:
        try:
            if made_by_sanbench(child):
                runs.append(child)
        except OSError:
            continue
    return runs
