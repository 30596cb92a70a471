"""A study's database password is never written: not in its files, its report, its job files
or anything printed (``--storage`` URLs are redacted; ``SANBENCH_STORAGE`` supplies them)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from harness.cli import main
from harness.redaction import recorded_command, redact_passwords
from harness.studies.storage import STORAGE_ENV, storage_url

PASSWORD = "Pa55-w0rd-Xq7"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (f"postgresql://ann:{PASSWORD}@db.lab:5432/s", "postgresql://ann:***@db.lab:5432/s"),
        (f"mysql+pymysql://root:{PASSWORD}@h/db x", "mysql+pymysql://root:***@h/db x"),
        ("postgresql://ann@db.lab/s", "postgresql://ann@db.lab/s"),
        ("sqlite:///runs/studies/optuna.db", "sqlite:///runs/studies/optuna.db"),
    ],
)
def test_url_passwords_are_redacted(text: str, shown: str) -> None:
    assert redact_passwords(text) == shown


def test_recorded_commands_hide_the_password() -> None:
    argv = ["tune", "--storage", f"postgresql://ann:{PASSWORD}@db/s", "--trials", "3"]
    shown = "sanbench tune --storage postgresql://ann:***@db/s --trials 3"
    assert recorded_command(argv).partition(" && ")[2] == shown


def test_storage_errors_hide_the_password() -> None:
    with pytest.raises(ValueError) as caught:
        storage_url(f"postgresql//ann:{PASSWORD}@db/s")
    assert PASSWORD not in str(caught.value)


def test_the_storage_url_may_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STORAGE_ENV, f"postgresql://ann:{PASSWORD}@db/s")
    assert storage_url(None).password == PASSWORD
    assert storage_url("sqlite:///x.db").get_backend_name() == "sqlite"  # --storage wins


def test_everything_printed_during_a_command_is_redacted(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Our lines and a library's logger (Python's warnings write to ``sys.stderr`` as well)."""
    import logging

    from harness.redaction import redacted_console

    url = f"postgresql://ann:{PASSWORD}@db/s"
    logger = logging.getLogger("a.library")
    with redacted_console():
        handler = logging.StreamHandler()  # made inside, as a library's handler would be
        logger.addHandler(handler)
        try:
            print(f"resume with: sanbench tune --storage {url}")
            logger.warning("could not reach %s", url)
        finally:
            logger.removeHandler(handler)
    printed = capsys.readouterr()
    assert PASSWORD not in printed.out + printed.err
    assert printed.out.count(":***@") == 1 and printed.err.count(":***@") == 1


@pytest.mark.slow
@pytest.mark.postgres
def test_no_file_or_output_of_a_study_and_its_report_holds_the_password(
    postgres_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Today the manifest's command, the study page and the job pickles held it in clear."""
    root = Path(__file__).resolve().parents[3]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.delenv(STORAGE_ENV, raising=False)
    url = make_url(postgres_url).set(password=PASSWORD).render_as_string(hide_password=False)
    out, report = tmp_path / "study", tmp_path / "report"
    argv = ["tune", "--study", "block-length-memory", "--lengths", "4,8", "--batch-size", "2"]
    argv += ["--dim", "8", "--trials", "2", "--storage", url, "--out", str(out)]
    argv += ["--launcher", "local", "--jobs", "1"]
    monkeypatch.setattr(sys, "argv", ["sanbench", *argv])  # what recorded_command records
    assert main(argv) == 0
    assert STORAGE_ENV not in os.environ  # handed to the jobs only; the next command falls back
    assert main(["report", str(out), "--out", str(report)]) == 0
    written = [path for path in tmp_path.rglob("*") if path.is_file()]
    assert any(path.suffix == ".pkl" for path in written)  # the job files were scanned too
    assert any(path.suffix == ".html" for path in written)
    assert [path for path in written if PASSWORD.encode() in path.read_bytes()] == []
    printed = capsys.readouterr()
    assert PASSWORD not in printed.out + printed.err
    assert ":***@" in json.loads((out / "manifest.json").read_text())["command"]


@pytest.mark.slow  # two real tune processes
@pytest.mark.postgres
def test_ctrl_c_on_a_study_prints_no_password_nor_traceback_and_its_trial_is_resumed(
    postgres_url: str, trec_dir: Path, tmp_path: Path
) -> None:
    """Before: 48 lines of optuna's traceback, the password three times, the trial lost as
    failed."""
    import signal
    import subprocess

    import optuna

    from tests.harness.fixtures import warm_commands
    from tests.harness.training.callbacks.test_stop_on_signal import SANBENCH, _wait_for

    url = make_url(postgres_url).set(password=PASSWORD).render_as_string(hide_password=False)
    out = tmp_path / "study"
    words = [
        "tune", "--study", "dropout", "--task", "trec", "--encoder", "multi_cnn",
        "--data-dir", str(trec_dir), "--embeddings", str(trec_dir / "glove.txt"),
        "--trials", "2", "--max-epochs", "60", "--storage", url, "--out", str(out),
        "--model.hidden_dim", "4", "--model.head_hidden", "8",
    ]  # fmt: skip
    root = Path(__file__).resolve().parents[3]
    process = warm_commands.Popen(
        [*SANBENCH, *words], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=root
    )
    _wait_for(out / "trials" / "0000" / "checkpoints" / "last.ckpt", process)  # mid-trial
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 130, stderr
    assert PASSWORD not in stdout + stderr
    assert "Traceback" not in stderr and "optuna:" not in stderr, stderr
    assert ":***@" in stderr.split("resume with: ", 1)[1]
    study = optuna.load_study(study_name="dropout-trec-multi_cnn", storage=postgres_url)
    waiting = study.get_trials(states=(optuna.trial.TrialState.WAITING,))
    assert [trial.user_attrs["resumes"] for trial in waiting] == [0]
    done = warm_commands.run(
        [*SANBENCH, *words], capture_output=True, text=True, cwd=root, timeout=600
    )  # the resume command, with the password typed again
    assert done.returncode == 0, done.stderr
    assert "(continues interrupted trial 0)" in done.stdout
    assert PASSWORD not in done.stdout + done.stderr
    trials = {t.number: t for t in optuna.load_study(study_name=study.study_name,
                                                     storage=postgres_url).trials}  # fmt: skip
    assert trials[1].user_attrs["run_dir"] == str(out / "trials" / "0000")  # continued there,
    assert (out / "trials" / "0000" / "logs" / "version_1").is_dir()  # as a second start of it
    assert trials[0].user_attrs["interrupted"] and trials[1].state.name == "COMPLETE"
    assert json.loads((out / "summary.json").read_text())["trial_counts"] == {
        "interrupted": 1,
        "complete": 2,
    }
