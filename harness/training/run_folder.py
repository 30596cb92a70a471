"""One run folder per configuration: ``fit_config.yaml`` says which run a folder holds.

A folder is resumed only by the configuration that made it, or one that differs only by a
larger budget (``trainer.max_epochs``/``max_steps``: the run continues from ``last.ckpt``);
another one is refused (with the differing keys) unless ``overwrite`` deletes the folder first.
``overwrite`` deletes only a folder sanbench made as a run folder: one holding the marker file
:data:`MARKER` (written before anything else) and ``fit_config.yaml``. Anything else is refused
and left untouched.
"""

from __future__ import annotations

import importlib
import itertools
import math
import os
import shutil
from pathlib import Path
from typing import Any

import yaml

from datamodules.vectors import RANDOM_VECTORS_DIM
from harness.errors import InputError
from harness.outdir import (
    OutIsFileError,
    check_made_by,
    foreign_files,
    holds_no_file,
    is_fit_config,
    is_lock_file,
    unmakeable_folder,
)
from harness.training.settings.optimizers import OWN_DECAY
from harness.training.settings.task_configs import PAPERS_OPTIMIZER_KEYS as PAPERS_KEYS
from harness.training.settings.task_configs import dotted
from reports.contracts.atomic import write_text_atomic
from reports.contracts.fit_folder import (
    CHECKPOINTS,
    FIT_SECTIONS,
    LOGS,
    METRICS,
    RESUMES,
    FitRunFolder,
)
from reports.contracts.fit_folder import CONFIG as FILE_NAME
from reports.contracts.manifest import MANIFEST

# a larger budget continues a run (finished or not) instead of being another run
BUDGET = ("trainer.max_epochs", "trainer.max_steps")
FINISHED = (METRICS, MANIFEST)  # written when a run ends; an extension drops them
MARKER = ".sanbench-run"  # "this folder is a run folder sanbench made"; --overwrite needs it
# keys that do not change what a run computes: a resume may change them
NOT_COMPARED = ("out", "data.data_dir", "data.num_workers", "data.cache_dir", "data.max_length",
                "trainer.enable_progress_bar", "trainer.log_every_n_steps", "trainer.logger",
                "run.checkpoint_every_minutes", "run.checkpoint_every_n_steps")  # fmt: skip
# what every fit config sanbench wrote holds (since 2026-11-24): FIT_SECTIONS as mappings and
# these keys, ``out`` after the sections; a file lacking any was cut or edited by hand
EVERY_CONFIGS = ("out", *(f"run.{key}" for key in ("early_stopping_patience", "ema_decay",
    "checkpoint_every_minutes", "checkpoint_every_n_steps", "compile")))  # fmt: skip
EPOCH_END_CHECK = "check_on_train_epoch_end"  # EarlyStopping's; sanbench runs it False when unset


# Lightning's defaults a config that never gave the option holds unset (its -1 of max_steps:
# no limit; a limit's 1.0: the whole split or epoch): given at them, the same setting as not given
AS_UNSET = {"trainer.max_steps": -1} | dict.fromkeys(
    ("trainer.limit_train_batches", "trainer.limit_val_batches", "trainer.limit_test_batches",
     "trainer.limit_predict_batches", "trainer.val_check_interval"),
    1.0,
)  # fmt: skip


NOT_WHOLE = "not a whole fit config sanbench wrote (cut or edited by hand?)"


class RunFolderError(InputError):
    """``--out`` holds another run."""


def _flat(fit_config: dict[str, Any]) -> dict[str, Any]:
    """``fit_config``'s keys dotted (``data.max_length``)."""
    sections = {k: v for k, v in fit_config.items() if isinstance(v, dict)}
    return {k: v for k, v in fit_config.items() if k not in sections} | dotted(sections)


def _comparable(fit_config: dict[str, Any]) -> dict[str, Any]:
    kept = {k: _unset(k, v) for k, v in _flat(fit_config).items() if k not in NOT_COMPARED}
    if kept.get("data.embeddings"):  # the same vectors may live at another path elsewhere
        kept["data.embeddings"] = Path(str(kept["data.embeddings"])).name
    if kept.get("optimizer.class_path"):  # --optimizer CLASS: the papers' keys did not run
        kept = {k: v for k, v in kept.items() if k not in {f"model.{p}" for p in PAPERS_KEYS}}
        # nor the class's own decay (recorded beside model.weight_decay until 2026-11-30)
        init_args = kept.get("optimizer.init_args") or {}
        kept["optimizer.init_args"] = {k: v for k, v in init_args.items() if k != OWN_DECAY}
    if kept.get("data.embedding_dim") is None:  # unset (since 2026-11-29; 300 was written before)
        kept["data.embedding_dim"] = RANDOM_VECTORS_DIM  # the random vectors' width either way
    if isinstance(kept.get("trainer.callbacks"), list):
        kept["trainer.callbacks"] = [_as_run(callback) for callback in kept["trainer.callbacks"]]
    return kept


