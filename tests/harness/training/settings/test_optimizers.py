"""Optimizers and schedulers as LightningCLI takes them (issue 56.14): any ``torch.optim`` class
(or a user's) by class path, on the command line and in a config file; the papers' optimizer of
each task config stays the default; ``fit_config.yaml`` records what ran."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import yaml

from harness.cli import main
from harness.command_parser import CommandParser, build
from harness.training.module import TaskModule
from harness.training.settings.fit_cli import FitCLI
from harness.training.settings.fit_overrides import FitSections
from harness.training.settings.task_configs import ConfigError
from tests.harness.problem_lines import problem_lines
from tests.harness.training.settings.data_folder import data_folder

SGD_STEP = [
    "--optimizer", "torch.optim.SGD", "--optimizer.lr", "0.05", "--optimizer.momentum", "0.9",
    "--lr_scheduler", "torch.optim.lr_scheduler.StepLR", "--lr_scheduler.step_size", "1",
]  # fmt: skip


def fit_words(tmp_path: Path, *extra: str) -> list[str]:
    return ["--task", "trec", "--encoder", "bilstm", "--data-dir", str(data_folder(tmp_path)),
            "--out", str(tmp_path / "run"), *extra]  # fmt: skip


def printed(words: list[str], capsys: pytest.CaptureFixture) -> dict:
    assert main(["fit", *words, "--print_config"]) == 0, capsys.readouterr().err
    return yaml.safe_load(capsys.readouterr().out)


def test_an_optimizer_and_scheduler_by_class_path_are_recorded_and_rerun_from_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    config = printed(fit_words(tmp_path, *SGD_STEP), capsys)
    assert config["optimizer"]["class_path"] == "torch.optim.SGD"
    assert config["optimizer"]["init_args"]["lr"] == 0.05
    assert config["optimizer"]["init_args"]["momentum"] == 0.9
    assert config["lr_scheduler"]["class_path"] == "torch.optim.lr_scheduler.StepLR"
    assert config["lr_scheduler"]["init_args"]["step_size"] == 1
    recorded = tmp_path / "fit_config.yaml"
    recorded.write_text(FitCLI(fit_words(tmp_path, *SGD_STEP)).config_yaml())
    assert printed(["--config", str(recorded)], capsys) == config


def test_the_papers_optimizer_stays_each_task_configs_default(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    config = printed(fit_words(tmp_path), capsys)
    assert config["optimizer"] is None and config["lr_scheduler"] is None
    # TREC's: Adam at its default rate (Bi-BloSAN §4.4)
    assert (config["model"]["optimizer"], config["model"]["lr"]) == ("adam", 0.001)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--model.optimizer", "adadelta"], "--model.optimizer adadelta and --optimizer"),
        (["--model.lr", "0.1"], "--model.lr 0.1 and --optimizer"),
        (["--optimizer.weight_decay", "0.1"], "--optimizer.weight_decay 0.1: weight decay is"),
    ],
)
def test_the_papers_shorthand_and_an_optimizer_class_at_once_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture, extra: list[str], message: str
) -> None:
    for printing in ([], ["--print_config"]):  # a printed config is one that would run
        assert main(["fit", *fit_words(tmp_path, *SGD_STEP, *extra), *printing]) == 2
        captured = capsys.readouterr()
        assert len([line for line in captured.err.splitlines() if message in line]) == 1
        assert "class_path" not in captured.out
    assert not (tmp_path / "run").exists()


def test_the_module_builds_the_given_optimizer_over_the_papers_l2_groups() -> None:
    sgd = {"class_path": "torch.optim.SGD", "init_args": {"lr": 0.05, "momentum": 0.9}}
    step = {"class_path": "torch.optim.lr_scheduler.StepLR", "init_args": {"step_size": 1}}
    module = TaskModule(
        "bilstm", "single", 3, 10, 4, encoder_options={"hidden_dim": 4}, head_hidden=4,
        weight_decay=1e-4, optimizer_init=sgd, lr_scheduler_init=step,
    )  # fmt: skip
    [optimizer], [scheduler] = module.configure_optimizers()
    assert isinstance(optimizer, torch.optim.SGD) and optimizer.defaults["momentum"] == 0.9
    assert isinstance(scheduler, torch.optim.lr_scheduler.StepLR)
    decays = sorted(group["weight_decay"] for group in optimizer.param_groups)
    assert decays == [0.0, 1e-4]  # gamma on weight matrices only, whatever the optimizer
    assert all(group["lr"] == 0.05 for group in optimizer.param_groups)


def test_the_checkpoint_names_only_the_optimizer_that_ran(tmp_path: Path) -> None:
    """Issue 56 breaker: the checkpoint's hyper-parameters said ``optimizer: adam`` (with its
    ``lr`` and ``eps``) beside an SGD run (fit_config.yaml no longer did); it loads and builds
    SGD again."""
    sgd = {"class_path": "torch.optim.SGD", "init_args": {"lr": 0.05, "momentum": 0.9}}
    module = TaskModule(
        "bilstm", "single", 3, 10, 4, encoder_options={"hidden_dim": 4}, head_hidden=4,
        optimizer="adam", lr=1e-3, optimizer_init=sgd,
    )  # fmt: skip
    assert not {"optimizer", "lr", "adadelta_rho", "eps"} & set(module.hparams)
    assert module.hparams["optimizer_init"] == sgd
    path = tmp_path / "m.ckpt"
    torch.save({"state_dict": module.state_dict(), "hyper_parameters": dict(module.hparams),
                "pytorch-lightning_version": "2.6.0"}, path)  # fmt: skip
    loaded = TaskModule.load_from_checkpoint(path, weights_only=True)
    assert isinstance(loaded.configure_optimizers(), torch.optim.SGD)
    papers = TaskModule("bilstm", "single", 3, 10, 4, encoder_options={"hidden_dim": 4})
    assert papers.hparams["optimizer"] == "adadelta"  # the papers' keys, where they run


def test_suite_and_tune_take_the_same_spelling_as_fit(tmp_path: Path) -> None:
    from harness.training.settings.fit_run import FitRun

    parser = CommandParser("sanbench suite")
    parser.add_options(FitSections)
    sections = build(FitSections, parser.parse(["--model.dropout", "0.3", *SGD_STEP]))
    dotted = sections.dotted()
    assert dotted["optimizer.class_path"] == "torch.optim.SGD"
    assert dotted["optimizer.init_args"]["momentum"] == 0.9
    assert dotted["lr_scheduler.class_path"] == "torch.optim.lr_scheduler.StepLR"
    run = FitRun("trec", "bilstm", tmp_path, tmp_path / "run", overrides=dotted).resolved()
    assert run["optimizer"]["init_args"]["lr"] == 0.05  # each run's fit_config.yaml
    assert run["lr_scheduler"]["init_args"]["step_size"] == 1


def test_a_misspelled_optimizer_class_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"--optimizer torch\.optim\.SDG") as raised:
        FitCLI(fit_words(tmp_path, "--optimizer", "torch.optim.SDG"))
    assert "\n" not in str(raised.value) and "Subtypes" not in str(raised.value)


@pytest.mark.slow  # one short fit through the command
def test_fit_trains_with_the_given_optimizer_and_records_it(trec_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "sgd"
    words = ["--task", "trec", "--encoder", "multi_cnn", "--data-dir", str(trec_dir),
             "--embeddings", str(trec_dir / "glove.txt"), "--out", str(out),
             "--model.hidden_dim", "4", "--trainer.max_epochs", "2", *SGD_STEP]  # fmt: skip
    assert main(["fit", *words]) == 0
    recorded = yaml.safe_load((out / "fit_config.yaml").read_text())
    assert recorded["optimizer"]["init_args"]["momentum"] == 0.9
    checkpoint = torch.load(out / "checkpoints" / "last.ckpt", weights_only=True)
    assert checkpoint["hyper_parameters"]["optimizer_init"]["class_path"] == "torch.optim.SGD"
    [state] = checkpoint["optimizer_states"]
    assert [group["lr"] for group in state["param_groups"]] == pytest.approx([0.05 * 0.1**2] * 2)
    assert any("momentum_buffer" in entry for entry in state["state"].values())
    assert checkpoint["lr_schedulers"][0]["last_epoch"] == 2


def test_the_saved_config_names_only_the_optimizer_that_ran(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Issue 56 (H11.7): ``fit_config.yaml`` said ``model.optimizer: adam`` (and its ``lr``,
    ``eps``) beside an SGD run; ``--print_config`` too."""
    from harness.training.run_folder import differences_from_saved

    text = FitCLI(fit_words(tmp_path, *SGD_STEP)).config_yaml()
    for config in (yaml.safe_load(text), printed(fit_words(tmp_path, *SGD_STEP), capsys)):
        assert config["optimizer"]["class_path"] == "torch.optim.SGD"
        assert not {"optimizer", "lr", "adadelta_rho", "eps"} & set(config["model"])
        assert config["model"]["weight_decay"] == 0.0001  # the papers' L2 gamma: it runs
    # a folder saved before, with the papers' keys beside SGD, holds the same run
    (tmp_path / "run").mkdir()
    saved = yaml.safe_load(text)
    saved["model"] |= {"optimizer": "adam", "lr": 0.001, "adadelta_rho": 0.95, "eps": 1e-8}
    (tmp_path / "run" / "fit_config.yaml").write_text(yaml.safe_dump(saved))
    assert differences_from_saved(tmp_path / "run", text) == []


