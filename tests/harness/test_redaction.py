"""The command a results folder records (``harness.redaction.recorded_command``): it runs as
printed, a ``--config`` file given included."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from harness.cli import main
from harness.redaction import config_read, recorded_command
from reports.site.training_page import config_rerun


def test_a_command_that_read_a_config_file_records_the_resolved_one_beside_its_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    saved = Path("out/suite-config-1-of-1.yaml")
    words = ["--import", "mine", "suite", "--config", "s.yaml", "--import=theirs", "--seeds", "2"]
    given = "seeds: 2\nstorage: postgresql://u:secret@h/db\nout: out\ndata: {data_dir: d}\n"
    with config_read(given):
        command = recorded_command(words, config_file=saved)
    assert (
        command == f"cd {tmp_path} && sanbench --import mine suite --import=theirs --config {saved}"
    )
    # run by itself from another folder, the copy resumes this out on the same files (outside
    # check b56c of #56, item 1)
    assert yaml.safe_load(saved.read_text()) == {
        "seeds": 2,
        "storage": "postgresql://u:***@h/db",
        "out": str(tmp_path / "out"),
        "data": {"data_dir": str(tmp_path / "d")},
    }
    # a study's SQLite file and a sweep's resume too: the copy run from elsewhere went on with
    # a new study beside it, a finished sweep's copy was refused ("pass --resume"; b56d)
    with config_read("storage: sqlite:///runs/t1.db\nresume: false\nout: o\n"):
        recorded_command(["tune", "--config", "t.yaml"], config_file=saved)
    assert yaml.safe_load(saved.read_text()) == {
        "storage": f"sqlite:///{tmp_path}/runs/t1.db",
        "resume": True,
        "out": str(tmp_path / "o"),
    }
    unread = recorded_command(words, config_file=tmp_path / "none.yaml")
    assert unread == f"cd {tmp_path} && sanbench {' '.join(words)}"
    assert not (tmp_path / "none.yaml").exists()  # no --config read: the words as given


@pytest.mark.slow  # trains one run
def test_a_suite_from_a_config_file_records_a_command_that_runs_where_the_file_is_gone(
    trec_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside check of #56, item 8: after ``suite --config s4.yaml`` the page showed ``sanbench
    suite --config s4.yaml``, said it 'runs as written', and the file was not saved with the
    run: from another folder, '--config s4.yaml: No such file or directory'."""
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "s4.yaml"
    config.write_text(
        f"tasks: trec\nencoders: multi_cnn\nseeds: 1\nmax_steps: 2\nout: runs/s4\n"
        f"data_dir: {trec_dir}\nmodel: {{hidden_dim: 4}}\n"
    )
    words = ["suite", "--config", str(config), "--model.dropout", "0.3"]
    monkeypatch.setattr("sys.argv", ["sanbench", *words])
    assert main(words) == 0
    config.unlink()
    recorded = json.loads((tmp_path / "runs/s4/manifest.json").read_text())["command"]
    # the file's out: runs/s4, read beside it (docs/training.md), is named by its absolute path
    copy = tmp_path / "runs/s4/suite-config-1-of-1.yaml"
    assert recorded == f"cd {tmp_path} && sanbench suite --config {copy}"
    saved = yaml.safe_load((tmp_path / "runs/s4/suite-config-1-of-1.yaml").read_text())
    assert saved["model"] == {"hidden_dim": 4, "dropout": 0.3} and saved["seeds"] == 1
    assert main(recorded.split()[4:]) == 0  # as printed: finished, nothing trained again


