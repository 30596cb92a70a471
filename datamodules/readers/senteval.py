"""SentEval ``data/downstream`` layout (also InferSent's s1/s2/labels files for SNLI/MultiNLI).

``root`` may be the ``downstream`` folder or the task's own folder (e.g. ``.../SNLI``).
"""

from __future__ import annotations

from pathlib import Path

from datamodules.errors import DataFormatError, Problems, shorten
from datamodules.readers.base import Example, Layout, SplitData, class_index
from datamodules.readers.nli import read_s1_s2_labels
from datamodules.readers.sick import FILES as SICK_FILES
from datamodules.readers.sick import read_sick_file
from datamodules.task_spec import TaskSpec
from datamodules.text import read_lines

FOLDER = {
    "sst1": "SST/fine",
    "sst2": "SST/binary",
    "trec": "TREC",
    "cr": "CR",
    "mpqa": "MPQA",
    "subj": "SUBJ",
    "mr": "MR",
    "sick": "SICK",
    "snli": "SNLI",
    "multinli": "MultiNLI",
}
# one file per class, in class-index order
CLASS_FILES = {
    "cr": ("custrev.neg", "custrev.pos"),
    "mpqa": ("mpqa.neg", "mpqa.pos"),
    "subj": ("subj.subjective", "subj.objective"),
    "mr": ("rt-polarity.neg", "rt-polarity.pos"),
}
TREC_FILES = {"train": "train_5500.label", "test": "TREC_10.label"}


def _names(task: TaskSpec) -> dict[str, tuple[str, ...]]:
    if task.name in CLASS_FILES:
        return {"all": CLASS_FILES[task.name]}
    if task.name == "trec":
        return {s: (n,) for s, n in TREC_FILES.items()}
    if task.name == "sick":
        return {s: (n,) for s, n in SICK_FILES.items()}
    if task.kind == "pair":
        return {s: (f"s1.{s}", f"s2.{s}", f"labels.{s}") for s in task.source_splits}
    return {s: (f"sentiment-{s}",) for s in task.source_splits}


def _files(task: TaskSpec, root: Path) -> dict[str, tuple[Path, ...]] | None:
    names = _names(task)
    folder = root / FOLDER[task.name]
    base = folder if folder.is_dir() else root
    return {split: tuple(base / n for n in files) for split, files in names.items()}


def parse_sst_line(task: TaskSpec, line: str) -> tuple[int | None, tuple[str, ...]]:
    """SST binary ``sentence<TAB>label`` or fine ``label sentence`` -> (class or None, tokens)."""
    if task.name == "sst2":
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
    if task.name == "sick":
        return SplitData(split, read_sick_file(files[0], encoding), files)
    if task.kind == "pair":
        return read_s1_s2_labels(task, split, files, encoding)
    if task.name == "trec":
        expected = f"'COARSE:fine question' with COARSE in {', '.join(task.labels)}"
        examples = _read_lines_of(task, files[0], parse_trec_line, expected, encoding)
        return SplitData(split, examples, files)
    if task.name in CLASS_FILES:
        examples = []
        for label, path in enumerate(files):
            lines = read_lines(path, encoding)
            if not lines:
                raise DataFormatError(
                    path,
                    None,
                    f"the sentences of class {task.labels[label]!r}, one a line",
                    "an empty file (the task would train and test on the other class only)",
                    "restore the file from the SentEval release",
                )
            examples += [
                Example(tuple(line.split()), label, source=(path, number))
                for number, line in enumerate(lines, start=1)
            ]
        return SplitData(split, examples, files)
    classes = f"0..{task.num_classes - 1}"
    shape = "'sentence<TAB>label'" if task.name == "sst2" else "'label sentence'"
    expected = f"{shape} with label in {classes}"
    examples = _read_lines_of(task, files[0], parse_sst_line, expected, encoding)
    return SplitData(split, examples, files)


LAYOUT = Layout("senteval", _files, _read)
