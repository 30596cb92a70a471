"""``BenchmarkDataModule``: one benchmark task as train/val/test dataloaders of token ids."""

from __future__ import annotations

import functools
import math
import warnings
from pathlib import Path
from typing import Any

import lightning as L
import numpy as np
import torch
from torch.utils.data import DataLoader

from datamodules.batches import EncodedSplit, collate
from datamodules.embeddings import embedding_matrix
from datamodules.errors import (
    DataFormatError,
    EmptySplitError,
    MissingSplitError,
    Problems,
    missing_file_error,
)
from datamodules.paths import expanded
from datamodules.readers.base import Example, Layout
from datamodules.readers.layouts import load_split, no_files_error, resolve_layout, split_files
from datamodules.sampler import BucketBatchSampler, ResumableLoader, sorted_batches
from datamodules.splits import carve, fold_problems, stratified_folds
from datamodules.tasks import TaskSpec, get_task
from datamodules.text import line_count
from datamodules.vectors import RANDOM_VECTORS_DIM, load_vectors
from datamodules.vocab import Vocab, build_vocab

RANDOM_VECTORS = (
    "no --embeddings: the word vectors start random (seeded) and are learned; the papers start "
    "from GloVe (pass --embeddings FILE, a GloVe or word2vec text file: docs/data.md "
    '"Vocabulary and embeddings")'
)


class RandomVectorsWarning(UserWarning):
    """A datamodule without a vectors file: its embedding matrix starts random. Said once per
    command (harness.quiet reads the mark): a reproduction's six tasks said it six times."""

    ONCE_PER_COMMAND = True


STAGE_SPLITS = {"fit": ("train", "val"), "validate": ("val",), "test": ("test",)}
# Longest sentence in tokens: the real benchmarks' longest is 120 (SUBJ; SST 56, SNLI 82,
# MultiNLI's longest premise ~200); a longer line is a missing line break, not a sentence,
# and would make DiSAN's [B, L, L, d] attention explode (docs/data.md, "Limits").
MAX_LENGTH = 512
DEV_FRACTION = 0.1  # the share of train carved off as dev where a task has no dev file


