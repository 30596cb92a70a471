"""A user's own TSV task (a task file) through every command that reads data: ``data stats``,
``fit``, ``suite`` and ``tune``, each calling it by its own name (docs/data.md, "Your own
data"). On e81e6e0 every one of them said "unknown task"."""

from __future__ import annotations

import csv
import json
import shutil
import sys
from pathlib import Path

import pytest

from harness.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "own-data"
TINY = ["--model.hidden_dim", "4", "--model.head_hidden", "8"]


@pytest.fixture
def reviews(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The committed example, copied where a user would keep it; commands run from there."""
    shutil.copytree(EXAMPLE, tmp_path / "own-data")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SANBENCH_CACHE", str(tmp_path / "cache"))
    return Path("own-data") / "reviews.yaml"


def test_data_stats_reads_a_task_file_without_a_data_folder(
    reviews: Path, capsys: pytest.CaptureFixture
) -> None:
    assert main(["data", "stats", "--task", str(reviews), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["task"], report["layout"]) == ("reviews", "task-file")
    counts = {s["split"]: (s["examples"], s["labels"]) for s in report["splits"]}
    assert counts["train"] == (120, {"negative": 49, "positive": 71})
    assert set(counts) == {"train", "dev", "test"}


def test_a_bad_task_file_is_a_usage_error_in_every_command(
    reviews: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    text = reviews.read_text().replace("format: tsv", "format: xlsx")
    bad = reviews.with_name("bad.yaml")
    bad.write_text(text)
    out = tmp_path / "out"
    tune = ["tune", "--study", "dropout", "--task", str(bad), "--encoder", "multi_cnn"]
    for argv in (
        ["data", "stats", "--task", str(bad)],
        ["fit", "--task", str(bad), "--encoder", "multi_cnn", "--out", str(out)],
        ["suite", "--tasks", str(bad), "--encoders", "multi_cnn", "--out", str(out)],
        [*tune, "--out", str(out)],
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert "format: expected one of csv, tsv, jsonl, got 'xlsx'" in err, (argv, err)
        assert "Traceback" not in err and not out.exists()


@pytest.mark.slow
def test_fit_and_suite_train_a_task_file_under_its_own_name(
    reviews: Path, capsys: pytest.CaptureFixture
) -> None:
    fit = ["fit", "--task", str(reviews), "--encoder", "multi_cnn", "--out", "runs/fit"]
    assert main([*fit, *TINY, "--trainer.max_epochs", "1"]) == 0
    metrics = json.loads(Path("runs/fit/metrics.json").read_text())
    assert metrics["task"] == "reviews" and 0 <= metrics["test_acc"] <= 1
    # by its absolute path: fit --config runs/fit/fit_config.yaml works from any folder
    assert metrics["config"]["data"]["task"] == str(reviews.absolute())
    assert metrics["labels"] == ["negative", "positive"]  # the ids test_predictions.csv holds

    suite = ["suite", "--tasks", f"{reviews},sst2", "--encoders", "multi_cnn", "--seeds", "2"]
    suite += ["--out", "runs/suite", "--max-steps", "2", "--data-dir"]
    suite += [str(Path(__file__).parents[1] / "datamodules" / "fixtures")]
    assert main(suite) == 0
    log = capsys.readouterr().out
    assert "reviews multi_cnn seed0" in log and "reviews.yaml" not in log
    with Path("runs/suite/summary.csv").open(newline="") as handle:
        tasks = {row["task"] for row in csv.DictReader(handle)}
    assert tasks == {"reviews", "sst2"}
    with Path("runs/suite/results-1-of-1.csv").open(newline="") as handle:
        row = next(r for r in csv.DictReader(handle) if r["task"] == "reviews")
    # run_dir is relative to the results file's folder (docs/scaling.md)
    assert row["run_dir"] == "runs/reviews/multi_cnn/seed0"
    assert Path("runs/suite", row["run_dir"], "metrics.json").is_file()
    assert "| reviews |" in Path("runs/suite/tables/tables.md").read_text()
    # the suite resumes from another folder: the task file was recorded by its whole path
    assert main(suite) == 0
    assert "0 ran, 4 already done" in capsys.readouterr().out


@pytest.mark.slow
def test_tune_studies_a_task_file_under_its_own_name(reviews: Path) -> None:
    argv = ["tune", "--study", "dropout", "--task", str(reviews), "--encoder", "multi_cnn"]
    argv += ["--trials", "1", "--max-steps", "2", "--out", "runs/study", *TINY]
    assert main(argv) == 0
    summary = json.loads(Path("runs/study/summary.json").read_text())
    assert summary["optuna_study"] == "dropout-reviews-multi_cnn"


@pytest.fixture
def own_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The committed example datamodule, in the user's folder (imported from there)."""
    shutil.copy(EXAMPLE / "questions_datamodule.py", tmp_path)
    (tmp_path / "broken_datamodule.py").write_text(
        "import lightning as L\n\n\nclass Bare(L.LightningDataModule):\n"
        "    def __init__(self, batch_size: int = 4):\n"
        "        super().__init__()\n        self.batch_size = batch_size\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "questions_datamodule.QuestionsDataModule"


@pytest.mark.slow
def test_fit_takes_a_lightning_datamodule_class_and_records_it(
    own_module: str, capsys: pytest.CaptureFixture
) -> None:
    argv = ["fit", "--data", own_module, "--encoder", "multi_cnn", "--out", "runs/q", *TINY]
    assert main([*argv, "--data.size", "64", "--trainer.max_epochs", "1"]) == 0
    metrics = json.loads(Path("runs/q/metrics.json").read_text())
    assert (metrics["task"], metrics["labels"]) == ("questions", ["statement", "question"])
    config = metrics["config"]
    assert config["data_class"] == own_module and config["data"]["size"] == 64
    capsys.readouterr()
    # the recorded config runs the same fit: finished, nothing trained
    assert main(["fit", "--config", "runs/q/fit_config.yaml"]) == 0
    assert "already finished with this configuration" in capsys.readouterr().err


def test_a_datamodule_class_that_cannot_serve_says_what_it_lacks(
    own_module: str, capsys: pytest.CaptureFixture
) -> None:
    base = ["fit", "--encoder", "multi_cnn", "--out", "runs/x"]
    assert main([*base, "--data", "nowhere.Nothing"]) == 2
    err = capsys.readouterr().err
    assert "--data nowhere.Nothing: cannot import it: ModuleNotFoundError" in err
    assert main([*base, "--data=broken_datamodule.Bare"]) == 2
    err = capsys.readouterr().err
    assert "the datamodule has no task, vocab, embedding_matrix, length_stats" in err, err
    assert "Traceback" not in err and not Path("runs/x").exists()


@pytest.mark.parametrize("raised", ["RuntimeError", "ValueError", "FileNotFoundError"])
def test_a_datamodule_raising_in_its_init_is_the_users_error(
    raised: str,
    own_module: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture,
) -> None:
    """Issue 54.9: a user's class raising in ``__init__`` was "internal error" (exit 1). Its
    one line is not followed by ``(see sanbench fit --help)``: that points at the command line."""
    module = f"raising_{raised.lower()}"  # one module per case: imported modules are cached
    (tmp_path / f"{module}.py").write_text(
        "import lightning as L\n\n\nclass Raising(L.LightningDataModule):\n"
        "    def __init__(self, path: str = 'corpus.txt'):\n"
        f"        raise {raised}(f'cannot open {{path}}')\n"
    )
    argv = ["fit", "--data", f"{module}.Raising", "--encoder", "multi_cnn"]
    assert main([*argv, "--out", "runs/r"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines == [  # their code's problem, not the command line's: no pointer to --help
        f"sanbench fit: --data {module}.Raising: __init__(path='corpus.txt') raised "
        f"{raised}: cannot open corpus.txt"
    ], lines
    assert not Path("runs/r").exists()


# a hook Lightning calls on a user's datamodule, the exception it raises, the call as named
HOOKS = {
    "train_dataloader": ("(self)", "ValueError('bad shard 7')", "train_dataloader()"),
    "val_dataloader": ("(self)", "OSError('val shard gone')", "val_dataloader()"),
    "on_before_batch_transfer": (
        "(self, batch, dataloader_idx)",
        "RuntimeError('bad batch')",
        "on_before_batch_transfer(..., 0)",
    ),
}


@pytest.mark.parametrize("hook", list(HOOKS))
def test_a_datamodule_raising_in_a_hook_lightning_calls_is_named_and_nothing_is_made(
    hook: str, own_module: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Outside check of #54 part B: a ValueError from a user's ``train_dataloader`` printed
    only ``sanbench fit: bad shard 7`` (cli.INPUT_ERRORS took it for bad input). Their class,
    the call and the exception are named; nothing trained, so nothing is kept: exit 2."""
    signature, exception, called = HOOKS[hook]
    module = f"raising_{hook}"
    (tmp_path / f"{module}.py").write_text(
        "from questions_datamodule import QuestionsDataModule\n\n\n"
        "class Raising(QuestionsDataModule):\n"
        f"    def {hook}{signature}:\n"
        f"        raise {exception}\n"
    )
    argv = ["fit", "--data", f"{module}.Raising", "--data.size", "64", "--encoder", "multi_cnn"]
    assert main([*argv, "--out", "runs/r", "--trainer.max_steps", "1", *TINY]) == 2
    kind, said = exception.rstrip("')").split("('")
    lines = [line for line in capsys.readouterr().err.splitlines() if "warning:" not in line]
    assert lines == [f"sanbench fit: --data {module}.Raising: {called} raised {kind}: {said}"]
    assert not Path("runs/r").exists()


def test_a_datamodule_raising_after_training_says_what_is_kept(
    own_module: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Outside check of #54 part B: a KeyError from ``setup('test')`` printed ``sanbench fit:
    test split``, exit 2, after training wrote its checkpoints. Now the class, the call and
    the exception, what is kept, exit 1; with the class fixed the same command resumes."""
    (tmp_path / "raising_test.py").write_text(
        "from questions_datamodule import QuestionsDataModule\n\n\n"
        "class Raising(QuestionsDataModule):\n"
        "    def setup(self, stage=None):\n"
        "        if stage == 'test':\n"
        "            raise KeyError('test split')\n"
        "        super().setup(stage)\n"
    )
    argv = ["fit", "--data", "raising_test.Raising", "--data.size", "64", "--encoder", "multi_cnn"]
    argv += ["--out", "runs/r", "--trainer.max_steps", "1", *TINY]
    assert main(argv) == 1
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("sanbench")]
    last = Path("runs/r/checkpoints/last.ckpt")
    assert lines == [
        "sanbench fit: --data raising_test.Raising: setup('test') raised KeyError: 'test split'",
        f"sanbench fit: {last} is kept: once the class is fixed, the same command resumes from it",
    ]
    assert last.is_file() and not Path("runs/r/metrics.json").exists()
    module = tmp_path / "raising_test.py"
    module.write_text(module.read_text().replace("raise KeyError('test split')", "pass"))
    monkeypatch.delitem(sys.modules, "raising_test")
    assert main(argv) == 0
    assert json.loads(Path("runs/r/metrics.json").read_text())["steps"] == 1


# code of a user's file that runs in DataLoader workers, the exception, the call as named
IN_WORKERS = {
    "dataset": ("Rows(self.splits['train'])", "functools.partial(collate, 'single')"),
    "collate_fn": ("self.splits['train']", "Rows.collate"),
}


@pytest.mark.parametrize("raising", list(IN_WORKERS))
def test_a_datamodule_raising_in_a_dataloader_worker_is_named_in_one_line(
    raising: str, own_module: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Issue 54 (leftover): with ``num_workers`` 2, a ValueError from a user's dataset's
    ``__getitem__`` reached the user as torch re-raised it in the main process: 'Caught
    ValueError in DataLoader worker process 0.' and the worker's traceback, a line each. Now
    their class, the call (its arguments stayed in the worker: ``(...)``) and the exception in
    one line, as a call in the main process is named; nothing trained or kept: exit 2."""
    dataset, collate_fn = IN_WORKERS[raising]
    module = f"raising_in_{raising}"  # one module per case: imported modules are cached
    (tmp_path / f"{module}.py").write_text(
        "import functools\n\nfrom torch.utils.data import DataLoader, Dataset\n\n"
        "from datamodules.batches import collate\n"
        "from questions_datamodule import QuestionsDataModule\n\n\n"
        "class BadRow(Exception):\n    pass\n\n\n"
        "class Rows(Dataset):\n"
        "    def __init__(self, split):\n        self.split = split\n\n"
        "    def __len__(self):\n        return len(self.split)\n\n"
        "    def __getitem__(self, index):\n"
        "        raise ValueError('bad row')\n\n"
        "    @staticmethod\n"
        "    def collate(batch):\n"
        "        try:\n            {}['length']\n"
        "        except KeyError as error:\n"
        "            raise BadRow('no length\\nin the batch') from error\n\n\n"
        "class Raising(QuestionsDataModule):\n"
        "    def __init__(self, num_workers: int = 0, size: int = 64):\n"
        "        super().__init__(size=size)\n        self.num_workers = num_workers\n\n"
        "    def train_dataloader(self):\n"
        f"        return DataLoader({dataset}, batch_size=self.batch_size,\n"
        f"                          num_workers=self.num_workers, collate_fn={collate_fn})\n"
    )
    argv = ["fit", "--data", f"{module}.Raising", "--data.num_workers", "2"]
    argv += ["--encoder", "multi_cnn", "--out", "runs/r", "--trainer.max_steps", "1", *TINY]
    assert main(argv) == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if "warning:" not in line]
    said = {
        "dataset": "Rows.__getitem__(...) raised ValueError: bad row",
        "collate_fn": "Rows.collate(...) raised BadRow: no length in the batch",
    }[raising]
    assert lines == [f"sanbench fit: --data {module}.Raising: {said}"]
    assert not Path("runs/r").exists()


# a datamodule's method Lightning calls as a run ends or fails, when it raises; the call named
ENDING_HOOKS = {
    "teardown('fit')": (
        "    def teardown(self, stage):\n        if stage == 'fit':\n"
        "            raise ValueError('cache busy')\n"
    ),
    "teardown('test')": (
        "    def teardown(self, stage):\n        if stage == 'test':\n"
        "            raise ValueError('cache busy')\n"
    ),
    "on_exception(...)": (
        "    def on_exception(self, exception):\n        raise ValueError('cache busy')\n\n"
        "    def test_dataloader(self):\n        raise OSError('test shard gone')\n"
    ),
}


@pytest.mark.parametrize("hook", list(ENDING_HOOKS))
def test_a_datamodule_raising_as_the_run_ends_is_named_and_the_results_are_kept(
    hook: str, own_module: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Issue 54 leftovers (item 4): a user's ``teardown`` (Lightning calls it as training and
    testing end) or ``on_exception`` (as a run fails) raising, once the model trained. The
    class, the call and the exception in one line, exit status 1 as for the other hooks after
    training, and a second line naming what is kept: the checkpoint the same command resumes
    from."""
    module = f"raising_end_{list(ENDING_HOOKS).index(hook)}"  # a module imported once
    (tmp_path / f"{module}.py").write_text(
        "from questions_datamodule import QuestionsDataModule\n\n\n"
        f"class Raising(QuestionsDataModule):\n{ENDING_HOOKS[hook]}"
    )
    argv = ["fit", "--data", f"{module}.Raising", "--data.size", "64", "--encoder", "multi_cnn"]
    assert main([*argv, "--out", "runs/r", "--trainer.max_steps", "1", *TINY]) == 1
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("sanbench")]
    last = Path("runs/r/checkpoints/last.ckpt")
    assert lines == [
        f"sanbench fit: --data {module}.Raising: {hook} raised ValueError: cache busy",
        f"sanbench fit: {last} is kept: once the class is fixed, the same command resumes from it",
    ]
    assert last.is_file()
