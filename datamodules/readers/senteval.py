"""SentEval ``data/downstream`` layout (also InferSent's s1/s2/labels files for SNLI/MultiNLI).

``root`` may be the ``downstream`` folder or the task's own folder (e.g. ``.../SNLI``).
"""

from __future__ import annotations

from pathlib import Path

from datamodules.errors import DataFormatError, Problems, shorten
from datamodules.readers.base import Example, Layout, SplitData, class_index
from datamodules.readers.nli import read_s1_s2_labels
from datamodules.readers.sick import read_sick_file
from datamodules.task_spec import TaskSpec
from datamodules.text import read_lines

NAME = "senteval"
# How a task's lines read in SentEval's release (``Release.lines`` of its ``senteval`` release)
LABEL_SENTENCE = "label sentence"  # SST fine-grained
SENTENCE_TAB_LABEL = "sentence<TAB>label"  # SST binary
QUESTIONS = "COARSE:fine question"  # TREC
CLASS_FILES = "one file per class, in class-index order"  # CR, MPQA, SUBJ, MR
SICK_PAIRS = "SICK's tab-separated pairs"
S1_S2_LABELS = "s1, s2 and labels files"  # SNLI, MultiNLI (InferSent's)


def _files(task: TaskSpec, root: Path) -> dict[str, tuple[Path, ...]] | None:
    return task.release_files(NAME, root)


def _lines(task: TaskSpec) -> str:
    release = task.release(NAME)
    assert release is not None  # read only where _files found the task
    return release.lines


def parse_sst_line(task: TaskSpec, line: str) -> tuple[int | None, tuple[str, ...]]:
    """SST binary ``sentence<TAB>label`` or fine ``label sentence`` -> (class or None, tokens)."""
    if _lines(task) == SENTENCE_TAB_LABEL:
        sentence, _, label = line.rpartition("\t")
    else:
        label, _, sentence = line.partition(" ")
    return class_index(task, label.strip()), tuple(sentence.split())


def parse_trec_line(task: TaskSpec, line: str) -> tuple[int | None, tuple[str, ...]]:
    """``COARSE:fine question tokens`` -> (coarse class or None, question tokens)."""
    head, _, question = line.partition(" ")
    coarse = head.split(":", 1)[0]
    index = task.labels.index(coarse) if ":" in head and coarse in task.labels else None
    return index, tuple(question.split())


def _read_lines_of(
    task: TaskSpec, path: Path, parse, expected: str, encoding: str | None
) -> list[Example]:
    examples = []
    problems = Problems(path)
    fix = f"correct or delete the line, or check that --task {task.name} matches the file"
    for number, line in enumerate(read_lines(path, encoding, problems), start=1):
        label, tokens = parse(task, line)
        if label is None:
            problems.add(number, expected, shorten(line), fix)
            continue
        examples.append(Example(tokens, label, source=(path, number)))
    problems.raise_any()
    return examples


def _read(task: TaskSpec, split: str, files: tuple[Path, ...], encoding: str | None) -> SplitData:
    lines = _lines(task)
    if lines == SICK_PAIRS:
        return SplitData(split, read_sick_file(files[0], encoding), files)
    if lines == S1_S2_LABELS:
        return read_s1_s2_labels(task, split, files, encoding)
    if lines == QUESTIONS:
        expected = f"'COARSE:fine question' with COARSE in {', '.join(task.labels)}"
        examples = _read_lines_of(task, files[0], parse_trec_line, expected, encoding)
        return SplitData(split, examples, files)
    if lines == CLASS_FILES:
        examples = []
        for label, path in enumerate(files):
            lines_read = read_lines(path, encoding)
            if not lines_read:
                raise DataFormatError(
                    path,
                    None,
                    f"the sentences of class {task.labels[label]!r}, one a line",
                    "an empty file (the task would train and test on the other class only)",
                    "restore the file from the SentEval release",
                )
            examples += [
                Example(tuple(line.split()), label, source=(path, number))
                for number, line in enumerate(lines_read, start=1)
            ]
        return SplitData(split, examples, files)
    classes = f"0..{task.num_classes - 1}"
    shape = f"'{lines}'"
    expected = f"{shape} with label in {classes}"
    examples = _read_lines_of(task, files[0], parse_sst_line, expected, encoding)
    return SplitData(split, examples, files)


LAYOUT = Layout(NAME, _files, _read)
