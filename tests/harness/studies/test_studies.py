"""Studies: Appendix A's block length, the memory study end to end, outputs, fit commands."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import optuna
import pytest
import yaml

from encoders.layers.block_length import appendix_a_r, expected_max_length, memory_optimal_r
from harness.cli import main
from harness.studies.block_length_memory import compare, eq19_cost
from harness.studies.dropout import supports_attention_dropout
from harness.studies.fitting import best_fit_run
from harness.studies.plans import TuneContext
from harness.studies.storage import dashboard_command, open_storage


def test_eq19_minimises_the_continuous_cost() -> None:
    for n in (8, 64, 300):
        r = memory_optimal_r(n)
        cost = lambda x, n=n: x * x * (n / x) + (n / x) ** 2  # noqa: E731
        assert cost(r) < cost(r * 0.95) and cost(r) < cost(r * 1.05)
    assert memory_optimal_r(32) == pytest.approx(4.0)


def test_appendix_a_formula() -> None:
    # mu = 20, sigma = 5, B = 64: E[max] <= 5 * sqrt(2 ln 64) + 20
    bound = 5 * math.sqrt(2 * math.log(64)) + 20
    assert expected_max_length(20, 5, 64) == pytest.approx(bound)
    assert appendix_a_r(20, 5, 64) == pytest.approx((2 * bound) ** (1 / 3))
    assert appendix_a_r(4, 0, 1) == pytest.approx(2.0)  # sigma = 0 or B = 1: r = cbrt(2 mu)
    with pytest.raises(ValueError, match="batch_size"):
        appendix_a_r(10, 1, 0)


def test_compare_finds_the_measured_minimum() -> None:
    trials = [
        optuna.trial.create_trial(
            params={"seq_len": 64, "block_len": r},
            distributions={
                "seq_len": optuna.distributions.CategoricalDistribution([64]),
                "block_len": optuna.distributions.IntDistribution(2, 32),
            },
            value=float(eq19_cost(64, r)),
        )
        for r in range(2, 9)
    ]
    (row,) = compare(trials)
    assert row["r_measured"] == row["r_eq19_int_cost"] == 5  # cost 5^2 * 13 + 13^2 is least
    assert row["r_encoder"] == 6 and row["excess_at_r_encoder"] > 0  # ceil(cbrt(128)) = 6
    assert row["points"] == 7


@pytest.mark.slow
def test_memory_study_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    storage, out = f"sqlite:///{tmp_path / 's.db'}", tmp_path / "study"
    argv = ["tune", "--study", "block-length-memory", "--lengths", "4,8", "--batch-size", "2"]
    argv += ["--dim", "8", "--trials", "6", "--storage", storage, "--out", str(out)]
    assert main(argv) == 0
    for name in ("trials.csv", "summary.json", "manifest.json"):
        assert (out / name).stat().st_size > 0, name
    # optuna's figures pool every n, whose trials are not compared: none drawn, and said why
    assert not list(out.glob("*.png"))
    assert json.loads((out / "summary.json").read_text())["figures_not_drawn"]
    assert not list(out.glob("*.html"))  # HTML is rendered by `sanbench report`
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kind"] == "study" and manifest["trial_counts"] == {"complete": 6}
    assert manifest["trials_csv_rows"] == 6
    summary = json.loads((out / "summary.json").read_text())
    rows = summary["results"]["per_length"]
    assert sum(row["points"] for row in rows) == 6
    assert all(row["mem_measured_mb"] > 0 for row in rows)
    # a second worker on the same storage finds the budget met and only rewrites the outputs
    capsys.readouterr()
    assert main(argv) == 0
    assert "continuing, 6 trials already finished" in capsys.readouterr().out
    study = optuna.load_study(study_name=summary["optuna_study"], storage=open_storage(storage))
    assert len(study.trials) == 6
    # the same study with other settings would mix incomparable trials: refused, naming them
    # (this study's default name holds its settings; a training study's does not: dropout-trec-mtsa)
    other = [word if word != "2" else "3" for word in argv]  # --batch-size 3
    joined = ["--study-name", summary["optuna_study"], "--out", str(tmp_path / "other")]
    assert main([*other[:-2], *joined]) == 2
    error = capsys.readouterr().err
    assert "exists with other settings" in error and "batch_size: 2 in the study, 3 now" in error
    assert not (tmp_path / "other").exists()
    assert len(optuna.load_study(study_name=study.study_name, storage=storage).trials) == 6


@pytest.mark.slow
def test_best_trial_is_a_config_fit_runs_and_dashboard(tmp_path: Path) -> None:
    ctx = TuneContext(
        study="block-length",
        task="trec",
        encoder="bi_blosan",
        data_dir=Path("data"),
        embeddings=None,
        out=Path("o"),
        overrides={"trainer.max_steps": 50},
    )
    run = best_fit_run(ctx, {"model.encoder_options": {"block_len": 7}, "model.dropout": 0.3})
    config_file = tmp_path / "best_config.yaml"
    config_file.write_text(run.to_yaml())
    from harness.training.settings.fit_cli import FitCLI

    again = FitCLI(["--config", str(config_file)]).config  # what `sanbench fit --config` trains
    assert (again.data.task, again.model.encoder, again.data.data_dir) == (
        "trec",
        "bi_blosan",
        str(Path("data").resolve()),  # absolute: the file runs from any folder (17aeffc)
    )
    assert again.trainer.max_steps == 50 and again.model.dropout == 0.3
    assert again.model.encoder_options == {"block_len": 7}
    assert yaml.safe_load(run.to_yaml()) == run.resolved()
    url = "postgresql://ann:secret@db.lab/studies"
    assert dashboard_command(url) == "optuna-dashboard postgresql+psycopg://ann:***@db.lab/studies"
    assert dashboard_command("sqlite:///s.db") == "optuna-dashboard sqlite:///s.db"


def test_attention_dropout_only_where_the_builder_has_it() -> None:
    assert supports_attention_dropout("mtsa")
    assert not supports_attention_dropout("bi_blosan")


def test_bad_storage_is_explained(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="SQLAlchemy URL"):
        open_storage(str(tmp_path / "plain-path.db"))
    with pytest.raises(ValueError, match="journal files are no longer supported"):
        open_storage(f"journal:{tmp_path / 'j.log'}")


@pytest.mark.slow
def test_memory_study_as_local_worker_jobs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--launcher local --jobs 2``: two submitit worker jobs share the budget, outputs here."""
    root = Path(__file__).resolve().parents[3]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]))
    storage, out = f"sqlite:///{tmp_path / 's.db'}", tmp_path / "study"
    argv = ["tune", "--study", "block-length-memory", "--lengths", "4,8", "--batch-size", "2"]
    argv += ["--dim", "8", "--trials", "6", "--storage", storage, "--out", str(out)]
    assert main([*argv, "--launcher", "local", "--jobs", "2"]) == 0
    assert capsys.readouterr().out.count(": done") == 2
    manifest = json.loads((out / "manifest.json").read_text())
    # racing workers may each open a trial past the budget: failed unrun, left out of trials.csv
    assert manifest["trial_counts"]["complete"] == 6 and manifest["trials_csv_rows"] == 6
    assert set(manifest["trial_counts"]) <= {"complete", "fail"}
    assert len(list((out / "jobs").glob("*_log.out"))) == 2  # one log per worker job


