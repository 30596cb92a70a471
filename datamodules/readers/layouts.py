"""Finding which packaging a data folder uses, and reading one split of it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from datamodules.errors import DataFormatError, MissingSplitError
from datamodules.paths import expanded
from datamodules.readers import kim2014, nli, senteval, sick, table
from datamodules.readers.base import Layout, SplitData
from datamodules.task_spec import TaskSpec

LAYOUTS: dict[str, Layout] = {
    layout.name: layout
    for layout in (kim2014.LAYOUT, sick.LAYOUT, nli.JSONL, nli.TXT, senteval.LAYOUT)
}


def resolve_layout(
    task: TaskSpec, data_dir: Path | None, layout: str | None = None
) -> tuple[Layout, Path]:
    """The layout and folder holding ``task``'s files.

    Looks in ``data_dir`` and then its immediate subfolders (so the parent of ``kim2014/``,
    ``sick2014/`` ... works too); the first layout with at least one of the task's files
    wins. ``layout`` restricts the search to one named layout. A task file's task reads the
    files it names (``data_dir`` is not used).
    """
    if task.table is not None:
        return table.LAYOUT, task.table.folder
    if data_dir is None:
        raise FileNotFoundError(f"task {task.name!r} needs its data folder (--data-dir)")
    data_dir = expanded(data_dir)
    if not data_dir.is_dir():
        raise FileNotFoundError(f"data folder {data_dir} does not exist (check --data-dir)")
    if layout is not None and layout not in LAYOUTS:
        raise KeyError(f"unknown layout {layout!r}; known layouts: {', '.join(LAYOUTS)}")
    candidates = [LAYOUTS[layout]] if layout else list(LAYOUTS.values())
    roots = [data_dir, *sorted(p for p in data_dir.iterdir() if p.is_dir())]
    for root in roots:
        for candidate in candidates:
            files = candidate.files(task, root)
            if files and any(path.is_file() for paths in files.values() for path in paths):
                return candidate, root
    looked = sorted(
        {
            path.name
            for c in candidates
            for paths in (c.files(task, data_dir) or {}).values()
            for path in paths
        }
    )
    raise FileNotFoundError(
        f"no files for task {task.name!r} in {data_dir} or its subfolders "
        f"(layouts tried: {', '.join(c.name for c in candidates)}; file names looked for: "
        f"{', '.join(looked)}). Point --data-dir at the folder holding them."
    )


def no_files_error(task: TaskSpec, root: Path, error: FileNotFoundError) -> DataFormatError:
    """The refusal of the folder ``root`` holding none of ``task``'s files
    (:func:`resolve_layout`'s ``error``), in a data file's words."""
    return DataFormatError(root, None, f"the files of task {task.name!r}", "none", str(error))


def task_files_problem(task: TaskSpec, data_dir: Path, layout: str | None = None) -> str | None:
    """What :func:`no_files_error` says of ``data_dir`` when it holds none of ``task``'s files
    (None: it holds some, or it is no folder, or the layout is unknown: said elsewhere); read
    before the data, for a refusal of other values to say too."""
    try:
        resolve_layout(task, data_dir, layout)
    except FileNotFoundError as error:
        return str(no_files_error(task, Path(data_dir), error)) if data_dir.is_dir() else None
    except KeyError:
        return None
    return None


def data_dir_problem(
    tasks: Sequence[TaskSpec], data_dir: Path, layout: str | None = None
) -> str | None:
    """One line for the folder ``data_dir`` holding none of the files of some of ``tasks``,
    led by the option naming it (``--data-dir /tmp/w: expected the files of task 'trec'
    ...``), the tasks it lacks named once (None: it holds some of each, or is no folder)."""
    problems = {task.name: task_files_problem(task, data_dir, layout) for task in tasks}
    lacking = [name for name, problem in problems.items() if problem]
    if len(lacking) == 1:
        return f"--data-dir {problems[lacking[0]]}"
    if not lacking:
        return None
    names = ", ".join(repr(name) for name in lacking)
    return (
        f"--data-dir {data_dir}: expected the files of tasks {names}; found none of them; fix: "
        "point --data-dir at the folder holding them (`sanbench data stats --task NAME "
        "--data-dir FOLDER` names the files looked for)"
    )


def split_files(task: TaskSpec, layout: Layout, root: Path, split: str) -> tuple[Path, ...]:
    """Files of source split ``split``; :class:`MissingSplitError` when any is absent."""
    files = (layout.files(task, root) or {}).get(split)
    if files is None:
        raise KeyError(f"task {task.name!r} has no split {split!r}; it has {task.source_splits}")
    missing = [path for path in files if not path.is_file()]
    if missing:
        hint = f"Add the file(s) to {root}" + (
            " (every stage needs them: the vocabulary is built from the training split)."
            if split in ("train", "all")
            else f", or do not run the stage that uses {split!r}."
        )
        raise MissingSplitError(task.name, split, missing, hint)
    return files


def load_split(
    task: TaskSpec, layout: Layout, root: Path, split: str, encoding: str | None = None
) -> SplitData:
    """Read source split ``split`` (``encoding``: see :func:`read_lines`); empty is an error."""
    files = split_files(task, layout, root, split)
    data = layout.read(task, split, files, encoding)
    if not data.examples:
        raise DataFormatError(
            files[0], None, "at least one example", "none", "check that the file is complete"
        )
    return data
