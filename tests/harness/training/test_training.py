"""Heads, the LightningModule, efficiency callback and fitting on a tiny in-memory task."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import lightning.pytorch as pl
import pytest
import torch

from datamodules.tasks import list_tasks
from harness.training.fit import fit_datamodule
from harness.training.heads import (
    pair_features,
    relatedness_features,
    relatedness_loss,
    relatedness_score,
)
from harness.training.module import TaskModule
from harness.training.settings.fit_cli import TRAINER_DEFAULTS, FitCLI
from harness.training.settings.fit_run import FitRun
from harness.training.settings.run_options import RunOptions
from harness.training.settings.task_configs import ConfigError, task_defaults
from harness.training.settings.task_model import builder_options
from harness.training.trainer_setup import trainer_arguments
from tests.harness.fixtures.training_toy import DIM, ToyDataModule, sparse_target


def fit_toy(
    tmp: Path,
    kind: str = "single",
    seed: int = 0,
    *,
    model: dict | None = None,
    trainer: dict | None = None,
    run: dict | None = None,
) -> tuple[dict, pl.Trainer]:
    """Fit a width-6 Multi-CNN on the toy task with a fit's trainer; ``model``, ``trainer`` and
    ``run`` are the config sections' values (TaskModule's, Trainer's, RunOptions')."""
    pl.seed_everything(seed, workers=True)
    datamodule = ToyDataModule(kind)
    vocab, dim = datamodule.embedding_matrix.shape
    chosen = {"dropout": 0.0, "lr": 0.02, "optimizer": "adam" if kind == "single" else "adadelta"}
    module = TaskModule(
        "multi_cnn",
        kind,
        datamodule.task.num_classes,
        vocab,
        dim,
        encoder_options={"hidden_dim": 6},
        head_hidden=12,
        **{**chosen, **(model or {})},
    )
    module.set_embeddings(datamodule.embedding_matrix)
    extra = trainer_arguments(RunOptions(**(run or {})), tmp, kind, progress_bar=False)
    fit_trainer = pl.Trainer(**{**TRAINER_DEFAULTS, "max_epochs": 6, **(trainer or {}), **extra})
    return fit_datamodule(datamodule, module, fit_trainer, tmp), fit_trainer


def test_pair_and_relatedness_features() -> None:
    a, b = torch.tensor([[1.0, -2.0]]), torch.tensor([[3.0, 1.0]])
    assert pair_features(a, b).tolist() == [[1.0, -2.0, 3.0, 1.0, -2.0, -3.0, 3.0, -2.0]]
    assert relatedness_features(a, b).tolist() == [[3.0, -2.0, 2.0, 3.0]]


def test_relatedness_score_and_kl_loss() -> None:
    assert relatedness_score(torch.zeros(1, 5)).item() == pytest.approx(3.0)
    target = torch.stack([sparse_target(3.4), sparse_target(5.0)])
    assert target[0].tolist() == pytest.approx([0, 0, 0.6, 0.4, 0])
    exact = torch.log(target.clamp_min(1e-12))
    assert relatedness_score(exact).tolist() == pytest.approx([3.4, 5.0], abs=1e-5)
    assert relatedness_loss(exact, target).item() == pytest.approx(0.0, abs=1e-5)
    assert relatedness_loss(torch.zeros(2, 5), target).item() > 0.5


def small_module(kind: str = "single", **options) -> TaskModule:
    options = {"encoder_options": {"hidden_dim": 4}, "head_hidden": 7, **options}
    return TaskModule("multi_cnn", kind, 3, 10, DIM, **options)


def test_glorot_init_zero_biases_and_l2_on_weight_matrices_only() -> None:
    module = small_module(weight_decay=1e-4)
    linears = [m for m in module.modules() if isinstance(m, torch.nn.Linear)]
    assert linears and all(torch.all(m.bias == 0) for m in linears)
    decay, no_decay = module.configure_optimizers().param_groups
    assert decay["weight_decay"] == 1e-4 and no_decay["weight_decay"] == 0.0
    assert all(p.ndim >= 2 for p in decay["params"])
    assert not any(p is module.embedding.weight for p in decay["params"])
    assert any(p is module.embedding.weight for p in no_decay["params"])
    embedding = module.embedding.weight.numel()
    assert module.parameter_count() == sum(p.numel() for p in module.parameters()) - embedding


def test_frozen_embedding_and_adam() -> None:
    module = small_module(finetune_embeddings=False, optimizer="adam", lr=1e-3)
    optimizer = module.configure_optimizers()
    assert isinstance(optimizer, torch.optim.Adam)
    params = [p for group in optimizer.param_groups for p in group["params"]]
    assert not any(p is module.embedding.weight for p in params)


def test_bad_kind_and_optimizer_are_rejected() -> None:
    with pytest.raises(ValueError, match="task kind"):
        small_module("regression")
    with pytest.raises(ValueError, match="optimizer"):
        small_module(optimizer="sgd")


@pytest.mark.slow
def test_task_configs_parse_and_hold_only_what_differs() -> None:
    tasks = list_tasks()
    assert set(tasks) >= {"sst1", "sst2", "trec", "cr", "mpqa", "subj", "mr", "sick", "snli"}
    for task in tasks:  # every key of every task config is a FitCLI option
        config = FitCLI(FitRun(task, "bi_blosan", Path("d"), Path("o")).args()).config
        assert config.model.encoder == "bi_blosan" and config.data.task == task
        assert "model.head_hidden" not in task_defaults(task, "disan")  # shared default
    assert task_defaults("trec", "disan")["data.batch_size"] == 16  # Bi-BloSAN §4.4
    assert task_defaults("trec", "bi_blosan")["data.batch_size"] == 32
    run = FitRun("trec", "disan", Path("d"), Path("o"), overrides={"data.batch_size": 8})
    assert FitCLI(run.args()).config.data.batch_size == 8  # overrides win over DiSAN's 16
    meant = r"unknown key model\.dropuot \(did you mean model\.dropout\?\)"
    with pytest.raises(ConfigError, match=meant):
        FitCLI(FitRun("trec", "mtsa", Path("d"), Path("o"), overrides={"model.dropuot": 1}).args())
    with pytest.raises(ConfigError, match="unknown task 'nope'"):
        task_defaults("nope", None)


@pytest.mark.slow
def test_fit_learns_logs_time_and_checkpoints(tmp_path: Path) -> None:
    metrics, _ = fit_toy(tmp_path)
    assert metrics["dev_acc"] > 0.75 and metrics["test_acc"] > 0.75  # majority is about 0.5
    assert metrics["epochs"] == 6 and metrics["steps"] == 36
    assert metrics["train_time_s"] == pytest.approx(6 * metrics["train_time_per_epoch_s"])
    assert metrics["peak_train_mem_mb"] >= 0 and metrics["dev_infer_time_s"] > 0
    # what CPU the timed epochs got
    assert metrics["train_cpu_share"] > 0 and 0 < metrics["train_cpu_granted"] <= 1
    assert metrics["train_contended"] == (metrics["train_cpu_granted"] < 0.5)
    assert metrics["train_load_avg_before"] >= 0 and metrics["train_load_avg_after"] >= 0
    assert metrics["train_threads"] == torch.get_num_threads()
    assert (tmp_path / "checkpoints" / "last.ckpt").exists()
    with (tmp_path / "curve.csv").open() as handle:
        curve = list(csv.DictReader(handle))
    seconds = [float(r["train_seconds"]) for r in curve]
    assert len(seconds) == 6 and seconds == sorted(seconds)
    # steps done at each validation, as the console prints them (Lightning logs one fewer)
    assert [int(r["step"]) for r in curve] == [6, 12, 18, 24, 30, 36]


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["pair", "relatedness"])
def test_pair_and_relatedness_heads_train(tmp_path: Path, kind: str) -> None:
    metrics, _ = fit_toy(tmp_path, kind, trainer={"max_epochs": 2}, model={"lr": 0.5})
    keys = {"pair": ["dev_acc", "test_acc"], "relatedness": ["dev_pearson", "test_mse"]}[kind]
    assert all(math.isfinite(metrics[k]) for k in keys)


@pytest.mark.slow
def test_same_seed_gives_identical_metrics(tmp_path: Path) -> None:
    first, _ = fit_toy(tmp_path / "a", trainer={"max_epochs": 2}, model={"dropout": 0.3})
    second, _ = fit_toy(tmp_path / "b", trainer={"max_epochs": 2}, model={"dropout": 0.3})
    other, _ = fit_toy(tmp_path / "c", seed=1, trainer={"max_epochs": 2}, model={"dropout": 0.3})
    quality = ("dev_acc", "dev_loss", "test_acc", "test_loss", "train_acc")
    assert [first[k] for k in quality] == [second[k] for k in quality]
    assert first["dev_loss"] != other["dev_loss"]


class Crash(pl.Callback):
    def on_train_epoch_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if trainer.current_epoch == 2:
            raise RuntimeError("simulated crash")


@pytest.mark.slow
def test_resume_from_last_checkpoint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import harness.training.trainer_setup as callbacks

    original = callbacks.make_callbacks
    monkeypatch.setattr(callbacks, "make_callbacks", lambda *a: [*original(*a), Crash()])
    with pytest.raises(RuntimeError, match="simulated crash"):
        fit_toy(tmp_path, trainer={"max_epochs": 4})
    monkeypatch.setattr(callbacks, "make_callbacks", original)
    metrics, _ = fit_toy(tmp_path, trainer={"max_epochs": 4})
    assert metrics["epochs"] == 4 and metrics["steps"] == 24
    with (tmp_path / "curve.csv").open() as handle:
        curve = list(csv.DictReader(handle))
    assert [int(r["epoch"]) for r in curve] == [0, 1, 2, 3]
    seconds = [float(r["train_seconds"]) for r in curve]
    assert seconds == sorted(seconds)  # the timer state survives the restart


class CrashMidEpoch(pl.Callback):
    def on_train_batch_start(self, trainer: pl.Trainer, *args: object) -> None:
        if trainer.global_step == 3:
            raise RuntimeError("simulated kill")


@pytest.mark.slow
def test_mid_epoch_checkpoint_bounds_what_a_kill_loses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import harness.training.trainer_setup as callbacks

    original = callbacks.make_callbacks
    monkeypatch.setattr(callbacks, "make_callbacks", lambda *a: [*original(*a), CrashMidEpoch()])
    with pytest.raises(RuntimeError, match="simulated kill"):  # in epoch 0 of 6 batches
        fit_toy(tmp_path, trainer={"max_epochs": 2}, run={"checkpoint_every_n_steps": 2})
    saved = torch.load(tmp_path / "checkpoints" / "last.ckpt", weights_only=False)
    assert (saved["epoch"], saved["global_step"]) == (0, 2)  # one step lost, not the epoch
    monkeypatch.setattr(callbacks, "make_callbacks", original)
    metrics, _ = fit_toy(tmp_path, trainer={"max_epochs": 2}, run={"checkpoint_every_n_steps": 2})
    assert metrics["epochs"] == 2 and metrics["steps"] == 12


def test_budget_shorter_than_an_epoch_still_checkpoints(tmp_path: Path) -> None:
    metrics, _ = fit_toy(tmp_path, trainer={"max_steps": 3}, run={"checkpoint_every_n_steps": 2})
    assert metrics["steps"] == 3
    saved = torch.load(tmp_path / "checkpoints" / "last.ckpt", weights_only=False)
    assert saved["global_step"] == 3  # the budget's end is kept, not only step 2


def test_periodic_checkpoint_defaults_to_ten_minutes_and_steps_win() -> None:
    from harness.training.trainer_setup import periodic_checkpoint

    key = periodic_checkpoint(RunOptions(), Path("unused")).state_key
    assert "'train_time_interval': datetime.timedelta(seconds=600)" in key
    key = periodic_checkpoint(RunOptions(checkpoint_every_n_steps=7), Path("unused")).state_key
    assert "'every_n_train_steps': 7" in key and "'train_time_interval': None" in key


@pytest.mark.slow
def test_ema_weight_averaging_runs(tmp_path: Path) -> None:
    metrics, _ = fit_toy(tmp_path, trainer={"max_epochs": 2}, run={"ema_decay": 0.9})
    assert math.isfinite(metrics["dev_loss"])


@pytest.mark.slow
def test_overhead_measures_both_paths() -> None:
    from harness.profiling.overhead import measure_overhead

    result = measure_overhead("multi_cnn", steps=4, warmup=1, batch_size=4, seq_len=6,
                              input_dim=8, hidden_dim=4, vocab=20, repeats=1)  # fmt: skip
    assert result["bare_steps_per_s"] > 0 and result["lightning_steps_per_s"] > 0
    assert result["ratio"] == pytest.approx(
        result["lightning_steps_per_s"] / result["bare_steps_per_s"]
    )


@pytest.mark.parametrize(
    ("stats", "options", "expected"),
    [
        ({"mean": 10.2, "std": 3.9}, {}, 4),  # TREC, B = 32: n <= 20.5, cbrt(40.9) = 3.45
        ({"mean": 60.0, "std": 20.0}, {}, 7),  # n <= 112.6, cbrt(225.3) = 6.09
        ({"mean": 60.0, "std": 20.0}, {"block_len": 9}, 9),  # the config's r wins
    ],
)
def test_bi_blosan_block_length_comes_from_the_training_lengths(
    stats: dict[str, float], options: dict[str, int], expected: int
) -> None:
    """Appendix A: r = ceil(cbrt(2 (sigma sqrt(2 ln B) + mu))) from the datamodule's stats."""
    chosen = builder_options("bi_blosan", 4, options, length_stats=stats, batch_size=32)
    module = TaskModule("bi_blosan", "single", 6, 10, DIM, encoder_options=chosen)
    assert module.encoder.block_len == expected
    assert "block_len" not in builder_options("multi_cnn", 4, {}, stats, 32)


