"""``FitCLI`` (``harness/training/settings/fit_cli.py``): the task's and encoder's config are the
defaults, whether ``--task``/``--encoder`` are flags or keys of a ``--config`` file, and no
word of the command line is read by hand."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from harness.cli import main
from harness.training.settings.fit_cli import FitCLI
from harness.training.settings.task_configs import ConfigUsageError
from tests.harness.problem_lines import problem_lines
from tests.harness.training.settings.data_folder import data_folder


def printed_config(words: list[str], capsys: pytest.CaptureFixture) -> dict:
    assert main(["fit", *words, "--print_config"]) == 0
    return yaml.safe_load(capsys.readouterr().out)


def test_the_task_and_encoder_of_a_config_file_choose_the_defaults(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    chosen = tmp_path / "chosen.yaml"
    chosen.write_text("data:\n  task: trec\nmodel:\n  encoder: disan\n")
    config = printed_config(["--config", str(chosen), "--data-dir", str(tmp_path)], capsys)
    assert config["data"]["batch_size"] == 16  # TREC's value for DiSAN (Bi-BloSAN §4.4)
    assert config["model"]["optimizer"] == "adam"  # and the task's own
    later = ["--config", str(chosen), "--encoder", "multi_cnn", "--data.batch_size", "8"]
    config = printed_config([*later, "--data-dir", str(tmp_path)], capsys)
    assert (config["model"]["encoder"], config["data"]["batch_size"]) == ("multi_cnn", 8)


def test_a_file_after_the_flags_wins_over_them(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    chosen = tmp_path / "chosen.yaml"
    chosen.write_text("model:\n  encoder: disan\n")
    words = ["--task", "trec", "--encoder", "multi_cnn", "--data-dir", str(tmp_path)]
    config = printed_config([*words, "--config", str(chosen)], capsys)
    assert (config["model"]["encoder"], config["data"]["batch_size"]) == ("disan", 16)


def test_short_forms_and_overwrite_are_options_not_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    words = ["--task=trec", "--encoder", "mtsa", "--data-dir", str(tmp_path), "--fold", "2"]
    config = printed_config([*words, "--seed=7", "--overwrite"], capsys)
    assert (config["data"]["fold"], config["seed_everything"]) == (2, 7)
    assert "overwrite" not in config and "task" not in config
    assert main(["fit", *words, "--print-config"]) == 2
    assert "unknown option --print-config (did you mean --print_config?)" in capsys.readouterr().err


def test_help_shows_the_chosen_task_and_encoder_before_the_data_folder_is_named(
    capsys: pytest.CaptureFixture,
) -> None:
    assert main(["fit", "--task", "trec", "--encoder", "disan", "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--data.batch_size BATCH_SIZE" in help_text and "(type: int, default: 16)" in help_text


def test_a_missing_config_file_and_a_file_that_is_not_a_mapping_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    absent = tmp_path / "absent.yaml"
    assert main(["fit", "--config", str(absent)]) == 2
    assert f"--config {absent}: no such file: {absent}" in capsys.readouterr().err
    listed = tmp_path / "listed.yaml"
    listed.write_text("- a\n- b\n")
    assert main(["fit", "--config", str(listed)]) == 2
    assert f"--config {listed}: expected a mapping of options" in capsys.readouterr().err


NOTE = "tests.harness.fixtures.noting_callback.NoteFitEnd"  # a user's own callback


@pytest.mark.slow
@pytest.mark.parametrize(
    "spelling",
    [
        [f"--trainer.callbacks+={NOTE}"],
        ["--trainer.callbacks+", NOTE],
        [f"--trainer.callbacks={NOTE}"],
        [f'--trainer.callbacks=[{{"class_path": "{NOTE}"}}]'],
    ],
    ids=["append", "append-spaced", "one", "json-list"],
)
def test_every_spelling_of_a_callback_that_help_shows_works(
    spelling: list[str], trec_dir: Path, tmp_path: Path
) -> None:
    """Before: ``+=`` was refused as an unknown option and a single callback ended in an
    internal error (``Value after * must be an iterable``)."""
    out = tmp_path / "run"
    argv = ["fit", "--task", "trec", "--encoder", "multi_cnn", "--data-dir", str(trec_dir)]
    argv += ["--out", str(out), "--trainer.max_steps", "1", "--model.hidden_dim", "4"]
    assert main([*argv, *spelling]) == 0
    assert (out / "noted.txt").read_text() == "noted\n"


def test_a_logger_without_its_package_is_one_line_naming_the_extra(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: jsonargparse's 12-line dump of the logger's union type."""
    import importlib.util

    found = importlib.util.find_spec
    hidden = ("tensorboard", "tensorboardX")
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name in hidden else found(name, *a)
    )
    out = tmp_path / "run"
    argv = ["fit", "--task", "trec", "--encoder", "multi_cnn", "--data-dir", str(trec_dir)]
    argv += ["--out", str(out), "--trainer.logger", "TensorBoardLogger"]
    assert main([*argv, "--trainer.logger.save_dir", str(out)]) == 2
    problems = [line for line in capsys.readouterr().err.splitlines() if "debug" not in line]
    assert problems == [
        "sanbench fit: --trainer.logger TensorBoardLogger needs tensorboard: "
        "pip install 'sanbench[tensorboard]'"
    ]
    assert not out.exists()