def _ran_elsewhere(command: str, folder: Path) -> str:
    """What ``command`` (a shell line, as a page prints it) prints run from ``folder`` by the
    shell; it must exit 0."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"  # this sanbench
    done = subprocess.run(
        ["bash", "-c", command], cwd=folder, env={**os.environ, "PATH": path},
        capture_output=True, text=True, check=False, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, (command, done.stdout[-2000:], done.stderr[-2000:])
    return done.stdout + done.stderr


@pytest.mark.slow  # four commands in process, five processes: about 60 CPU-s
def test_every_recorded_command_runs_from_any_folder_on_the_run_it_made(
    trec_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside check b56c of #56, item 1: the command a page shows as 'runs as written' ran
    only from the folder it was made in: from another one ``sanbench suite --config
    runs/s1/suite-config-1-of-1.yaml`` said No such file (tune's alike, and its 'train the best
    configuration' line), fit named the config file given and kept no copy, and the copy run
    from the folder above trained the whole grid again there. Here every config names its
    files relative to its own folder (as a config file's paths are read: docs/training.md), the
    runs going to the folder the command ran in, and each given file is gone before the
    recorded commands run, by the shell, from another folder. fit records the command as typed
    (check 56i item 10); the line of its folder's config copy, which its page prints, runs."""
    made, elsewhere, given = tmp_path / "made", tmp_path / "elsewhere", tmp_path / "given"
    for folder in (made, elsewhere, given):
        folder.mkdir()
    data = os.path.relpath(trec_dir, given)
    configs = {
        "suite": f"tasks: trec\nencoders: multi_cnn\nseeds: 1\nmax_steps: 2\n"
        f"out: ../made/runs/s\ndata_dir: {data}\nmodel: {{hidden_dim: 4}}\n",
        "tune": f"study: dropout\ntask: trec\nencoder: multi_cnn\ntrials: 1\nmax_steps: 2\n"
        f"out: ../made/runs/t\ndata_dir: {data}\nmodel: {{hidden_dim: 4}}\n",
        "fit": f"out: ../made/runs/f\ndata: {{task: trec, data_dir: {data}}}\n"
        "model: {encoder: multi_cnn, hidden_dim: 4}\ntrainer: {max_steps: 2}\n",
        "profile": "encoders: bilstm\npredict_only: true\npredict_lengths: 16,32\nmodes: infer\n"
        "report: false\nprogress: false\nout: ../made/runs/p\ndim: 16\n",
    }
    monkeypatch.chdir(made)
    for command, text in configs.items():
        (given / f"{command}.yaml").write_text(text)
        words = [command, "--config", f"../given/{command}.yaml"]
        monkeypatch.setattr("sys.argv", ["sanbench", *words])
        assert main(words) == 0, command
    shutil.rmtree(given)
    recorded = {
        name: json.loads((made / "runs" / name / "manifest.json").read_text())["command"]
        for name in "stfp"
    }
    assert all(line.startswith(f"cd {made} && sanbench ") for line in recorded.values())
    assert recorded["f"].endswith("sanbench fit --config ../given/fit.yaml")  # as typed
    copy, _ = config_rerun(made / "runs/f", str(made / "runs/f"))  # its page's: no cd needed
    assert not copy.startswith("cd ")
    said = _ran_elsewhere(recorded["s"], elsewhere)
    assert "0 ran, 1 already done" in said
    said = _ran_elsewhere(recorded["t"], elsewhere)
    assert "continuing, 1 trials already finished" in said
    said = _ran_elsewhere(copy, elsewhere)
    assert "already finished with this configuration, nothing trained" in said
    said = _ran_elsewhere(f"{recorded['p']} --resume", elsewhere)  # a sweep adds its points so
    assert f"-> {made / 'runs/p/profile.csv'}" in said
    best = json.loads((made / "runs/t/summary.json").read_text())["fit_command"]
    assert best.startswith(f"cd {made} && sanbench fit --config ")  # the rerun's: out absolute
    assert best.endswith("runs/t/best_config.yaml --out runs/fit/t-best")
    _ran_elsewhere(best, elsewhere)  # trains the best trial's configuration where it says
    assert (made / "runs/fit").is_dir()
    # the suite's copy run by itself from the folder above resumes the suite, not a new one
    said = _ran_elsewhere("sanbench suite --config made/runs/s/suite-config-1-of-1.yaml", tmp_path)
    assert "0 ran, 1 already done" in said
    assert not any(elsewhere.iterdir()) and sorted(p.name for p in tmp_path.iterdir()) == [
        "elsewhere", "made"
    ]  # fmt: skip