class BenchmarkDataModule(L.LightningDataModule):
    """Loads a task's files, builds the vocabulary and embeddings, serves padded batches.

    Split policy (from the :class:`TaskSpec`): standard dev/test files where the task has
    them; otherwise ``dev_fraction`` of train is carved off (seeded, stratified; TREC);
    for cross-validation tasks ``fold`` selects the test fold of a seeded stratified
    10-fold split and dev is carved from the other nine. ``dev_split`` / ``test_split``
    override which file split serves as validation / test (MultiNLI: ``dev_matched`` /
    ``dev_mismatched`` by default). ``encoding`` decodes every data file (None: UTF-8, see
    :func:`datamodules.text.read_lines`). The vocabulary comes from the training examples, so
    every stage needs the train split.

    Args:
        task: a task name (``sanbench data stats --help`` lists them) or a ``TaskSpec``.
        data_dir: the folder holding the task's files (or its parent, e.g. of ``kim2014/``);
            not used by a task file's task, which names its files itself.
        embeddings: a GloVe-format text file; None: random vectors (seeded).
        batch_size: training batch size (32 for classification, Bi-BloSAN §4.4; 64 for
            SNLI/SICK, §4.1/§4.3).
        seed: the seed of the dev carve-out, the CV folds and the batch order.
        fold: the test fold of a cross-validation task (0..9).
        lowercase: lower-case every token before the vocabulary lookup.
        embedding_dim: the size of random vectors without an embeddings file (None: 300, the
            papers' GloVe width); with a file, its width is used and this value is not (None
            there, so that a config never shows 300 beside 50-d vectors). After setup it is
            the width of ``embedding_matrix``.
        num_workers: DataLoader worker processes.
        layout: restrict the file search to one named layout (None: the first that matches).
        dev_fraction: the share of train carved off as dev where the task has no dev file.
        eval_batch_size: dev/test batch size (None: ``batch_size``).
        dev_split: the file split that serves as dev (MultiNLI: ``dev_matched`` by default).
        test_split: the file split that serves as test (MultiNLI: ``dev_mismatched``).
        cache_dir: where parsed vectors are cached (None: the default cache folder).
        encoding: the data files' text encoding (None: UTF-8).
        max_length: the longest sentence accepted, in tokens; a longer one is an error naming
            its line (None: no limit).
    """

    def __init__(
        self,
        task: str | TaskSpec,
        data_dir: str | Path | None = None,
        embeddings: str | Path | None = None,
        batch_size: int = 50,
        seed: int = 0,
        fold: int = 0,
        lowercase: bool = False,
        embedding_dim: int | None = None,
        num_workers: int = 0,
        layout: str | None = None,
        dev_fraction: float = DEV_FRACTION,
        eval_batch_size: int | None = None,
        dev_split: str | None = None,
        test_split: str | None = None,
        cache_dir: str | Path | None = None,
        encoding: str | None = None,
        max_length: int | None = MAX_LENGTH,
    ) -> None:
        super().__init__()
        self.task = get_task(task) if isinstance(task, str) else task
        if max_length is not None and max_length < 1:
            raise ValueError(f"max_length must be a positive number of tokens, got {max_length}")
        if self.task.cv_folds and not 0 <= fold < self.task.cv_folds:
            raise ValueError(f"fold must be in 0..{self.task.cv_folds - 1}, got {fold}")
        for name, value in (("dev_split", dev_split), ("test_split", test_split)):
            if value is not None and value not in self.task.source_splits:
                raise ValueError(f"{name} {value!r} not in {self.task.source_splits}")
        self.data_dir = None if data_dir is None else expanded(data_dir)
        self.embeddings_path = None if embeddings is None else expanded(embeddings)
        self.batch_size, self.eval_batch_size = batch_size, eval_batch_size or batch_size
        self.seed, self.fold, self.lowercase = seed, fold, lowercase
        self.embedding_dim, self.num_workers = embedding_dim, num_workers
        self.layout_name, self.dev_fraction, self.cache_dir = layout, dev_fraction, cache_dir
        self.encoding, self.max_length = encoding, max_length
        self.dev_source = dev_split or self.task.dev_source
        self.test_source = test_split or self.task.test_source
        self.datasets: dict[str, EncodedSplit] = {}
        self.dropped: dict[str, dict[str, int]] = {}
        self.vector_coverage: float | None = None
        self._examples: dict[str, list[Example]] = {}
        self._layout: Layout | None = None  # found by _load_train, with _root
        self._root = self.data_dir or Path()
        self._vocab: Vocab | None = None
        self._matrix: torch.Tensor | None = None
        self._length_stats: dict[str, float] | None = None
        self._train_loader: ResumableLoader | None = None
        self._train_position: dict[str, int] | None = None  # from a checkpoint

    # -- built by setup -------------------------------------------------------------------
    def _built(self, value):
        if value is None:
            raise RuntimeError("call setup() on the datamodule first")
        return value

    @property
    def vocab(self) -> Vocab:
        return self._built(self._vocab)

    @property
    def embedding_matrix(self) -> torch.Tensor:
        return self._built(self._matrix)

    @property
    def length_stats(self) -> dict[str, float]:
        """Mean and std of training sentence lengths in tokens (Bi-BloSAN App. A)."""
        return self._built(self._length_stats)

    # -- loading --------------------------------------------------------------------------
    def _read(self, source: str) -> list[Example]:
        """The examples of file split ``source``; DataFormatError for sentences longer than
        ``max_length`` and for training data of a single class (nothing to learn, and a test
        accuracy of 1.0)."""
        data = load_split(self.task, self._layout, self._root, source, self.encoding)
        problems = self._too_long(data.examples)
        if source in ("train", "all") and self.task.kind != "relatedness":
            present = {example.label for example in data.examples}
            if len(present) == 1:
                problems.append(
                    DataFormatError(
                        data.files[0],
                        None,
                        f"examples of at least two classes of task {self.task.name}",
                        f"only class {self.task.labels[present.pop()]!r}",
                        "check that every file is complete and that --task matches them",
                    )
                )
        if problems:
            raise DataFormatError.joined(problems)
        if data.dropped:
            self.dropped[source] = data.dropped
        return data.examples

    def _too_long(self, examples: list[Example]) -> list[DataFormatError]:
        """One error per file listing its sentences longer than ``max_length`` tokens."""
        if self.max_length is None:
            return []
        by_file: dict[Path, Problems] = {}
        for example in examples:
            longest = max(len(example.a), len(example.b or ()))
            if longest > self.max_length and example.source is not None:
                path, line = example.source
                by_file.setdefault(path, Problems(path)).add(
                    line,
                    f"sentences of at most {self.max_length} tokens (data.max_length)",
                    f"{longest} tokens",
                    "check the line (line breaks lost?), or raise --data.max_length",
                )
        return [problems.error() for problems in by_file.values()]

    def check_inputs(self) -> None:
        """Read every file a run needs (train or all, dev, test and the vectors) and raise one
        DataFormatError naming every bad line of all of them, before any training.

        What is read is kept: :meth:`setup` does not read it again. Call it before
        :meth:`setup` (afterwards it checks nothing).
        """
        if self._vocab is None:
            self._prepare(("val", "test"))

    def empty_splits(self) -> list[EmptySplitError]:
        """The splits :meth:`check_inputs` read that hold no example (a dev set carved from too
        few lines), as the errors :meth:`setup` would raise on them."""
        return [
            EmptySplitError(self.task.name, split, self._root, self._carved(split))
            for split, examples in self._examples.items()
            if not examples
        ]

    def _carved(self, split: str) -> float | None:
        """The share of train carved off as ``split``, or None when it is read from a file."""
        return self.dev_fraction if split == "val" and self.dev_source is None else None

    def _load_train(self) -> None:
        """Read the training source; carve dev / pick folds when the task needs it."""
        self._layout, self._root = resolve_layout(self.task, self.data_dir, self.layout_name)
        if self.test_source is None:  # cross-validation over "all"
            pool = self._read("all")
            folds = stratified_folds([e.label for e in pool], self.task.cv_folds, self.seed)
            self._check_folds(pool, folds)
            self._examples["test"] = [e for e, f in zip(pool, folds, strict=True) if f == self.fold]
            pool = [e for e, f in zip(pool, folds, strict=True) if f != self.fold]
        else:
            pool = self._read("train")
        if self.dev_source is None:
            kept, carved = carve([e.label for e in pool], self.dev_fraction, self.seed)
            self._check_kept(pool, kept)
            self._examples["val"] = [pool[i] for i in carved]
            pool = [pool[i] for i in kept]
        self._examples["train"] = pool

    def _check_kept(self, pool: list[Example], kept: np.ndarray) -> None:
        """DataFormatError when carving ``dev_fraction`` of each class off ``pool`` leaves a
        class (every one, for scores) no training line: the model could not learn it, and an
        empty train split ended in numpy's "Mean of empty slice" and advice about the file."""
        labels = [e.label for e in pool]
        left = {labels[i] for i in kept}
        if self.task.kind == "relatedness":
            lost = [] if len(kept) or not pool else ["every score"]
        else:
            names = self.task.labels
            lost = [
                f"{names[label] if isinstance(label, int) and label < len(names) else label} "
                f"({labels.count(label)} line(s))"
                for label in sorted(set(labels) - left)
            ]
        if not lost:
            return
        path = pool[0].source[0] if pool[0].source else self._root
        raise DataFormatError(
            path,
            None,
            "a training line of each class left after the dev share is carved off",
            f"--data.dev_fraction {self.dev_fraction} carves off every line of " + ", ".join(lost),
            f"give a smaller --data.dev_fraction (default {DEV_FRACTION}) or more training lines",
        )

    def _check_folds(self, pool: list[Example], folds: np.ndarray) -> None:
        """Every fold, not only ``fold``: a suite runs them all, and each must be refused before
        any of them trains. DataFormatError naming each fold whose training part lacks a class
        of the file, or that holds no example."""
        names = None if self.task.kind == "relatedness" else self.task.labels
        labels = [e.label for e in pool]
        problems = fold_problems(labels, folds, self.task.cv_folds, names)
        if not problems:
            return
        path = pool[0].source[0] if pool and pool[0].source else self._root
        count = self.task.cv_folds
        raise DataFormatError.joined(
            [
                DataFormatError(
                    path,
                    None,
                    f"examples of every class in the training part of every fold, and an "
                    f"example in each of the {count} folds",
                    problem,
                    "give every class at least two examples, or use fewer folds",
                )
                for problem in problems
            ]
        )

    def _untrained_classes(self, examples: list[Example]) -> list[DataFormatError]:
        """One error per class of a dev or test file (``examples``) that no training line has:
        the model never learns it and is scored on it (a fold's training part is checked so,
        :meth:`_check_folds`). None before the training lines are read, or for scores."""
        train = self._examples.get("train")
        if not train or self.task.kind == "relatedness":
            return []
        trained = {example.label for example in train}
        first: dict[int, Example] = {}
        counts: dict[int, int] = {}
        for example in examples:
            if example.label not in trained:
                first.setdefault(example.label, example)
                counts[example.label] = counts.get(example.label, 0) + 1
        source = train[0].source[0].name if train[0].source else "the training file"
        errors = []
        for label, example in first.items():
            path, line = example.source or (self._root, None)
            name, count = self.task.labels[label], counts[label]
            lines = f"{count} line{'s' if count > 1 else ''}"
            errors.append(
                DataFormatError(
                    path,
                    line,
                    f"only classes the training lines ({source}) have",
                    f"class {name!r} ({lines}), which no training line has: the model would "
                    "never learn it and be scored on it",
                    f"add training lines of {name!r}, or leave its lines out of this file",
                )
            )
        return errors

    def _prepare(self, splits: tuple[str, ...]) -> None:
        """Read train (and ``splits``, file splits not carved from train) and the vectors,
        collecting every file's problems into one DataFormatError; then build the
        vocabulary and embedding matrix."""
        errors: list[DataFormatError] = []

        def collected(read, *args):
            try:
                return read(*args)
            except DataFormatError as error:
                errors.append(error)
            except MissingSplitError as error:
                errors.append(missing_file_error(error))
            except FileNotFoundError as error:  # no file of the task in data_dir at all
                errors.append(no_files_error(self.task, self._root, error))
            return None

        collected(self._load_train)
        sources = {"val": self.dev_source, "test": self.test_source}
        for split in splits if self._layout is not None else ():
            if split not in self._examples and sources[split] is not None:
                examples = collected(self._read, sources[split])
                if examples is not None:
                    self._examples[split] = examples
                    errors += self._untrained_classes(examples)
        vectors = None
        if self.embeddings_path is not None:
            vectors = collected(load_vectors, self.embeddings_path, self.cache_dir)
        if errors:
            raise DataFormatError.joined(errors)
        if self.embeddings_path is None:  # said of data that is read, not beside its problems
            warnings.warn(RandomVectorsWarning(RANDOM_VECTORS), stacklevel=2)
        train = self._examples["train"]
        sentences = [s for e in train for s in ((e.a,) if e.b is None else (e.a, e.b))]
        if self.lowercase:
            sentences = [tuple(t.lower() for t in s) for s in sentences]
        self._vocab = build_vocab(sentences)
        lengths = np.array([len(s) for s in sentences], dtype=np.float64)
        self._length_stats = {"mean": float(lengths.mean()), "std": float(lengths.std())}
        self._matrix, coverage = embedding_matrix(
            self._vocab, vectors, self.embedding_dim or RANDOM_VECTORS_DIM, self.seed
        )
        self.embedding_dim = int(self._matrix.shape[1])  # the width used (a file's own)
        self.vector_coverage = coverage if vectors is not None else None

    def setup(self, stage: str | None = None) -> None:
        """Build vocabulary/embeddings once, then encode the splits ``stage`` needs."""
        if self._vocab is None:
            self._prepare(tuple(s for s in STAGE_SPLITS.get(stage or "fit", ()) if s != "train"))
        sources = {"val": self.dev_source, "test": self.test_source}
        for split in STAGE_SPLITS.get(stage or "fit", ("test",)):
            if split in self.datasets:
                continue
            if split not in self._examples:
                self._examples[split] = self._read(sources[split])
            if not self._examples[split]:
                raise EmptySplitError(self.task.name, split, self._root, self._carved(split))
            self.datasets[split] = EncodedSplit(self._examples[split], self.vocab, self.lowercase)

    # -- loaders --------------------------------------------------------------------------
    def _dataset(self, split: str) -> EncodedSplit:
        if split not in self.datasets:
            stage = {"train": "fit", "val": "validate", "test": "test"}[split]
            raise RuntimeError(f"call setup({stage!r}) before asking for the {split} loader")
        return self.datasets[split]

    def _loader(self, dataset: EncodedSplit, batch_sampler, loader=DataLoader) -> DataLoader:
        """A loader of ``batch_sampler``'s batches with a generator of its own: creating its
        iterator draws nothing from torch's global generator, so only the model's dropout does
        and a resumed run draws the same numbers as an uninterrupted one."""
        return loader(
            dataset,
            batch_sampler=batch_sampler,
            collate_fn=functools.partial(collate, self.task.kind),
            num_workers=self.num_workers,
            persistent_workers=self.num_workers > 0,
            generator=torch.Generator().manual_seed(self.seed),
        )

    def train_dataloader(self) -> DataLoader:
        """Length-bucketed, shuffled per epoch (seeded); sharded by batch across the replicas of
        a distributed trainer (which must run with ``use_distributed_sampler=False``). A resumed
        run goes on with the epoch and batch it stopped at (:class:`ResumableLoader`)."""
        dataset = self._dataset("train")
        replicas, rank, limit = (
            (self.trainer.world_size, self.trainer.global_rank, self.trainer.limit_train_batches)
            if self.trainer
            else (1, 0, None)
        )
        sampler = BucketBatchSampler(
            dataset.lengths(),
            self.batch_size,
            self.seed,
            num_replicas=replicas,
            rank=rank,
            limit=limit,
        )
        self._train_loader = self._loader(dataset, sampler, ResumableLoader)
        if self._train_position is not None:
            self._train_loader.load_state_dict(self._train_position)
        return self._train_loader

    def epoch_batches(self, limit: int | float | None = None, replicas: int = 1) -> int:
        """Training batches an epoch holds (per replica), with Lightning's
        ``limit_train_batches`` ``limit`` applied as the training loader applies it; 0 means an
        epoch trains on nothing. Needs ``setup("fit")``."""
        lengths = self._dataset("train").lengths()
        sampler = BucketBatchSampler(
            lengths, self.batch_size, self.seed, num_replicas=replicas, limit=limit
        )
        return sampler.epoch_length

    def eval_batches(self, split: str, batch_size: int | None = None) -> int:
        """Batches of the ``val`` or ``test`` loader, of ``batch_size`` examples (default: the
        eval batch size); needs the split read (:meth:`check_inputs`)."""
        return math.ceil(len(self._examples[split]) / (batch_size or self.eval_batch_size))

    def most_epoch_batches(
        self, limit: int | float | None = None, replicas: int = 1
    ) -> tuple[int, int] | None:
        """(at most :meth:`epoch_batches`, the training lines that bound it), known before any
        file is parsed or vector read: every reader takes at most one example a line
        (:func:`line_count`, the lines as :func:`read_lines` splits them), and the dev share
        or the test fold is taken off them. None when the lines cannot be counted so (a file
        missing or an encoding that writes no ``\\n`` byte: reading the files judges them)."""
        try:
            layout, root = resolve_layout(self.task, self.data_dir, self.layout_name)
            source = "all" if self.test_source is None else "train"  # as _load_train reads
            counts = [
                line_count(path, self.encoding)
                for path in split_files(self.task, layout, root, source)
            ]
        except (OSError, KeyError, MissingSplitError):
            return None
        if None in counts:
            return None
        lines = sum(counts)
        sampler = BucketBatchSampler(
            np.zeros(lines, dtype=np.int64),
            self.batch_size,
            self.seed,
            num_replicas=replicas,
            limit=limit,
        )
        return sampler.epoch_length, lines

    def state_dict(self) -> dict[str, Any]:
        """The training loader's place (epoch, batches done), saved in every checkpoint."""
        return {} if self._train_loader is None else {"train": self._train_loader.state_dict()}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """A resumed fit's training loader continues where the checkpoint was taken."""
        self._train_position = state_dict.get("train")

    def val_dataloader(self) -> DataLoader:
        """Fixed order: sorted by length; ``index`` maps rows back to the split. Not sharded:
        each replica evaluates the whole split, so synced metrics equal a one-process run."""
        dataset = self._dataset("val")
        return self._loader(dataset, sorted_batches(dataset.lengths(), self.eval_batch_size))

    def test_dataloader(self) -> DataLoader:
        """Fixed order: sorted by length; ``index`` maps rows back to the split."""
        dataset = self._dataset("test")
        return self._loader(dataset, sorted_batches(dataset.lengths(), self.eval_batch_size))


def build_datamodule(
    task: str, data_dir: str | Path | None = None, **options
) -> BenchmarkDataModule:
    """The datamodule of ``task`` (see :class:`BenchmarkDataModule` for the options)."""
    return BenchmarkDataModule(task, data_dir, **options)