MEMORY_STUDY_ALONE = """
import sys
from harness.cli import main
argv = ["tune", "--study", "block-length-memory", "--lengths", "4,8", "--batch-size", "2"]
argv += ["--dim", "8", "--trials", "2", "--storage", sys.argv[1], "--out", sys.argv[2]]
status = main(argv)
print(status, sorted(m for m in sys.modules if m.split(".")[0] == "lightning")[:3])
"""


@pytest.mark.slow  # a fresh interpreter: this test process has imported Lightning
def test_a_memory_study_never_imports_lightning(tmp_path: Path) -> None:
    """A block-length-memory study trains nothing, so neither it nor its worker jobs pay
    Lightning's import (9.4 s of CPU alone on the CI machine); they did, through the dropout
    study's pruning callback, imported with the registry of studies."""
    root = Path(__file__).resolve().parents[3]
    storage, out = f"sqlite:///{tmp_path / 's.db'}", str(tmp_path / "study")
    command = [sys.executable, "-c", MEMORY_STUDY_ALONE, storage, out]
    done = subprocess.run(command, capture_output=True, text=True, cwd=root, timeout=300)
    assert done.stdout.splitlines()[-1] == "0 []", done.stdout + done.stderr


@pytest.mark.slow
def test_outputs_write_the_best_trial_as_a_fit_config(tmp_path: Path) -> None:
    from harness.studies.outputs import write_outputs
    from harness.studies.plans import StudyPlan
    from reports.contracts.study import BEST_CONFIG

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize")
    for dropout in (0.1, 0.4, 0.2):  # the objective peaks at 0.4
        study.enqueue_trial({"dropout": dropout})
    plan = StudyPlan(
        name="toy",
        metric_names=["dev_acc"],
        directions=["maximize"],
        objective=lambda trial: -abs(trial.suggest_float("dropout", 0.0, 0.9) - 0.4),
        default_trials=3,
        fit_overrides=lambda trial: {"model.dropout": trial.params["dropout"]},
    )
    study.optimize(plan.objective, n_trials=3)
    ctx = TuneContext(
        study="toy",
        task="trec",
        encoder="mtsa",
        data_dir=Path("data"),
        embeddings=None,
        out=tmp_path,
        overrides={"trainer.max_epochs": 3},
    )
    summary = write_outputs(
        study, plan, tmp_path, "memory", "none", lambda overrides: best_fit_run(ctx, overrides), {}
    )
    config = yaml.safe_load((tmp_path / BEST_CONFIG).read_text())
    assert (config["data"]["task"], config["model"]["encoder"]) == ("trec", "mtsa")
    assert config["model"]["dropout"] == 0.4
    assert config["trainer"]["max_epochs"] == 3 and config["data"]["batch_size"] == 32
    fit_command = f"sanbench fit --config {tmp_path / BEST_CONFIG}"
    assert summary["fit_command"].startswith(f"cd {Path.cwd()} && {fit_command}")
    assert summary["fit_config"] == BEST_CONFIG


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--encoder", "nope", "--data-dir", "{here}"], "--encoder nope: expected one of"),
        (["--encoder", "mtsa", "--data-dir", "{absent}"], "no such folder"),
        (["--encoder", "mtsa"], "--data-dir is required unless --outputs-only"),
        (["--encoder", "mtsa", "--data-dir", "{here}", "--task", "nope"], "--task nope: expected"),
    ],
)
def test_training_studies_check_arguments_before_any_trial(
    tmp_path: Path, capsys: pytest.CaptureFixture, extra: list[str], message: str
) -> None:
    names = {"absent": str(tmp_path / "absent"), "here": str(tmp_path)}
    out = tmp_path / "study"
    argv = ["tune", "--study", "dropout", "--task", "trec", "--out", str(out)]
    assert main(argv + [part.format(**names) for part in extra]) == 2
    assert message in capsys.readouterr().err and not out.exists()  # errors on stderr
    assert main([*argv, "--encoder", "mtsa", "--max-steps", "0"]) == 2
    assert "--max-steps 0: trains nothing" in capsys.readouterr().err