def _is_early_stopping(class_path: Any) -> bool:
    """Whether ``class_path`` names EarlyStopping or a subclass (False: a class not importable
    now, as a saved run's may be)."""
    from lightning.pytorch.callbacks import EarlyStopping

    module, _, name = str(class_path).rpartition(".")
    try:
        found = getattr(importlib.import_module(module), name) if module else None
    except (ImportError, AttributeError):
        return False
    return isinstance(found, type) and issubclass(found, EarlyStopping)


def _as_run(callback: Any) -> Any:
    """A ``--trainer.callbacks`` entry as it runs: an EarlyStopping leaving
    ``check_on_train_epoch_end`` unset runs with False (``fit_cli.check_after_validation``), which
    its record holds, while its command gives it unset (until 2026-11-30 that command was
    refused as another run)."""
    if not isinstance(callback, dict) or not _is_early_stopping(callback.get("class_path")):
        return callback
    init_args = callback.get("init_args") or {}
    if init_args.get(EPOCH_END_CHECK) is not None:
        return callback
    return {**callback, "init_args": {**init_args, EPOCH_END_CHECK: False}}


def _differences(saved: dict[str, Any], wanted: dict[str, Any], prefix: str = "") -> list[str]:
    """One line per key whose value differs: of a mapping in both (a class's ``init_args``,
    ``model.encoder_options``), each entry that differs (``optimizer.init_args.lr: 0.05
    there, 0.07 now``, not both mappings whole), and so of a list in both, entry by entry
    (``trainer.callbacks[0].init_args.patience: 5 there, 3 now``); a class's arguments not
    beside another class (its ``class_path`` line says it)."""
    lines = []
    for key in sorted(set(saved) | set(wanted)):
        there, now = saved.get(key), wanted.get(key)
        base, dot, last = key.rpartition(".")
        class_key = f"{base}{dot}class_path"
        if there == now or (last == "init_args" and saved.get(class_key) != wanted.get(class_key)):
            continue
        if isinstance(there, dict) and isinstance(now, dict):
            lines += _differences(there, now, f"{prefix}{key}.")
        elif isinstance(there, list) and isinstance(now, list):
            for index, (one, other) in enumerate(itertools.zip_longest(there, now)):
                lines += _differences({f"{key}[{index}]": one}, {f"{key}[{index}]": other}, prefix)
        else:
            there_said, now_said = as_written(there, now)
            lines.append(f"{prefix}{key}: {there_said} there, {now_said} now")
    return lines


def _unset(key: str, value: Any) -> Any:
    """``value`` of ``key``, None for Lightning's default of :data:`AS_UNSET` (an int limit of
    1 is one batch, not the default 1.0). Until 2026-11-30 a rerun without the option said
    ``trainer.max_steps: 20 there, -1 now``, and one with ``--limit-val-batches 1.0`` over a
    folder made without it was refused: ``not set there, 1 now``."""
    default = AS_UNSET.get(key)
    same_type = type(value) is type(default)  # 1 (one batch) is not 1.0 (all of them)
    return None if default is not None and same_type and value == default else value


def as_written(there: Any, now: Any) -> tuple[str, str]:
    """Two values of a key as a user writes them in a config (``not set`` for none, ``adam``,
    ``false``, a number to 3 significant digits, more where that would not tell them apart);
    until 2026-11-30 Python's (``0.3333333333333333 there, None now``, ``'adam'``)."""
    for digits in (3, 6, 17):
        said = _written(there, digits), _written(now, digits)
        if said[0] != said[1]:
            return said
    return said


def _written(value: Any, digits: int) -> str:
    """``value`` in YAML's flow style, floats to ``digits`` significant digits."""
    if value is None:
        return "not set"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    if isinstance(value, dict):
        entries = ", ".join(f"{key}: {_written(leaf, digits)}" for key, leaf in value.items())
        return "{" + entries + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_written(leaf, digits) for leaf in value) + "]"
    return str(value)


def _limit(value: Any) -> float:
    """A budget value as a number: unset (None) or Lightning's -1 is no limit."""
    return math.inf if value is None or value == -1 else float(value)