USERS_DATAMODULES = """
import lightning as L
from torch.utils.data import DataLoader

from questions_datamodule import QuestionsDataModule


class FailsInSetup(QuestionsDataModule):
    def setup(self, stage=None):
        raise RuntimeError("the corpus server is down\\nretry later")


class FailsInChecks(QuestionsDataModule):
    def check_inputs(self):
        raise KeyError("corpus")


class NoTrainingBatch(QuestionsDataModule):
    def train_dataloader(self):
        return DataLoader([], batch_size=self.batch_size)
"""


@pytest.fixture
def users_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A user's module of datamodules (on the committed example) in the current folder."""
    example = Path(__file__).resolve().parents[4] / "examples" / "own-data"
    (tmp_path / "questions_datamodule.py").write_text(
        (example / "questions_datamodule.py").read_text()
    )
    (tmp_path / "users_datamodules.py").write_text(USERS_DATAMODULES)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "users_datamodules"


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("FailsInSetup", "setup('fit') raised RuntimeError: the corpus server is down retry later"),
        ("FailsInChecks", "check_inputs() raised KeyError: 'corpus'"),
    ],
)
def test_a_users_datamodule_that_raises_is_the_users_error_named_by_its_class(
    users_module: str, capsys: pytest.CaptureFixture, name: str, said: str
) -> None:
    """Issue 54.9: a user's ``setup`` raising was an "internal error" (exit 1)."""
    argv = ["fit", "--data", f"{users_module}.{name}", "--encoder", "multi_cnn", "--out", "runs/u"]
    assert main(argv) == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if "--debug" not in line]
    assert lines == [f"sanbench fit: --data {users_module}.{name}: {said}"], lines
    assert not Path("runs/u").exists()


@pytest.mark.slow  # builds a model and starts a trainer
def test_a_fit_that_trains_no_step_records_no_result(
    users_module: str, capsys: pytest.CaptureFixture
) -> None:
    """A training loader of no batch: Lightning's fit returns at once; the untrained model's
    scores used to be written to metrics.json (issue 54.4)."""
    argv = ["fit", "--data", f"{users_module}.NoTrainingBatch", "--encoder", "multi_cnn"]
    argv += ["--out", "runs/n", "--data.size", "16", "--model.hidden_dim", "4"]
    assert main(argv) == 1
    assert "training ended before its first step" in capsys.readouterr().err
    assert not Path("runs/n/metrics.json").exists()