def test_width_scale_is_one_ratio_of_every_encoders_paper_width() -> None:
    """A third of the papers' widths: 100 units, Multi-CNN 67 of its 200 filters per window
    (a single hidden_dim of 100 gave Multi-CNN half its width and the others a third)."""
    assert builder_options("bilstm", None, {}, width_scale=1 / 3)["hidden_dim"] == 100
    assert builder_options("mtsa", None, {}, width_scale=1 / 3)["hidden_dim"] == 100
    assert builder_options("multi_cnn", None, {}, width_scale=1 / 3)["hidden_dim"] == 67
    assert "hidden_dim" not in builder_options("multi_cnn", None, {})
    with pytest.raises(ValueError, match="exclude each other"):
        builder_options("bilstm", 100, {}, width_scale=0.5)


@pytest.mark.parametrize(
    ("budget", "epochs", "steps"),
    [({"max_steps": 9}, 1, 9), ({"max_steps": 3}, 0, 3), ({"max_steps": 12}, 2, 12)],
)
def test_epochs_counts_the_epochs_trained_to_their_last_batch(
    tmp_path: Path, budget: dict, epochs: int, steps: int
) -> None:
    """metrics.json's ``epochs`` was Lightning's ``current_epoch``, which counts an epoch that a
    step budget ended inside: 9 steps of 6-batch epochs said 2 epochs (F56 item 4). It counts
    the epochs completed; ``steps`` holds the rest."""
    metrics, _ = fit_toy(tmp_path, trainer={**budget, "max_epochs": 6})
    assert (metrics["epochs"], metrics["steps"]) == (epochs, steps)