def test_workers_finishing_together_each_write_whole_output_files(tmp_path: Path) -> None:
    """Two workers of a study write its outputs at once (``--jobs 2`` failed with one
    FileNotFoundError when both renamed the same temporary file)."""
    from concurrent.futures import ThreadPoolExecutor

    from reports.contracts.atomic import write_atomic

    path = tmp_path / "summary.json"

    def write(worker: int) -> None:
        for _ in range(50):
            write_atomic(path, lambda tmp: tmp.write_text(f"worker {worker}\n" * 1000))

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(write, range(4)))  # re-raises any worker's error
    assert path.read_text() in {f"worker {w}\n" * 1000 for w in range(4)}
    assert [p.name for p in tmp_path.iterdir()] == ["summary.json"]  # no temporary left


def test_a_training_study_refuses_another_budget_and_counts_what_it_has() -> None:
    """Issue 35: a re-run with another --max-epochs joined the study and mixed 154-step with
    5-step trials."""
    from harness.errors import InputError
    from harness.studies.plans import TuneContext
    from harness.studies.study import check_settings, study_settings

    def context(epochs: int) -> TuneContext:
        return TuneContext("dropout", "trec", "mtsa", Path("d"), None, Path("o"),
                           budget={"trainer.max_epochs": epochs})  # fmt: skip

    study = optuna.create_study(study_name="dropout-trec-mtsa")
    assert check_settings(study, study_settings(context(1))) == 0  # recorded
    study.add_trial(optuna.trial.create_trial(params={}, distributions={}, value=0.5))
    assert check_settings(study, study_settings(context(1))) == 1
    with pytest.raises(InputError, match=r"budget: \{'trainer.max_epochs': 1\} in the study"):
        check_settings(study, study_settings(context(5)))


def test_two_studies_winners_are_trained_into_two_folders() -> None:
    """Issue 35: the dropout and search studies of TREC/MTSA both named runs/fit/trec-mtsa-tuned,
    so the second winner's fit was refused."""
    from harness.studies.fitting import best_fit_run
    from harness.studies.plans import TuneContext

    outs = {
        best_fit_run(
            TuneContext(study, "trec", "mtsa", Path("d"), None, Path(f"runs/studies/{study}-x")), {}
        ).out_dir
        for study in ("dropout", "search")
    }
    assert outs == {Path("runs/fit/dropout-x-best"), Path("runs/fit/search-x-best")}


@pytest.mark.slow
def test_a_new_out_is_a_new_study_and_the_same_out_continues_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: every study without --storage shared runs/studies/optuna.db, so a second study
    with a new --out and another budget was refused as one that exists with other settings."""
    from harness.cli import main
    from harness.redaction import STORAGE_ENV

    monkeypatch.delenv(STORAGE_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    study = ["tune", "--study", "block-length-memory", "--lengths", "8,16", "--batch-size", "2"]
    study += ["--dim", "16"]

    def counts(out: str) -> dict[str, int]:
        return json.loads((tmp_path / out / "summary.json").read_text())["trial_counts"]

    assert main([*study, "--trials", "2", "--out", "first"]) == 0
    assert main([*study, "--trials", "3", "--out", "second"]) == 0
    assert counts("first") == {"complete": 2} and counts("second") == {"complete": 3}
    assert (tmp_path / "first" / "optuna.db").is_file() and not (tmp_path / "runs").exists()
    assert main([*study, "--trials", "3", "--out", "first"]) == 0  # continued: one trial more
    assert counts("first") == {"complete": 3}
