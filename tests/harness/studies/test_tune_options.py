"""``sanbench tune``: fit overrides and the search space file reach the trials; the budget stays
with the trials; one line per finished trial; best_config.yaml trains the winner for real."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import optuna
import pytest
import yaml

from harness.cli import main
from harness.command_parser import CommandParser, build
from harness.errors import InputError
from harness.studies.fitting import best_fit_run
from harness.studies.options import StudyOptions
from harness.studies.plans import StudyPlan, TuneContext
from harness.studies.space import read_space, suggest
from harness.studies.study import trial_line
from tests.harness.problem_lines import files_lines, problem_lines

EXPECTED = "an SQLAlchemy URL (sqlite:///runs/s.db, postgresql://user:***@host/db)"

DATA = Path(__file__).resolve().parents[3] / "tests" / "datamodules" / "fixtures" / "kim2014"


def _study(words: list[str]) -> StudyOptions:
    parser = CommandParser("sanbench tune")
    parser.add_options(StudyOptions)
    return build(StudyOptions, parser.parse(["--study", "dropout", *words]))


def test_fit_options_become_overrides_and_other_words_a_did_you_mean() -> None:
    words = ["--model.dropout", "0.3", "--trainer.max_epochs=4", "--data.encoding", "cp1252"]
    context = _study([*words, "--max-steps", "5"]).context()
    assert context.overrides == {
        "model.dropout": 0.3,
        "trainer.max_epochs": 4,
        "data.encoding": "cp1252",
    }
    assert context.budget == {"trainer.max_steps": 5}  # the trials' only
    with pytest.raises(InputError) as error:
        _study(["--max-step", "5", "--trials", "2", "--tirals", "3"])
    assert str(error.value).splitlines() == [
        "unknown option --max-step (did you mean --max-steps?)",
        "unknown option --tirals (did you mean --trials?)",  # the pointer: the cli's line
    ]
    with pytest.raises(InputError, match=r"--max-length 40 and --data\.max_length 50: give one"):
        _study(["--max-length", "40", "--data.max_length", "50"]).context()


def test_an_absurd_number_of_trials_is_refused_saying_how_many() -> None:
    """``--trials 100000000`` started trial after trial (issue 56 breaker)."""
    with pytest.raises(InputError, match=r"--trials 100000000: a study runs at most 10,000"):
        _study(["--trials", "100000000"])
    assert _study(["--trials", "10000"]).trials == 10_000


def test_best_config_has_the_fit_overrides_and_not_the_trials_budget() -> None:
    ctx = TuneContext(
        study="dropout",
        task="trec",
        encoder="mtsa",
        data_dir=Path("data"),
        embeddings=None,
        out=Path("o"),
        overrides={"model.head_hidden": 8},
        budget={"trainer.max_epochs": 1, "trainer.limit_train_batches": 20},
    )
    config = best_fit_run(ctx, {"model.dropout": 0.2}).resolved()
    task_default = best_fit_run(ctx.__class__(**{**vars(ctx), "budget": {}}), {}).resolved()
    assert config["trainer"]["max_epochs"] == task_default["trainer"]["max_epochs"] != 1
    assert config["trainer"]["limit_train_batches"] is None
    assert (config["model"]["head_hidden"], config["model"]["dropout"]) == (8, 0.2)


def test_a_search_space_file_is_checked_line_by_line(tmp_path: Path) -> None:
    space = tmp_path / "space.yaml"
    space.write_text(
        "model.dropout: {low: 0.5, high: 0.1}\n"
        "dropout: [0.1]\n"
        "model.lr: {low: 0, high: 1, log: true}\n"
        "model.optimizer: []\n"
        "model.head_hidden: {low: 8, hi: 16}\n"
    )
    kept, problems = read_space(space)  # each bad entry left out, said beside the rest
    assert kept == {}
    assert [line.split(": ", 2)[1].split()[0] for line in problems] == [
        "model.dropout",
        "dropout",
        "model.lr",
        "model.optimizer",
        "model.head_hidden",
    ]


def test_a_search_space_suggests_floats_ints_and_choices(tmp_path: Path) -> None:
    space = tmp_path / "space.yaml"
    space.write_text(
        "model.dropout: {low: 0.1, high: 0.5}\n"
        "model.head_hidden: {low: 8, high: 64, step: 8}\n"
        "model.optimizer: [adam, adadelta]\n"
    )
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    chosen = suggest(study.ask(), read_space(space)[0])
    assert 0.1 <= chosen["model.dropout"] <= 0.5
    assert chosen["model.head_hidden"] in range(8, 65, 8)
    assert chosen["model.optimizer"] in ("adam", "adadelta")


def test_one_line_per_finished_trial() -> None:
    plan = StudyPlan("toy", ["dev_acc"], ["maximize"], lambda trial: 0.0, 3)
    study = optuna.create_study(direction="maximize")

    def objective(trial: optuna.Trial) -> float:
        keep = trial.suggest_float("keep_prob", 0.5, 0.95)
        trial.report(0.25, step=2)
        if trial.number == 1:
            raise optuna.TrialPruned()
        return keep

    study.enqueue_trial({"keep_prob": 0.75})
    study.enqueue_trial({"keep_prob": 0.6})
    study.optimize(objective, n_trials=2)
    first, second = (trial_line(plan, trial) for trial in study.trials)
    assert first == "trial 0: keep_prob = 0.75 -> dev acc (%) = 75.0"  # as its page says it
    assert second == "trial 1: keep_prob = 0.6 -> pruned at step 2 (reported 25.0%)"


@pytest.mark.slow
def test_search_study_passes_fit_options_to_trials_and_trains_the_winner_for_real(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    space = tmp_path / "space.yaml"
    space.write_text("model.dropout: {low: 0.1, high: 0.5}\n")
    out = tmp_path / "study"
    argv = ["tune", "--study", "search", "--space", str(space), "--task", "trec"]
    argv += ["--encoder", "multi_cnn", "--data-dir", str(trec_dir), "--trials", "2"]
    argv += ["--storage", f"sqlite:///{tmp_path / 's.db'}", "--out", str(out)]
    argv += ["--max-steps", "2", "--model.hidden_dim", "4", "--model.head_hidden=8"]
    assert main(argv) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("trial ")]
    assert [line.split(":")[0] for line in lines] == ["trial 0", "trial 1"]
    assert all(" model.dropout = " in line and " -> dev acc (%) = " in line for line in lines)
    for trial in ("0000", "0001"):
        config = json.loads((out / "trials" / trial / "metrics.json").read_text())["config"]
        assert config["trainer"]["max_steps"] == 2  # the budget
        assert (config["model"]["hidden_dim"], config["model"]["head_hidden"]) == (4, 8)
    best = yaml.safe_load((out / "best_config.yaml").read_text())
    assert best["trainer"]["max_steps"] == -1  # the task's own, not the trials' budget
    assert (best["model"]["hidden_dim"], best["model"]["head_hidden"]) == (4, 8)
    assert 0.1 <= best["model"]["dropout"] <= 0.5


def test_space_keys_are_checked_before_any_trial(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    space = tmp_path / "space.yaml"
    space.write_text("model.dropuot: {low: 0.1, high: 0.5}\n")
    out = tmp_path / "study"
    argv = ["tune", "--study", "search", "--space", str(space), "--task", "trec"]
    argv += ["--encoder", "multi_cnn", "--data-dir", str(trec_dir), "--out", str(out)]
    assert main(argv) == 2
    assert "unknown key model.dropuot (did you mean model.dropout?)" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("held", ["a folder of yours", "a file"])
def test_the_default_out_folder_is_checked_as_a_given_one(
    held: str,
    tmp_path: Path,
    trec_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 56.12: without --out, runs/studies/NAME is refused as --out NAME would be, before
    any trial (on 023e32f the study ran into it)."""
    monkeypatch.chdir(tmp_path)
    default = Path("runs") / "studies" / "dropout-trec-multi_cnn"
    if held == "a file":
        default.parent.mkdir(parents=True)
        default.write_text("mine")
    else:
        default.mkdir(parents=True)
        (default / "notes.txt").write_text("mine")
    before = sorted(str(p) for p in Path().rglob("*"))
    argv = ["tune", "--study", "dropout", "--task", "trec", "--encoder", "multi_cnn",
            "--data-dir", str(trec_dir), "--trials", "1", "--max-steps", "1"]  # fmt: skip
    assert main(argv) == 2
    (line, *_) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"sanbench tune: --out {default} ")
    assert sorted(str(p) for p in Path().rglob("*")) == before