def _extends(saved: dict[str, Any], wanted: dict[str, Any]) -> bool:
    """True when ``wanted`` differs from ``saved`` only by budgets none of which shrinks."""
    changed = {k for k in set(saved) | set(wanted) if saved.get(k) != wanted.get(k)}
    return (
        bool(changed)
        and changed <= set(BUDGET)
        and all(_limit(wanted.get(k)) >= _limit(saved.get(k)) for k in BUDGET)
    )


def is_run_folder(folder: Path) -> bool:
    """True when sanbench made ``folder`` as a run folder (its marker and fit config)."""
    return (
        folder.is_dir()
        and not folder.is_symlink()
        and (folder / MARKER).is_file()
        and (folder / FILE_NAME).is_file()
    )


def _contents(folder: Path) -> list[Path]:
    """What ``folder`` holds besides writer locks."""
    return [path for path in folder.iterdir() if not is_lock_file(path)]


def _is_whole(path: Path) -> bool:
    """Whether ``path`` is a fit config sanbench wrote, whole (:data:`FIT_SECTIONS`,
    :data:`EVERY_CONFIGS`): until 2026-12-01 one cut short was compared key by key, as another
    run's (``run.compile: not set there, false now``)."""
    return is_fit_config(path) and _whole(yaml.safe_load(path.read_text(encoding="utf-8")))


def _whole(config: Any) -> bool:
    """Whether ``config`` (a fit config's mapping) holds every section and key each holds."""
    if not isinstance(config, dict):
        return False
    sections = all(isinstance(config.get(section), dict) for section in FIT_SECTIONS)
    return sections and set(EVERY_CONFIGS) <= set(_flat(config))


def _saved_config(out_dir: Path) -> dict[str, Any] | None:
    """The fit config of the run ``out_dir`` holds (None: it holds no file of that name);
    :class:`RunFolderError` when a file of that name is not a whole one (a user's, or cut)."""
    path = out_dir / FILE_NAME
    if not os.path.lexists(path):
        return None
    if not _is_whole(path):
        raise RunFolderError(
            f"--out {out_dir}: its {FILE_NAME} is {NOT_WHOLE}, so no run there can be checked "
            "or resumed; nothing was touched. Choose another --out (a new or empty folder), or "
            "restore that file if sanbench wrote it"
        )
    return _comparable(yaml.safe_load(path.read_text()))


def differences_from_saved(out_dir: Path, text: str) -> list[str]:
    """How the run whose fit config is ``text`` differs from the run ``out_dir`` holds (one
    line per key; none when they are the same or no run is there)."""
    saved = _saved_config(out_dir) if out_dir.is_dir() else None
    return [] if saved is None else _differences(saved, _comparable(yaml.safe_load(text)))


def check_out_path(out_dir: Path) -> None:
    """Raise :class:`OutIsFileError` or :class:`RunFolderError` when no run folder can be at
    ``out_dir`` whatever the run: a file, a folder that cannot be made or written, another
    command's folder. It reads no config: said beside the options' problems too."""
    if out_dir.exists() and not out_dir.is_dir():
        raise OutIsFileError(
            f"--out {out_dir} is a file, not a folder: a fit writes a run folder there. Choose "
            "another --out (a new or empty folder, or a run folder to resume); nothing was touched."
        )
    if problem := unmakeable_folder(out_dir):
        raise RunFolderError(f"{problem}; nothing was created. Choose another --out")
    check_made_by(out_dir, "fit")  # a suite's, a profile's, ... folder is not a run folder


def foreign_folder_problem(out_dir: Path, overwrite: bool) -> str | None:
    """The problem of a folder of the user's at ``out_dir``, which no run resumes (it holds
    files sanbench did not make: a ``fit_config.yaml`` copied there with no marker is one),
    in the words every command says it (:func:`harness.outdir.foreign_files`); None: none, or
    ``overwrite`` (:func:`check_run_folder` says why it deletes no such folder). It reads no
    config: said beside the options' problems too. Until 2026-12-01 a folder holding a copied
    fit_config.yaml beside a file of the user's was taken for a killed start and emptied."""
    if overwrite or not out_dir.is_dir() or is_run_folder(out_dir) or _unreadable_config(out_dir):
        return None  # an unreadable fit_config.yaml is said as such (:func:`_saved_config`)
    return foreign_files(out_dir)


def _unreadable_config(out_dir: Path) -> bool:
    path = out_dir / FILE_NAME
    return os.path.lexists(path) and not is_fit_config(path)