@pytest.mark.parametrize(
    "flags", ["skip_null", "skip_unset", "skip_default", "skip_null,skip_default"]
)
def test_print_config_flags_print_the_config_that_runs_as_lightningcli_documents(
    flags: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Issue 56 breaker: ``--print_config=skip_null`` went to jsonargparse's own printing,
    which named ``model.optimizer: adam`` beside ``--optimizer torch.optim.SGD``."""
    words = fit_words(tmp_path, *SGD_STEP, "--model.dropout", "0.3")
    assert main(["fit", *words, f"--print_config={flags}"]) == 0, capsys.readouterr().err
    text = capsys.readouterr().out
    config = yaml.safe_load(text)
    assert config["optimizer"]["class_path"] == "torch.optim.SGD"
    assert not {"optimizer", "lr", "adadelta_rho", "eps"} & set(config["model"])
    assert config["model"]["dropout"] == 0.3
    if "skip_default" in flags:  # the task's defaults left out
        assert "accelerator" not in text and "seed_everything" not in text
    else:  # the nulls left out
        assert "accelerator: auto" in text and "null" not in text


@pytest.mark.parametrize("flags", ["comments", "skip_nul", "skip_null,bogus"])
def test_an_unknown_print_config_flag_is_one_line(
    flags: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    assert main(["fit", *fit_words(tmp_path), f"--print_config={flags}"]) == 2
    lines = problem_lines(capsys.readouterr().err, "fit")
    assert len(lines) == 1 and "expected skip_null, skip_unset or skip_default" in lines[0], lines
    assert "Invalid option" not in lines[0]


FIXTURES = Path(__file__).parents[3] / "datamodules" / "fixtures"
PLATEAU = ["--lr_scheduler", "lightning.pytorch.cli.ReduceLROnPlateau"]
# a monitored metric the model never logs, as a flag, a callback's and a config file's
# (issue 56, outside check 6 item 2: it trained an epoch, then exited 1 "internal error")
MISSPELLED_MONITORS = [
    ([*SGD_STEP[:2], *PLATEAU, "--lr_scheduler.monitor", "val_accc"], "--lr_scheduler.monitor"),
    (
        ["--trainer.callbacks", "EarlyStopping", "--trainer.callbacks.monitor", "val_accc"],
        "--trainer.callbacks.monitor",
    ),
    (
        ["--trainer.callbacks", "ModelCheckpoint", "--trainer.callbacks.monitor", "val_accc"],
        "--trainer.callbacks.monitor",
    ),
    (
        ["--config", "c.yaml"],
        "--config c.yaml: lr_scheduler.init_args.monitor",
    ),
]


@pytest.mark.parametrize(("words", "named"), MISSPELLED_MONITORS)
def test_a_monitored_metric_the_model_does_not_log_is_refused_before_the_data(
    words: list[str], named: str, tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch
) -> None:
    """Exit 2 with the nearest logged name, nothing created (no fit_config.yaml, checkpoint)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.yaml").write_text(
        "optimizer: torch.optim.SGD\n"
        "lr_scheduler: {class_path: lightning.pytorch.cli.ReduceLROnPlateau,"
        " init_args: {monitor: val_accc}}\n"
    )
    data = ["--data-dir", str(FIXTURES / "kim2014"), "--trainer.max_steps", "1"]
    status = main(["fit", "--task", "sst2", "--encoder", "multi_cnn", *data, *words, "--out", "o"])
    err = capsys.readouterr().err
    assert status == 2, err
    assert f"{named} val_accc: the model logs no metric val_accc" in err, err
    assert "(did you mean val_acc?)" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml"]