def test_an_encoder_variant_gets_profiles_words(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--encoder disan:attention_imp=naive`` listed every encoder where ``profile`` names the
    option meant (issue 56 breaker): one rule, every command."""
    variant = "disan:attention_imp=naive"
    argv = ["tune", "--study", "dropout", "--task", "trec", "--encoder", variant,
            "--data-dir", str(trec_dir), "--out", str(tmp_path / "s")]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"--encoder {variant}: disan takes no option attention_imp (did you mean " in err
    assert not (tmp_path / "s").exists()


def test_a_task_file_not_named_yaml_is_named_without_asking_for_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 56 breaker: ``tune --task mine.txt`` (no --data-dir) said only "pass --data-dir"."""
    (tmp_path / "mine.txt").write_text("name: mine\n")
    argv = ["tune", "--study", "dropout", "--task", str(tmp_path / "mine.txt"), "--encoder",
            "multi_cnn", "--out", str(tmp_path / "s")]  # fmt: skip
    assert main(argv) == 2
    lines = problem_lines(capsys.readouterr().err, "tune")
    assert len(lines) == 1 and "a task file's name ends in .yaml or .yml" in lines[0], lines


def test_a_trial_leaves_the_no_embeddings_warning_to_the_study(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 56 breaker: ``tune`` without --embeddings gave the warning once per trial (and once
    for its input check): the study's check says it once; a trial says nothing."""
    import warnings

    import harness.training.fit
    from datamodules.datamodule import RANDOM_VECTORS, RandomVectorsWarning
    from harness.studies.fitting import fit_trial

    def fit_without_vectors(*args: object, **kwargs: object) -> dict:
        warnings.warn(RandomVectorsWarning(RANDOM_VECTORS), stacklevel=1)
        return {}

    monkeypatch.setattr(harness.training.fit, "run_fit", fit_without_vectors)
    ctx = TuneContext(study="dropout", task="trec", encoder="multi_cnn", data_dir=tmp_path,
                      embeddings=None, out=tmp_path / "s")  # fmt: skip
    trial = optuna.create_study().ask()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        fit_trial(ctx, trial, {})
    assert [w for w in seen if issubclass(w.category, RandomVectorsWarning)] == []


def test_a_file_as_data_dir_is_called_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 56 breaker: ``--data-dir SOMEFILE`` said "no such folder"."""
    (tmp_path / "afile").write_text("x\n")
    argv = ["tune", "--study", "dropout", "--task", "trec", "--encoder", "multi_cnn",
            "--data-dir", str(tmp_path / "afile"), "--out", str(tmp_path / "s")]  # fmt: skip
    assert main(argv) == 2
    lines = files_lines(capsys.readouterr().err)  # no pointer to the help (fixer 5a item 2)
    said = f"--data-dir {tmp_path / 'afile'}: is a file, expected a folder"
    assert lines == [f"sanbench tune: {said}"]


def test_a_batch_above_the_most_is_refused_before_any_trial(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 56 (H17.1): ``--study block-length-memory --batch-size 2000000`` ran a trial, exit 1
    with optuna's line, and left the study folder; fit, profile and predict refuse it."""
    argv = ["tune", "--study", "block-length-memory", "--batch-size", "2000000",
            "--out", str(tmp_path / "s")]  # fmt: skip
    assert main(argv) == 2
    lines = problem_lines(capsys.readouterr().err, "tune")
    assert lines == [
        "sanbench tune: --batch-size 2000000: a batch holds at most 1,000,000 sentences "
        "(more than any benchmark's split)"
    ]
    assert not (tmp_path / "s").exists()


def test_a_training_studys_printed_config_holds_no_other_studys_options(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Outside check b56c of #56, item 11: the dropout study's ``--print_config`` carried
    block-length-memory's lengths, batch size, dim, device and attention_impl; one given is
    kept (the study's settings record it), and block-length-memory prints them all."""
    blm_only = {"lengths", "batch_size", "dim", "device", "attention_impl"}
    words = ["tune", "--study", "dropout", "--task", "trec", "--encoder", "mtsa"]
    assert main([*words, "--print_config"]) == 0
    assert not blm_only & set(yaml.safe_load(capsys.readouterr().out))
    assert main([*words, "--dim", "16", "--print_config"]) == 0
    assert yaml.safe_load(capsys.readouterr().out)["dim"] == 16
    assert main(["tune", "--study", "block-length-memory", "--print_config"]) == 0
    assert blm_only <= set(yaml.safe_load(capsys.readouterr().out))


def test_tune_refuses_before_its_out_what_its_study_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 54 leftovers (item 7): the command's check before ``--out`` is made repeated the
    study's own (budget, launcher, storage URL) in its own lines; one place now, so the lines
    are the same, every problem at once."""
    from harness.errors import UsageError
    from harness.studies import run_tune
    from harness.studies.command import unread_problems
    from harness.training.settings.fit_overrides import Budget

    options = StudyOptions(
        study="dropout", task="trec", encoder="multi_cnn", out=str(tmp_path / "o"),
        budget=Budget(max_epochs=0),
    )  # fmt: skip
    monkeypatch.setenv("SANBENCH_STORAGE", "x")  # set after StudyOptions' own check, as a job's
    early = unread_problems(options)
    with pytest.raises(UsageError) as refused:
        run_tune(options)
    assert len(early) == 3 and str(refused.value).splitlines() == early  # the trials' too
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("storage", "said"),
    [
        ("bogus://x", "--storage bogus://x: unknown database 'bogus'; expected an SQLAlchemy "
         "URL (sqlite:///runs/s.db, postgresql://user:***@host/db)"),
        ("sqlite:////proc/x/s.db",
         "--storage sqlite:////proc/x/s.db: /proc/x: cannot be made, folder /proc is not writable"),
        *[(f"sqlite:///{name}", f"--storage sqlite:///{name}: {name} is not an SQLite database, "
           "and sanbench never overwrites a file it did not make; give another file")
          for name in ("one.db", "empty.db", "text.db")],
        *[(f"sqlite:///{name}", f"--storage sqlite:///{name}: {name} is a folder; give a file in "
           f"it (sqlite:///{name}/s.db)") for name in ("dd", ".")],
        *[(url, f"--storage {url}: an in-memory database is gone with the run: no later command "
           "can continue or show its study; give a file (sqlite:///runs/s.db) or a server")
          for url in ("sqlite://", "sqlite:///", "sqlite:///:memory:")],
        ("postgresql://u:pw@[bad/db", "--storage postgresql://u:***@[bad/db: host '[bad' is not "
         f"a host name or an IP address; expected {EXPECTED}"),
        ("postgresql://u:pw@h:99999/db", "--storage postgresql://u:***@h:99999/db: port 99999 "
         f"is not a port (1 to 65535); expected {EXPECTED}"),
        ("sqlite:/x.db", f"--storage sqlite:/x.db: expected {EXPECTED}, got a value without "
         "'://'"),
        ("u:pw@h/db", f"--storage u:***@h/db: expected {EXPECTED}, got a value without '://'"),
        *[(url, f"--storage {url}: SQLite's URI form names no file sanbench can check; give a "
           "plain sqlite:///PATH") for url in ("sqlite:///file:empty.db?uri=true",
                                               "sqlite:///file:text.db?uri=true",
                                               "sqlite:///file::memory:?uri=true",
                                               "sqlite:///file:new.db?mode=rwc&uri=true")],
        ("postgresql://bob@h:99999/db?password=s3cret", "--storage postgresql://bob@h:99999/db?"
         f"password=***: port 99999 is not a port (1 to 65535); expected {EXPECTED}"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("printed", [True, False])
@pytest.mark.parametrize("from_env", [False, True])
def test_a_storage_no_run_takes_is_refused_by_print_config_beside_the_rest(
    storage: str,
    said: str,
    printed: bool,
    from_env: bool,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 56 (outside check at 9564b86, item 1): ``--print_config`` printed a ``--storage
    bogus://x`` the run refuses, and beside ``--trials 0`` both lost the storage's line; an
    SQLite file in a folder that cannot be made was refused by no check (the run failed on
    ``[Errno 2]`` once the data was read). Each is one line now, beside ``--trials 0``.
    Issue 56 (outside check at d61d8b2): a file sanbench did not make (one byte, empty, text)
    was overwritten or failed as an internal error leaving its ``.lock``; an in-memory study
    (no later command can show it), a folder, a malformed host or port were taken by
    ``--print_config`` (the run: internal errors); ``$SANBENCH_STORAGE`` was judged by the run
    alone, named ``--storage``, and not beside ``--trials 0``. Nothing is changed or made.
    Issue 56: SQLite's URI form (``sqlite:///file:notes.txt?uri=true``) passed every check and
    overwrote the file; a query string's ``password=`` was shown."""
    monkeypatch.chdir(tmp_path)
    contents = {"one.db": b"x", "empty.db": b"", "text.db": b"hello"}
    for name, content in contents.items():
        (tmp_path / name).write_bytes(content)
    (tmp_path / "dd").mkdir()
    if from_env:
        monkeypatch.setenv("SANBENCH_STORAGE", storage)
        said = said.replace("--storage ", "$SANBENCH_STORAGE ", 1)
    words = ["tune", "--study", "dropout", "--task", "trec", "--encoder", "multi_cnn",
             *([] if from_env else ["--storage", storage]), "--data-dir", str(DATA)]  # fmt: skip
    words += ["--print_config"] if printed else ["--out", str(tmp_path / "t")]
    assert main([*words, "--trials", "0"]) == 2
    lines = problem_lines(capsys.readouterr().err, "tune")
    assert lines == [
        "sanbench tune: --trials 0: expected a positive integer",
        f"sanbench tune: {said}",
    ]
    assert main(words) == 2
    assert problem_lines(capsys.readouterr().err, "tune") == [f"sanbench tune: {said}"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dd", *sorted(contents)]
    assert {name: (tmp_path / name).read_bytes() for name in contents} == contents
    assert not any((tmp_path / "dd").iterdir())


@pytest.mark.parametrize(
    ("storage", "module", "said"),
    [
        ("postgresql://u:pw@h/db", "psycopg", "--storage postgresql://u:***@h/db: its driver is "
         "not installed (import of psycopg halted; None in sys.modules): pip install "
         "'sanbench[postgres]'"),
        ("mysql://u:pw@h/db", "MySQLdb", "--storage mysql://u:***@h/db: its driver is not "
         "installed (import of MySQLdb halted; None in sys.modules): pip install mysqlclient"),
    ],
)  # fmt: skip
def test_a_storage_driver_not_installed_is_refused_by_the_run_with_its_pip_line(
    storage: str,
    module: str,
    said: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 56 (outside check at d61d8b2): a driver not installed was an internal error (rc 1,
    ``ModuleNotFoundError``), not the pip line docs/studies.md gives; the run says it before
    any file is read, connecting to nothing. ``--print_config`` leaves the driver to the
    machine that runs the study (docs/studies.md)."""
    monkeypatch.setitem(sys.modules, module, None)  # not installed
    words = ["tune", "--study", "dropout", "--task", "trec", "--encoder", "multi_cnn",
             "--storage", storage, "--data-dir", str(DATA)]  # fmt: skip
    assert main([*words, "--out", str(tmp_path / "t")]) == 2
    assert problem_lines(capsys.readouterr().err, "tune") == [f"sanbench tune: {said}"]
    assert not (tmp_path / "t").exists()
    assert main([*words, "--print_config"]) == 0


@pytest.mark.parametrize("from_file", [False, True])
def test_an_encoder_without_block_len_is_refused_as_typed_before_any_file_is_read(
    from_file: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 56 (outside check at 9564b86, item 2): ``--study block-length --encoder mtsa`` read
    the data and warned of it, then refused "encoder 'mtsa' has none", not named as typed."""
    config = tmp_path / "c.yaml"
    config.write_text("study: block-length\ntask: trec\nencoder: mtsa\n")
    words = ["tune", "--config", str(config)] if from_file else [
        "tune", "--study", "block-length", "--task", "trec", "--encoder", "mtsa"]  # fmt: skip
    words += ["--data-dir", str(DATA), "--out", str(tmp_path / "t"), "--max-steps", "1"]
    assert main(words) == 2
    err = capsys.readouterr().err
    named = f"--config {config}: encoder mtsa" if from_file else "--encoder mtsa"
    said = f"sanbench tune: {named}: has no block_len, which study 'block-length' tunes"
    assert problem_lines(err, "tune") == [said]  # no data warning before it
    assert not (tmp_path / "t").exists()


def test_an_empty_sqlite_file_beside_its_lock_is_a_workers_in_the_making(tmp_path: Path) -> None:
    """Issue 56 (outside check at d61d8b2): a file sanbench did not make is refused, an empty
    one too; an empty one beside its ``.lock`` is one a worker started at the same moment is
    making (the lock is made first): taken, not refused."""
    from harness.studies.storage import storage_problems

    (tmp_path / "s.db").write_bytes(b"")
    assert storage_problems(f"sqlite:///{tmp_path / 's.db'}")
    (tmp_path / "s.db.lock").write_bytes(b"")
    assert storage_problems(f"sqlite:///{tmp_path / 's.db'}") == []