def config_not_whole(out_dir: Path) -> bool:
    """Whether ``out_dir`` holds a ``fit_config.yaml`` that is not a whole fit config (one
    :func:`check_run_folder` refuses as :data:`NOT_WHOLE`)."""
    path = out_dir / FILE_NAME
    return os.path.lexists(path) and not _is_whole(path)


def check_run_folder(out_dir: Path, text: str, overwrite: bool) -> None:
    """Raise :class:`RunFolderError` unless ``out_dir`` can take the run whose fit config is
    ``text``; nothing is touched. It reads only ``out_dir``: ``fit`` calls it before any data
    is read."""
    check_out_path(out_dir)
    # a folder holding no file (empty folders at most) is empty, as for every command
    holds = out_dir.is_dir() and not holds_no_file(out_dir)
    if overwrite:
        if holds and not is_run_folder(out_dir):
            raise RunFolderError(
                f"{out_dir} was not made by sanbench as a run folder (it lacks {MARKER} or "
                f"{FILE_NAME}), so --overwrite does not delete it; nothing was touched. "
                "Choose another --out, or delete it yourself."
            )
        return
    if problem := foreign_folder_problem(out_dir, overwrite):
        raise RunFolderError(problem)
    saved = _saved_config(out_dir) if out_dir.is_dir() else None
    if saved is None:
        if holds:  # sanbench's files only (a marker's folder that lost its fit config)
            raise RunFolderError(
                f"{out_dir} is not empty and has no {FILE_NAME}, so it is not a sanbench fit "
                "folder this run could resume. Choose another --out (a new or empty folder)."
            )
        return
    wanted = _comparable(yaml.safe_load(text))
    differences = _differences(saved, wanted)
    if differences and not _extends(saved, wanted) and not killed_start(out_dir):
        raise RunFolderError(
            f"{out_dir} holds another run ({'; '.join(differences)}). Choose another --out, "
            "or add --overwrite to delete that run and start this one (a larger "
            f"{' or '.join(BUDGET)} alone continues it)."
        )


def finished_with(out_dir: Path, text: str) -> bool:
    """Whether ``out_dir`` holds the finished run of the fit config ``text`` (a larger budget
    continues it): its rerun trains nothing and reads no data file."""
    finished = (out_dir / METRICS).is_file()  # written last
    return finished and _saved_config(out_dir) == _comparable(yaml.safe_load(text))


def discard_started_run(out_dir: Path) -> None:
    """Delete what a new run wrote in ``out_dir`` before it failed with nothing to resume from
    (no checkpoint): its marker and ``fit_config.yaml`` would refuse a corrected re-run as
    another run (docs/reliability.md, "a failed start"). Writer locks stay."""
    for path in _contents(out_dir):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()


def killed_start(out_dir: Path) -> bool:
    """Whether ``out_dir`` is a run folder whose start stopped (killed) before its first
    checkpoint: nothing in it can be resumed, so any run may start afresh there (until
    2026-12-01 another run was refused "holds another run")."""
    run = FitRunFolder(out_dir)
    if not is_run_folder(out_dir) or run.finished() or run.last_checkpoint.is_file():
        return False
    return all(_of_a_start(path) for path in _contents(out_dir))


def _of_a_start(path: Path) -> bool:
    """Whether ``path``, in a run folder, is what a start writes before its first checkpoint:
    its marker and config, Lightning's ``logs/version_N`` folders, an empty ``checkpoints``.
    Anything else is kept (until 2026-12-01 a file of the user's in a killed start's folder
    was deleted with it, silently: outside check 16y, item 1)."""
    if path.is_symlink():
        return False
    if path.name in (MARKER, FILE_NAME, RESUMES):
        return path.is_file()
    if path.name == CHECKPOINTS:
        return path.is_dir() and not any(path.iterdir())
    if path.name == LOGS:
        return path.is_dir() and all(
            log.is_dir() and not log.is_symlink() and log.name.startswith("version_")
            for log in path.iterdir()
        )
    return False


def starts_afresh(out_dir: Path) -> bool:
    """Whether a run at ``out_dir`` trains from its first step: no run folder there, or a
    :func:`killed_start`."""
    return not is_run_folder(out_dir) or killed_start(out_dir)


def _uncompared(fit_config: dict[str, Any]) -> dict[str, Any]:
    """The :data:`NOT_COMPARED` keys of ``fit_config``, dotted."""
    return {k: v for k, v in _flat(fit_config).items() if k in NOT_COMPARED}