@pytest.mark.parametrize(("kind_task", "metric"), [("sst2", "train_loss"), ("sick", "val_pearson")])
def test_each_metric_the_model_logs_may_be_monitored(
    kind_task: str, metric: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """The names :func:`logged_metrics` lists are the module's (relatedness: Pearson's r)."""
    words = ["--task", kind_task, "--encoder", "multi_cnn", "--data-dir", str(tmp_path)]
    words += [*SGD_STEP[:2], *PLATEAU, "--lr_scheduler.monitor", metric]
    config = printed(words, capsys)
    assert config["lr_scheduler"]["init_args"]["monitor"] == metric


def test_the_recorded_config_names_the_one_weight_decay_that_ran(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Issue 56 outside check C item 5: ``--optimizer AdamW`` recorded (and its page showed)
    ``optimizer.init_args.weight_decay 0.01`` beside ``model.weight_decay 0.0001``, the one
    that ran (the model's groups replace the class's)."""
    from harness.training.run_folder import differences_from_saved

    words = fit_words(tmp_path, "--optimizer", "AdamW", "--optimizer.lr", "0.002")
    text = FitCLI(words).config_yaml()
    for config in (yaml.safe_load(text), printed(words, capsys)):
        assert "weight_decay" not in config["optimizer"]["init_args"]
        assert config["model"]["weight_decay"] == 0.0001
    recorded = tmp_path / "fit_config.yaml"
    recorded.write_text(text)
    assert printed(["--config", str(recorded)], capsys) == yaml.safe_load(text)
    # a folder saved before, with the class's default beside it, holds the same run
    (tmp_path / "run").mkdir()
    saved = yaml.safe_load(text)
    saved["optimizer"]["init_args"]["weight_decay"] = 0.01
    (tmp_path / "run" / "fit_config.yaml").write_text(yaml.safe_dump(saved))
    assert differences_from_saved(tmp_path / "run", text) == []


@pytest.mark.parametrize("empty", ["{}", "{ }"])
@pytest.mark.parametrize("section", ["optimizer", "lr_scheduler"])
def test_an_empty_class_flag_is_none_as_in_a_config_file(
    tmp_path: Path, capsys: pytest.CaptureFixture, section: str, empty: str
) -> None:
    """``--optimizer {}`` was refused as 'torch.optim.Optimizer: the following arguments are
    required: defaults' (``--lr_scheduler {}``: an internal error), where a file's
    ``optimizer: {}`` is none: the task's own optimizer."""
    for words in ([f"--{section}", empty], [f"--{section}={empty}"]):
        config = printed(fit_words(tmp_path, *words), capsys)
        assert config[section] is None
        assert config["model"]["optimizer"] == "adam"  # TREC's own
    config_file = tmp_path / "c.yaml"
    config_file.write_text(f"{section}: {{}}\n")
    assert printed(fit_words(tmp_path, "--config", str(config_file)), capsys)[section] is None


STEP_LR = "torch.optim.lr_scheduler.StepLR"
STEP_SIZE_REQUIRED = "step_size is required: an integer (an argument of " + STEP_LR + ")"


@pytest.mark.parametrize(
    ("config", "named"),
    [
        (None, "--lr_scheduler."),
        (f"lr_scheduler: {{class_path: {STEP_LR}}}", "--config c.yaml: lr_scheduler.init_args."),
        (f"lr_scheduler: {STEP_LR}", "--config c.yaml: lr_scheduler.init_args."),
    ],
)
def test_a_class_missing_an_argument_names_it_as_an_option(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: str | None, named: str
) -> None:
    """A scheduler given without its required argument was refused in the parser's words
    ('--lr_scheduler torch.optim.lr_scheduler.StepLR: the following arguments are required:
    step_size'); now the argument is named as the flag (or the file's key) that sets it,
    beside the other problems."""
    monkeypatch.chdir(tmp_path)
    if config is None:
        given = ["--lr_scheduler", STEP_LR]
    else:
        (tmp_path / "c.yaml").write_text(config + "\n")
        given = ["--config", "c.yaml"]
    with pytest.raises(ConfigError) as raised:
        FitCLI(fit_words(tmp_path, *given, "--model.dropout", "3"))
    assert str(raised.value).splitlines() == [
        "--model.dropout 3: expected a number in [0, 1]",
        named + STEP_SIZE_REQUIRED,
    ]


def test_suite_names_a_class_argument_missing_as_fit_does(
    tmp_path: Path, trec_dir: Path, capsys: pytest.CaptureFixture
) -> None:
    words = ["suite", "--tasks", "trec", "--encoders", "bilstm", "--data-dir", str(trec_dir),
             "--out", str(tmp_path / "s"), "--lr_scheduler", STEP_LR]  # fmt: skip
    assert main(words) == 2
    assert problem_lines(capsys.readouterr().err, "suite") == [
        "sanbench suite: --lr_scheduler." + STEP_SIZE_REQUIRED
    ]
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize(
    "given",
    [
        ["--optimizer", "torch.optim.RMSprop"],
        ["--optimizer", '{"class_path": "torch.optim.RMSprop"}'],
        ["--optimizer", "{class_path: torch.optim.RMSprop, init_args: {alpha: 0.9}}"],
    ],
    ids=["flag", "mapping", "mapping-with-arguments"],
)
def test_another_class_after_a_config_files_takes_its_arguments_as_the_flag_does(
    given: list[str], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """A config file's ``optimizer: {class_path: torch.optim.SGD, init_args: {lr: 0.1,
    momentum: 0.9}}`` then ``--optimizer '{class_path: torch.optim.RMSprop}'``: until
    2026-12-01 refused with "--config c.yaml: optimizer.init_args.lr needs --optimizer CLASS"
    (the file's class was left out as set again, its arguments kept). A class set again is
    jsonargparse's to replace, as after ``--optimizer torch.optim.RMSprop``: the file's
    arguments that the new class takes are carried."""
    config = tmp_path / "c.yaml"
    config.write_text(
        "optimizer: {class_path: torch.optim.SGD, init_args: {lr: 0.1, momentum: 0.9}}\n"
    )
    optimizer = printed([*fit_words(tmp_path), "--config", str(config), *given], capsys)
    optimizer = optimizer["optimizer"]
    assert optimizer["class_path"] == "torch.optim.RMSprop"
    assert (optimizer["init_args"]["lr"], optimizer["init_args"]["momentum"]) == (0.1, 0.9)


@pytest.mark.parametrize("command", ["fit", "suite"])
def test_a_config_files_optimizer_weight_decay_is_named_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture, command: str
) -> None:
    """Issue 56 outside check at f71dacf: a file's ``optimizer: {init_args: {weight_decay:
    0.01}}`` was refused as ``--optimizer.weight_decay 0.01``, a flag nobody typed."""
    runs = {"fit": "model: {encoder: bilstm}\ndata: {task: trec}\n"}
    config = tmp_path / "c.yaml"
    config.write_text(
        runs.get(command, "tasks: trec\nencoders: bilstm\n")
        + "optimizer:\n  class_path: torch.optim.SGD\n"
        + "  init_args: {lr: 0.5, momentum: 0.9, weight_decay: 0.01}\n"
    )
    words = ["-c", str(config), "--data-dir", str(data_folder(tmp_path))]
    assert main([command, *words, "--out", str(tmp_path / "o"), "--print_config"]) == 2
    said = f"-c {config}: optimizer.init_args.weight_decay 0.01: weight decay is"
    assert said in capsys.readouterr().err