def test_every_printed_hint_runs_from_any_folder_and_names_absolute_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Leftovers of #56, item 3: fit's ``resume with: sanbench fit ... --out runs/f1``, a
    suite's ``tables: runs/s1/tables/tables.md (HTML: sanbench report runs/s1 ...)``,
    reproduce's ``tables: runs/r1/reproduction/reproduction.md`` and tune's ``outputs:
    runs/t1`` were relative: from another folder they named nothing. Now each command is
    ``cd /abs && sanbench ...`` and each path absolute."""
    from argparse import Namespace

    from harness.redaction import resume_command
    from harness.report.options import report_command
    from harness.studies.tune import print_summary

    monkeypatch.chdir(tmp_path)
    words = ["fit", "--task", "trec", "--out", "runs/f 1", "--overwrite"]
    assert resume_command(words) == f"cd {tmp_path} && sanbench fit --task trec --out 'runs/f 1'"
    stored = ["tune", "--storage", "postgresql://u:pw@h/db"]
    assert resume_command(stored).splitlines() == [
        f"cd {tmp_path} && sanbench tune --storage postgresql://u:***@h/db",
        "(*** is the password you gave: type it again, or set SANBENCH_STORAGE)",
    ]
    assert report_command([Path("runs/s1")], Path("runs/s1/report")) == (
        f"cd {tmp_path} && sanbench report runs/s1 --out runs/s1/report"
    )
    summary = {"optuna_study": "s", "fit_command": ""}
    print_summary(summary, Namespace(out=Path("runs/t1")))  # type: ignore[arg-type]
    assert capsys.readouterr().out.splitlines()[-1] == f"outputs: {tmp_path / 'runs/t1'}"
    monkeypatch.setattr(
        "harness.reproduce.command.run_reproduce", lambda options: Path("runs/r1/x.md")
    )
    # its --out taken by the command (out_folder: none here); no data folder judged
    built = Namespace(out=None, tables_only=True)
    monkeypatch.setattr("harness.reproduce.command.build", lambda cls, config, **kwargs: built)
    monkeypatch.setattr("harness.reproduce.command.run_problems", lambda options: [])
    from harness.reproduce.command import reproduce

    assert reproduce(Namespace()) == 0
    assert capsys.readouterr().out == f"tables: {tmp_path / 'runs/r1/x.md'}\n"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://bob@localhost/db?password=s3cret", "postgresql://bob@localhost/db?password=***"),
        ("postgresql://bob@h/db?sslmode=require&password=s3cret&connect_timeout=5",
         "postgresql://bob@h/db?sslmode=require&password=***&connect_timeout=5"),
        ("postgresql://bob:pw@h/db?password=s3cret", "postgresql://bob:***@h/db?password=***"),
    ],
)  # fmt: skip
def test_a_password_in_a_urls_query_string_is_hidden_as_the_userinfos(
    url: str, shown: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 56: ``--storage "postgresql://bob@localhost/db?password=s3cret" --print_config``
    printed the password (``storage: ...?password=s3cret``), and so did the run's refusal. A
    query string's ``password=`` is hidden by :func:`redact_passwords`, as the userinfo's is:
    in printed configs and recorded command lines."""
    from harness.redaction import redact_passwords

    assert redact_passwords(f"x {url} y") == f"x {shown} y"
    assert recorded_command(["tune", "--storage", url]).endswith(f"--storage '{shown}'")
    words = ["tune", "--study", "dropout", "--task", "trec", "--encoder", "multi_cnn"]
    assert main([*words, "--storage", url, "--out", str(tmp_path / "t"), "--print_config"]) == 0
    printed = capsys.readouterr()
    assert f"storage: {shown}" in printed.out and "s3cret" not in printed.out + printed.err