def test_the_task_file_is_recorded_by_its_absolute_path(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 54.9: ``fit`` recorded ``--task`` as typed, so ``fit --config
    OUT/fit_config.yaml`` from another folder did not find the task file."""
    example = Path(__file__).resolve().parents[4] / "examples" / "own-data"
    monkeypatch.chdir(example.parent)
    words = ["--task", "own-data/reviews.yaml", "--encoder", "multi_cnn", "--out", "runs/r"]
    config = printed_config(words, capsys)
    assert config["data"]["task"] == str(example / "reviews.yaml")
    saved = tmp_path / "fit_config.yaml"
    saved.write_text(yaml.safe_dump(config))
    monkeypatch.chdir(tmp_path)  # another folder: the recorded config still names the file
    assert (
        printed_config(["--config", str(saved)], capsys)["data"]["task"] == config["data"]["task"]
    )


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("max_steps", "-5", "a positive number of steps (or -1: no limit)"),
        ("max_epochs", "-3", "a positive number of epochs (or -1: no limit)"),
        ("limit_train_batches", "-2", "a positive number of batches or a fraction in (0, 1]"),
    ],
)
def test_a_negative_budget_is_refused_before_any_data_is_read(
    tmp_path: Path, key: str, value: str, expected: str
) -> None:
    """Issue 56.10: ``--trainer.max_steps -5`` read the data, then printed Lightning's text.
    ``check`` is what runs before the data folder is read."""
    from harness.training.settings.fit_cli import FitCLI
    from harness.training.settings.task_configs import ConfigError

    words = ["--task", "trec", "--encoder", "bilstm", "--data-dir", str(data_folder(tmp_path))]
    cli = FitCLI([*words, "--out", str(tmp_path / "o"), f"--trainer.{key}", value])
    with pytest.raises(ConfigError) as refused:
        cli.check()
    assert str(refused.value) == f"--trainer.{key} {value}: expected {expected}"


def test_an_encoder_option_by_its_old_name_is_recorded_by_its_current_one(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """``{impl: tensor}`` for MTSA warns (as ``profile --encoders mtsa:impl=tensor`` does) and
    the config records ``attention_impl: tensor`` (issue 55: it printed ``impl: tensor``)."""
    words = ["--task", "trec", "--encoder", "mtsa", "--data-dir", str(tmp_path)]
    options = ["--model.encoder_options", '{"impl": "tensor"}']
    with pytest.warns(FutureWarning, match="impl is now called attention_impl"):
        config = printed_config([*words, *options], capsys)
    assert config["model"]["encoder_options"] == {"attention_impl": "tensor"}


def test_the_recorded_config_names_its_folders_by_absolute_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside check 15: ``fit --config runs/x/fit_config.yaml`` from another folder read the
    recorded relative ``out``, ``data_dir`` and ``embeddings`` against that folder (a new run
    folder there, and no data)."""
    from harness.training.settings.fit_cli import FitCLI

    monkeypatch.chdir(tmp_path)
    words = ["--task", "trec", "--encoder", "multi_cnn", "--out", "runs/x", "--data-dir", "d"]
    recorded = yaml.safe_load(FitCLI([*words, "--embeddings", "v.txt"]).config_yaml())
    assert recorded["out"] == str(tmp_path / "runs" / "x")
    assert recorded["data"]["data_dir"] == str(tmp_path / "d")
    assert recorded["data"]["embeddings"] == str(tmp_path / "v.txt")


NULLS = "data: {fold: ~, batch_size: ~}\nmodel: {dropout: ~, head_hidden: ~}\n"


@pytest.mark.parametrize("printing", [False, True], ids=["run", "print_config"])
def test_a_config_files_null_is_refused_as_the_flags_null_is(
    printing: bool, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Outside check of #56, items 1 and 20: ``data: {fold: ~}`` was an internal error
    ("TypeError: '<=' not supported between instances of 'int' and 'NoneType'", exit 1)
    where ``--data.fold null`` is refused, and ``--print_config`` printed ``fold: null``;
    every null is named at once, by the run and by ``--print_config`` alike (item 3)."""
    config = tmp_path / "n.yaml"
    config.write_text(NULLS)
    out = tmp_path / "out"
    words = [
        "fit",
        "--task",
        "cr",
        "--encoder",
        "multi_cnn",
        "--data-dir",
        str(data_folder(tmp_path)),
    ]
    words += ["--config", str(config), "--out", str(out)]
    assert main([*words, *(["--print_config"] if printing else [])]) == 2
    printed = capsys.readouterr()
    lines = problem_lines(printed.err, "fit")
    named = [f"--config {config}: {key} ~: expected" for key in ("data.fold", "data.batch_size")]
    named += [
        f"--config {config}: {key} ~: expected" for key in ("model.dropout", "model.head_hidden")
    ]
    assert len(lines) == 4 and all(any(n in line for line in lines) for n in named), lines
    assert not printed.out and not out.exists()


@pytest.mark.parametrize(
    "command",
    [
        ["tune", "--study", "dropout", "--task", "trec", "--encoder", "multi_cnn"],
        ["reproduce", "--tasks", "trec"],
    ],
    ids=["tune", "reproduce"],
)
def test_a_run_of_another_command_points_to_no_help_of_fit(
    command: list[str], tmp_path: Path, trec_dir: Path, capsys: pytest.CaptureFixture
) -> None:
    """Outside check of #56, item 18: ``tune`` and ``reproduce`` ended their runs' problems
    with ``(see sanbench fit --help)``; a config given as a mapping (another command's run) is
    said by that command, whose name leads each line, and whose help the last line names."""
    out = tmp_path / "out"
    words = [*command, "--data-dir", str(trec_dir), "--out", str(out)]
    assert main([*words, "--model.dropout", "3", "--data.batch_size", "0"]) == 2
    err = capsys.readouterr().err
    lines = problem_lines(err, command[0])
    assert len(lines) == 2 and "fit --help" not in err, lines
    assert all(line.startswith(f"sanbench {command[0]}: --") for line in lines), lines


def test_a_missing_encoder_beside_a_refused_value_is_said_with_it(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """``fit --task trec --model.dropout 3`` without ``--encoder`` printed 'sanbench fit: list
    index out of range' (exit 2): the parser's refusal of a missing option names no key, and
    the refusal loop read its first key; now both problems."""
    words = ["fit", "--task", "trec", "--data-dir", str(tmp_path), "--out", str(tmp_path / "o")]
    assert main([*words, "--model.dropout", "3"]) == 2
    lines = problem_lines(capsys.readouterr().err, "fit")
    assert lines[0] == "sanbench fit: --model.dropout 3: expected a number in [0, 1]", lines
    assert lines[1:] == [  # as typed (issue 56, item 4)
        "sanbench fit: --encoder is required: a registered encoder (sanbench encoders lists them)"
    ]
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("printing", [False, True], ids=["run", "print_config"])
def test_an_optimizer_argument_flag_overrides_the_config_files(
    printing: bool, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Outside check 56e of #56, item 1: ``fit --config c.yaml --optimizer.lr 0.2`` (the file's
    ``optimizer: {class_path: torch.optim.SGD, init_args: {lr: 0.1}}``) was refused, ``--config
    c.yaml: optimizer.init_args.lr 0.1: expected a number``, though later flags win; with a bad
    value beside it, only that value is named."""
    config = tmp_path / "c.yaml"
    config.write_text("optimizer:\n  class_path: torch.optim.SGD\n  init_args: {lr: 0.1}\n")
    words = ["--task", "trec", "--encoder", "multi_cnn", "--data-dir", str(data_folder(tmp_path))]
    words += ["--config", str(config), "--optimizer.lr", "0.2", "--optimizer.momentum", "0.5"]
    words += ["--out", str(tmp_path / "out")]
    printed = printed_config(words, capsys)["optimizer"]["init_args"]
    assert (printed["lr"], printed["momentum"]) == (0.2, 0.5)
    bad = [*words, "--model.dropout", "1.5", *(["--print_config"] if printing else [])]
    assert main(["fit", *bad]) == 2
    lines = problem_lines(capsys.readouterr().err, "fit")
    assert lines == ["sanbench fit: --model.dropout 1.5: expected a number in [0, 1]"], lines
    assert not (tmp_path / "out").exists()


def test_a_refused_value_leaves_the_task_defaults_the_other_values_are_judged_on(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Outside check 56e of #56, item 2: fit's printed config with ``optimizer:`` added (its
    ``model.optimizer``/``model.lr`` the task's defaults) and ``dropout: 1.5`` was refused
    for the dropout and twice more, ``model.optimizer adam and --optimizer torch.optim.SGD: give
    one``: a refused value lost the task's defaults, so they read as changed."""
    words = ["--task", "mr", "--encoder", "bilstm", "--data-dir", str(data_folder(tmp_path))]
    config = printed_config(words, capsys)
    config["model"]["dropout"] = 1.5
    config["optimizer"] = {"class_path": "torch.optim.SGD", "init_args": {"lr": 0.1}}
    saved = tmp_path / "c.yaml"
    saved.write_text(yaml.safe_dump(config))
    assert main(["fit", "--config", str(saved), "--out", str(tmp_path / "out")]) == 2
    lines = problem_lines(capsys.readouterr().err, "fit")
    assert lines == [
        f"sanbench fit: --config {saved}: model.dropout 1.5: expected a number in [0, 1]"
    ]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("given", ["flag", "config"])
def test_a_misspelt_encoder_is_named_beside_every_other_problem(
    given: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Outside check 56e of #56, item 3: ``--encoder bilstmm --model.hidden_dim 0`` printed
    only ``unknown encoder 'bilstmm'; registered encoders: ...`` (a config file's ``encoder:
    bi-lstm`` alike, neither the file nor its other wrong values named); now the name with its
    nearest, then each other value, judged as of that nearest encoder."""
    words = [
        "--task",
        "trec",
        "--data-dir",
        str(data_folder(tmp_path)),
        "--out",
        str(tmp_path / "out"),
    ]
    config = tmp_path / "c.yaml"
    config.write_text("model: {encoder: bi-lstm, hidden_dim: 0}\n")
    if given == "flag":
        words += ["--encoder", "bilstmm", "--model.hidden_dim", "0"]
        named = ["--encoder bilstmm", "--model.hidden_dim 0"]
    else:
        words += ["--config", str(config)]
        named = [
            f"--config {config}: model.encoder bi-lstm",
            f"--config {config}: model.hidden_dim 0",
        ]
    assert main(["fit", *words]) == 2
    lines = problem_lines(capsys.readouterr().err, "fit")
    assert len(lines) == 2, lines
    assert lines[0].startswith(f"sanbench fit: {named[0]}: expected one of ")
    assert lines[0].endswith("(did you mean bilstm?)")
    assert lines[1] == f"sanbench fit: {named[1]}: expected a positive integer"
    assert main(["fit", *words, "--help"]) == 2  # no help of another encoder
    assert len(problem_lines(capsys.readouterr().err, "fit")) == 1
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("given", ["flag", "config"])
def test_a_misspelt_task_is_named_beside_every_other_problem(
    given: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Issue 56, item 1: ``fit --encoder bilstmm --task treec --model.dropout 3`` named the task
    and the encoder, not the dropout (only once the task was fixed); now the task with its
    nearest, then every other problem, judged as of the nearest task and encoder."""
    words = ["--data-dir", str(data_folder(tmp_path)), "--out", str(tmp_path / "out")]
    config = tmp_path / "c.yaml"
    config.write_text("data: {task: treec}\nmodel: {encoder: bilstmm, dropout: 3}\n")
    if given == "flag":
        words += ["--task", "treec", "--encoder", "bilstmm", "--model.dropout", "3"]
        named = ["--task treec", "--encoder bilstmm", "--model.dropout 3"]
    else:
        words += ["--config", str(config)]
        keys = ("data.task treec", "model.encoder bilstmm", "model.dropout 3")
        named = [f"--config {config}: {key}" for key in keys]
    assert main(["fit", *words]) == 2
    lines = problem_lines(capsys.readouterr().err, "fit")
    assert len(lines) == 3, lines
    assert lines[0].startswith(f"sanbench fit: {named[0]}: expected one of ")
    assert lines[0].endswith("(did you mean trec?)")
    assert lines[1].startswith(f"sanbench fit: {named[1]}: expected one of ")
    assert lines[2] == f"sanbench fit: {named[2]}: expected a number in [0, 1]"
    assert main(["fit", *words, "--help"]) == 2  # the names alone, no help of another task
    assert len(problem_lines(capsys.readouterr().err, "fit")) == 2
    assert not (tmp_path / "out").exists()


def test_a_refused_key_is_left_out_of_each_source_at_once(tmp_path: Path) -> None:
    """Issue 56, item 3: a config file's ``optimizer: {class_path: torch.optim.SDG}`` with
    ``--optimizer.lr 0.3`` after it was refused twice by fit's own parse (the flag left out,
    then the file's key; harness.cli's printing hid the second line): one refusal, one line."""
    config = tmp_path / "f.yaml"
    config.write_text("optimizer: {class_path: torch.optim.SDG}\n")
    words = ["--config", str(config), "--optimizer.lr", "0.3", "--task", "trec"]
    words += ["--out", str(tmp_path / "o"), "--data-dir", str(data_folder(tmp_path))]
    with pytest.raises(ConfigUsageError) as refused:
        FitCLI([*words, "--encoder", "multi_cnn"])
    assert str(refused.value).splitlines() == [
        f"--config {config}: optimizer.class_path torch.optim.SDG: no class SDG in torch.optim "
        "(did you mean SGD?)"
    ]


@pytest.mark.parametrize(
    ("words", "lines"),
    [
        ([], ["--encoder is required: ", "--task is required: ", "--out is required: "]),
        (["--task", "trec", "--encoder", "multi_cnn", "--trainer.max_steps", "0"],
         ["--trainer.max_steps 0: trains nothing", "--out is required: ",
          "--data-dir is required: "]),
        (["--task", "trec", "--encoder", "multi_cnn", "--model.dropout", "3"],
         ["--model.dropout 3: expected", "--out is required: ", "--data-dir is required: "]),
    ],
)  # fmt: skip
def test_a_missing_out_is_named_as_every_command_names_it_beside_the_rest(
    words: list[str], lines: list[str], tmp_path: Path, capsys: pytest.CaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """``fit --task trec --encoder multi_cnn --trainer.max_steps 0`` printed only 'missing --out
    (the run folder)', another voice than every other command's '--out is required: ...', and
    bare ``fit`` named --encoder and --task, not --out; now each is named, in one refusal
    (short check 56i item 6)."""
    monkeypatch.chdir(tmp_path)
    assert main(["fit", *words]) == 2
    said = problem_lines(capsys.readouterr().err, "fit")
    assert len(said) == len(lines), said
    for line, start in zip(said, lines, strict=True):
        assert line.startswith(f"sanbench fit: {start}"), said
    assert list(tmp_path.iterdir()) == []


def test_a_refused_section_file_or_moved_folder_hides_no_other_problem(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """``fit ... --optimizer opt2.yaml`` (an ``lr`` and no class) with ``--trainer.max_steps 0``
    named only the file, and a moved folder's refusal (``fit --config f2/fit_config.yaml
    --model.dropout 7``) only the move; now every problem in one refusal (short check 56i
    item 7)."""
    from harness.outdir import MARKER

    (tmp_path / "opt2.yaml").write_text("lr: 0.1\n")
    words = ["fit", "--task", "trec", "--encoder", "multi_cnn", "--data-dir", str(trec_dir)]
    given = ["--optimizer", str(tmp_path / "opt2.yaml"), "--trainer.max_steps", "0"]
    assert main([*words, "--out", str(tmp_path / "f9"), *given]) == 2
    said = problem_lines(capsys.readouterr().err, "fit")
    assert len(said) == 2 and "lr needs --optimizer CLASS" in said[0], said
    assert said[1].startswith("sanbench fit: --trainer.max_steps 0: trains nothing"), said
    old, moved = tmp_path / "f1", tmp_path / "f2"
    assert main([*words, "--out", str(old), "--print_config"]) == 0
    moved.mkdir()
    (moved / MARKER).write_text("made by sanbench fit\n")
    (moved / "fit_config.yaml").write_text(capsys.readouterr().out)
    assert main(["fit", "--config", str(moved / "fit_config.yaml"), "--model.dropout", "7"]) == 2
    said = problem_lines(capsys.readouterr().err, "fit")
    assert len(said) == 2 and "moved since" in said[0], said
    assert said[1] == "sanbench fit: --model.dropout 7: expected a number in [0, 1]", said
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f2", "opt2.yaml"]


@pytest.mark.parametrize("more", [[], ["--trainer.max_steps", "0"]])
def test_a_sections_file_refused_names_its_key_and_value_and_keeps_the_flags(
    more: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--model m.yaml`` holding ``hidden_dim: 0`` said "--model m.yaml: expected a positive
    integer" (no key) and then "--encoder is required", the file's refusal having left out
    the --encoder given beside it (outside check 5x item 5)."""
    model = tmp_path / "m.yaml"
    model.write_text("dropout: 0.3\nhidden_dim: 0\n")
    words = ["fit", "--task", "trec", "--encoder", "multi_cnn", "--data-dir"]
    words += [str(data_folder(tmp_path)), "--out", str(tmp_path / "out"), "--model", str(model)]
    assert main([*words, *more]) == 2
    lines = problem_lines(capsys.readouterr().err, "fit")
    said = f"sanbench fit: --model {model}: hidden_dim 0: expected a positive integer"
    assert lines[0] == said and len(lines) == 1 + len(more) // 2, lines
    assert not any("--encoder" in line for line in lines), lines
    assert not (tmp_path / "out").exists()


def test_print_config_names_the_folders_by_absolute_paths(
    trec_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """A relative path in a config file is read beside that file (docs/training.md): fit's
    ``--print_config`` wrote ``--data-dir ../k`` and ``--out o`` as typed, so the recipe's
    printed config, saved in another folder, named other folders (f9a's leftover). It names
    them as ``fit_config.yaml`` does, by absolute paths."""
    import os

    monkeypatch.chdir(tmp_path)
    data = os.path.relpath(trec_dir, tmp_path)
    words = ["fit", "--task", "trec", "--encoder", "multi_cnn", "--data-dir", data, "--out", "o"]
    assert main([*words, "--print_config"]) == 0
    printed = yaml.safe_load(capsys.readouterr().out)
    assert Path(printed["data"]["data_dir"]).is_absolute()
    assert Path(printed["data"]["data_dir"]).resolve() == trec_dir.resolve()
    assert printed["out"] == str(tmp_path / "o")


def test_print_config_names_no_left_out_data_dir_beside_a_refused_value(
    capsys: pytest.CaptureFixture,
) -> None:
    """Issue 56 (f19a item 3): ``fit --print_config`` without ``--data-dir`` named "--data-dir
    is required" beside a refused value, while suite, tune and reproduce leave a folder to the
    run; now it prints a file to fill in (null ``data_dir``) and refuses the bad value alone."""
    words = ["fit", "--task", "trec", "--encoder", "multi_cnn", "--print_config"]
    assert main(words) == 0
    assert yaml.safe_load(capsys.readouterr().out)["data"]["data_dir"] is None
    assert main([*words, "--model.hidden_dim", "0"]) == 2
    lines = problem_lines(capsys.readouterr().err, "fit")
    assert lines == ["sanbench fit: --model.hidden_dim 0: expected a positive integer"], lines