def used_values(out_dir: Path) -> dict[str, list[Any]] | None:
    """Each :data:`NOT_COMPARED` key's values the finished run in ``out_dir`` trained with: its
    start's, then each resume's that changed it, as ``metrics.json`` (its ``config`` and
    ``resumes``) and the folder's ``fit_config.yaml`` and :data:`RESUMES` say. None when
    neither can be read, or they disagree (a folder deleted or edited by hand): unknown."""
    run = FitRunFolder(out_dir)
    said = []
    for read in (_metrics_record, _files_record):
        try:
            said.append(read(run))
        except (OSError, ValueError, yaml.YAMLError, AttributeError, TypeError, KeyError):
            continue
    if not said or any(record != said[0] for record in said):
        return None
    started, changes = said[0]
    values = {key: [value] for key, value in started.items()}
    for change in changes:
        for key, there_now in change.items():
            if there_now["now"] not in values.setdefault(key, [there_now["there"]]):
                values[key].append(there_now["now"])
    return values


def _metrics_record(run: FitRunFolder) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    metrics = run.read_metrics()
    return _checked_record(metrics["config"], metrics["resumes"])


def _files_record(run: FitRunFolder) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    started = yaml.safe_load(run.config.read_text())
    return _checked_record(started, resumes(run.folder))


def _checked_record(started: Any, changes: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A run's fit config (its :data:`NOT_COMPARED` keys) and resumes, or ``TypeError`` when
    either is not one."""
    if not _whole(started):
        raise TypeError("not a whole fit config")
    if not isinstance(changes, list) or not all(
        isinstance(change, dict)
        and all(isinstance(v, dict) and {"there", "now"} <= set(v) for v in change.values())
        for change in changes
    ):
        raise TypeError("not a list of resumes")
    return _uncompared(started), changes


def resumes(out_dir: Path) -> list[dict[str, Any]]:
    """Each resume of the run in ``out_dir`` that changed a :data:`NOT_COMPARED` key: the
    keys with the value the run had until then (``there``) and from then on (``now``)."""
    path = out_dir / RESUMES
    return yaml.safe_load(path.read_text()) if path.is_file() else []


def _record_resume(out_dir: Path, text: str) -> None:
    """Add to :data:`RESUMES` the :data:`NOT_COMPARED` keys on which the resuming config
    ``text`` differs from the run's until now (its ``fit_config.yaml`` and earlier resumes)."""
    until_now = _uncompared(yaml.safe_load((out_dir / FILE_NAME).read_text()))
    for earlier in resumes(out_dir):
        until_now |= {key: values["now"] for key, values in earlier.items()}
    now = _uncompared(yaml.safe_load(text))
    changed = {
        key: {"there": until_now.get(key), "now": now.get(key)}
        for key in sorted(set(until_now) | set(now))
        if until_now.get(key) != now.get(key)
    }
    if changed:
        write_text_atomic(out_dir / RESUMES, yaml.safe_dump([*resumes(out_dir), changed]))


def prepare_run_folder(out_dir: Path, text: str, overwrite: bool, writer: bool) -> None:
    """Make ``out_dir`` ready for the run whose fit config is ``text``, or raise
    :class:`RunFolderError` (:func:`check_run_folder`) having touched nothing.

    ``overwrite`` empties a run folder sanbench made (writer locks stay); a larger budget drops
    the finished results so training continues from ``last.ckpt``. A start killed before its
    first checkpoint is discarded: this run starts afresh and ``fit_config.yaml`` is ``text``
    (until 2026-12-01 it kept the killed start's ``data.max_length``); a resume under another
    :data:`NOT_COMPARED` value is recorded in :data:`RESUMES`. ``writer`` is False on every
    process but rank 0 of a distributed run: they only check.
    """
    check_run_folder(out_dir, text, overwrite)
    if not writer:
        return
    if overwrite and is_run_folder(out_dir):  # never another folder's (empty) folders
        for path in _contents(out_dir):
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
    saved = _saved_config(out_dir) if out_dir.is_dir() else None
    if saved is not None and killed_start(out_dir):  # nothing to resume
        discard_started_run(out_dir)
    elif saved is not None:
        _record_resume(out_dir, text)
        if saved != _comparable(yaml.safe_load(text)):  # a larger budget: the run goes on
            for name in FINISHED:
                (out_dir / name).unlink(missing_ok=True)
            write_text_atomic(out_dir / FILE_NAME, text)
        return
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / MARKER).write_text("a sanbench run folder: sanbench fit --overwrite may delete it\n")
    write_text_atomic(out_dir / FILE_NAME, text)
