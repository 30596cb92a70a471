"""``sanbench``: help and argument errors before heavy imports, --debug, exit status 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import main

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "lightning", "pandas", "matplotlib", "numpy", "optuna")
PROBE = """
import json, sys
from harness.cli import main
try:
    status = main(sys.argv[1:])
except SystemExit as stop:
    status = stop.code
print(json.dumps({"status": status, "loaded": sorted(m for m in HEAVY if m in sys.modules)}))
"""


def _probe(*argv: str) -> dict:
    """Exit status of ``sanbench ARGV`` in a fresh interpreter, and the heavy modules loaded."""
    code = f"HEAVY = {HEAVY!r}\n{PROBE}"
    done = subprocess.run(
        [sys.executable, "-c", code, *argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": ""},
        check=True,
    )
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.slow
@pytest.mark.parametrize(
    ("argv", "status"),
    [
        (["--help"], 0),
        (["data", "--help"], 0),
        (["data", "stats", "--help"], 0),
        (["data", "stats", "--task", "nope", "--data-dir", "."], 2),
        (["data", "stats", "--task", "trec", "--data-dir", "/no/such/dir"], 2),
        (["data", "stats", "--task", "trec", "--data-dir", ".", "--embeddings", "/no/x"], 2),
        (["report", "--help"], 0),
        (["report", "/no/such/run", "--out", "/tmp/never"], 2),
        (["encoders", "--help"], 0),
        (["encoders", "--input-dim", "0"], 2),
        (["encoders", "--input-dim", "-3"], 2),
    ],
)
def test_help_and_argument_errors_load_no_heavy_module(argv: list[str], status: int) -> None:
    assert _probe(*argv) == {"status": status, "loaded": []}


def test_an_input_error_is_one_message_and_status_2(tmp_path: Path, capsys) -> None:
    (tmp_path / "run").mkdir()  # a folder without manifest.json
    assert main(["report", str(tmp_path / "run"), "--out", str(tmp_path / "site")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sanbench report: ") and "Traceback" not in err
    assert not (tmp_path / "site").exists()


def test_debug_before_the_command_raises_the_error(tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    with pytest.raises((ValueError, FileNotFoundError)):
        main(["--debug", "report", str(tmp_path / "run"), "--out", str(tmp_path / "site")])


def test_fit_help_is_typed_with_the_tasks_defaults_and_the_papers_values(
    capsys: pytest.CaptureFixture,
) -> None:
    assert main(["fit", "--task", "trec", "--encoder", "disan", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert text.startswith("usage: sanbench fit ")
    assert "--model.dropout DROPOUT drop probability (keep 0.75 SNLI" in text
    assert "(type: ClosedUnitInterval, default: 0.4)" in text  # TREC's keep 0.6 (Bi-BloSAN §4.4)
    assert "training batch size (32 for classification, Bi-BloSAN §4.4" in text
    assert "(type: int, default: 16)" in text  # DiSAN's batch on TREC
    assert "--trainer.logger LOGGER" in text and "--run.early_stopping_patience" in text


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["encoders", "--input-dm", "3"], "unknown option --input-dm (did you mean --input-dim?)"),
        (["encodrs"], "unknown command encodrs (did you mean encoders?)"),
        (["tune", "--study", "dropuot"], "--study dropuot: expected one of "),
        (["tune", "--study", "dropuot"], "(did you mean dropout?)"),
        (
            ["profile", "--predict-onyl"],
            "unknown option --predict-onyl (did you mean --predict-only?)",
        ),
        (["profile", "--preset", "quik"], "(did you mean quick?)"),
        (["suite", "--out", "o", "--max-epochz", "3"], "(did you mean --max-epochs?)"),
    ],
)
def test_a_mistyped_option_or_choice_gets_a_did_you_mean(
    argv: list[str], hint: str, capsys: pytest.CaptureFixture
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert hint in err and "Traceback" not in err


PLUGIN = """
from encoders import register_encoder
from encoders.models.rnn import build_bilstm

@register_encoder("here_lstm", paper="a module in the current folder")
def build(input_dim: int = 300, hidden_dim: int = 150, dropout: float = 0.0):
    return build_bilstm(input_dim=input_dim, hidden_dim=hidden_dim, dropout=dropout)
"""


def _sanbench(cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "harness.cli", *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={"PYTHONPATH": str(ROOT), "PATH": ""},
        check=False,
    )


@pytest.mark.slow
def test_import_before_or_after_the_command_registers_a_module_of_the_current_folder(
    tmp_path: Path,
) -> None:
    (tmp_path / "here_plugin.py").write_text(PLUGIN)
    for argv in (["--import", "here_plugin", "encoders"], ["encoders", "--import=here_plugin"]):
        done = _sanbench(tmp_path, *argv, "--input-dim", "8")
        assert done.returncode == 0, done.stderr
        (row,) = [line for line in done.stdout.splitlines() if "here_lstm" in line]
        assert "module here_plugin" in row and "a module in the current folder" in row
    missing = _sanbench(tmp_path, "--import", "not_here", "encoders")
    assert missing.returncode == 2 and missing.stdout == ""
    assert missing.stderr.startswith("sanbench encoders: --import: ModuleNotFoundError")


def test_a_command_leaves_the_environment_as_it_found_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What ``--import`` puts in the environment for child processes lasts as long as the
    command: ``main`` is also the library entry of tests, jobs and nox."""
    (tmp_path / "env_plugin.py").write_text(PLUGIN.replace("here_lstm", "env_lstm"))
    monkeypatch.chdir(tmp_path)
    before = dict(os.environ)
    assert main(["--import", "env_plugin", "encoders", "--input-dim", "8"]) == 0
    assert dict(os.environ) == before


@pytest.mark.parametrize(
    ("extra", "hint"),
    [
        (["--encoder", "disan2"], "--encoder disan2: expected one of bi_blosan, "),
        (["--encoder", "disan2"], "(did you mean disan?)"),
        (
            ["--model.dropuot", "0.3"],
            "unknown option --model.dropuot (did you mean --model.dropout?)",
        ),
    ],
)
def test_fit_says_which_option_or_encoder_was_meant(
    tmp_path: Path, capsys: pytest.CaptureFixture, extra: list[str], hint: str
) -> None:
    argv = ["fit", "--task", "trec", "--encoder", "disan", "--data-dir", str(tmp_path), *extra]
    assert main([*argv, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert hint in err and "typing.Literal" not in err


def test_the_top_level_help_speaks_to_users(capsys: pytest.CaptureFixture) -> None:
    """Before: it opened with developer prose ("one subcommand per module, imported only when
    used")."""
    assert main(["--help"]) == 0
    text = capsys.readouterr().out
    assert "one subcommand per module" not in text and "imported only when" not in text
    assert "sanbench profile --preset quick" in text and "Bi-BloSAN" in text


def stopped_lines(word: str, words: list[str], saved: bool) -> list[str]:
    """What a stop before any run or job saved prints: the command that resumes when --out
    holds what an earlier run saved, else that nothing was saved (outside check A item 13)."""
    command = words[0]
    if not saved:
        return [f"sanbench {command}: {word}; nothing was saved"]
    return [f"sanbench {command}: {word}", f"sanbench {command}: resume with: cd {os.getcwd()} "
            f"&& sanbench {' '.join(words)}"]  # fmt: skip


def earlier_run(out: Path, saved: bool) -> None:
    """``out`` holding what an earlier run saved (a row), or no folder (a first start)."""
    if saved:
        out.mkdir()
        (out / "results-1-of-1.csv").write_text("task,encoder,replicate\n")


@pytest.mark.parametrize("saved", [True, False], ids=["a rerun", "a first start"])
def test_a_ctrl_c_before_any_run_saved_prints_the_command_that_resumes(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    saved: bool,
) -> None:
    """Issue 54 C2: a suite stopped before its jobs started said only "interrupted"."""
    import importlib

    def stopped_while_planning(config: object) -> int:
        raise KeyboardInterrupt

    words = ["suite", "--tasks", "trec", "--encoders", "multi_cnn", "--out", str(tmp_path / "s")]
    earlier_run(tmp_path / "s", saved)
    monkeypatch.setattr(
        importlib.import_module("harness.suite.command"), "suite", stopped_while_planning
    )
    monkeypatch.setattr(sys, "argv", ["sanbench", *words])
    assert main(words) == 130
    assert capsys.readouterr().err.splitlines() == stopped_lines("interrupted", words, saved)


@pytest.mark.parametrize("saved", [True, False], ids=["a rerun", "a first start"])
@pytest.mark.parametrize("command", ["suite", "fit"])
def test_a_sigterm_stops_a_command_as_a_ctrl_c_does_and_the_handler_is_put_back(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    saved: bool,
    command: str,
) -> None:
    """Issue 54: SIGTERM killed a suite silently (exit 143, nothing printed, its jobs left
    running); now it is an interrupt: exit 143 with the command that resumes. Outside check A
    item 13: a fit terminated during its start (7 s in) printed a "resume with" line for a
    folder never made; now "terminated; nothing was saved"."""
    import importlib
    import os
    import signal

    def terminated_while_planning(config: object) -> int:
        os.kill(os.getpid(), signal.SIGTERM)
        return 0

    out = str(tmp_path / "s")
    words = {
        "suite": ["suite", "--tasks", "trec", "--encoders", "multi_cnn", "--out", out],
        "fit": ["fit", "--task", "trec", "--encoder", "multi_cnn", "--out", out],
    }[command]
    earlier_run(tmp_path / "s", saved)
    module = {"suite": "harness.suite.command", "fit": "harness.training.command"}[command]
    monkeypatch.setattr(importlib.import_module(module), command, terminated_while_planning)
    monkeypatch.setattr(sys, "argv", ["sanbench", *words])
    unhandled: list[int] = []  # without sanbench's handler: noted here, not pytest's end

    def note(signum: int, frame: object) -> None:
        unhandled.append(signum)

    before = signal.signal(signal.SIGTERM, note)
    try:
        assert main(words) == 128 + signal.SIGTERM
        assert signal.getsignal(signal.SIGTERM) is note and not unhandled
    finally:
        signal.signal(signal.SIGTERM, before)
    assert capsys.readouterr().err.splitlines() == stopped_lines("terminated", words, saved)


def _stopped_as_it_starts(
    function: str, words: list[str], signum: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``main(words)`` whose command function (``module:name``) gets ``signum`` as it starts,
    before anything is saved; its status is the signal's (128 + ``signum``)."""
    import importlib
    import signal

    def stopped_while_starting(config: object) -> int:
        os.kill(os.getpid(), signum)  # sanbench's handler raises the signal's error
        for _ in range(100_000):  # the handler runs between these
            pass
        return 0

    module, _, name = function.partition(":")
    monkeypatch.setattr(importlib.import_module(module), name, stopped_while_starting)
    monkeypatch.setattr(sys, "argv", ["sanbench", *words])
    before = signal.signal(signal.SIGTERM, signal.SIG_IGN)  # sanbench's handler takes it
    try:
        assert main(words) == 128 + signum
    finally:
        signal.signal(signal.SIGTERM, before)


@pytest.mark.parametrize("signum", [2, 15], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize(
    "words",
    [["fit", "--bogus", "1"], ["fit", "--task", "trec", "--data-dir", "/nonexist"]],
    ids=["an unknown option", "no --out"],
)
def test_a_stop_of_a_command_given_no_out_says_nothing_was_saved(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    words: list[str],
    signum: int,
) -> None:
    """Outside check 14 item 2: a Ctrl-C 0.25-1 s into ``fit --bogus 1`` (its words not checked
    yet) printed ``resume with: ... sanbench fit --bogus 1``, a command refused, for no folder:
    with no --out nothing was saved, and the line says so."""
    _stopped_as_it_starts("harness.training.command:fit", words, signum, monkeypatch)
    word = "interrupted" if signum == 2 else "terminated"
    assert capsys.readouterr().err.splitlines() == [f"sanbench fit: {word}; nothing was saved"]


def test_a_ctrl_c_held_before_a_refusal_was_known_stops_the_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Outside check 14 item 3: a Ctrl-C 1 s into ``suite --bogus 1``, held while its modules
    loaded (12 s), was dropped for the refusal that followed (status 2), where ``tune --bogus
    1`` said ``interrupted``: the signal came first, and stops it as any command, status 130."""
    import signal

    from harness import cli
    from harness.errors import UsageError

    def refused_after_a_ctrl_c(name: str, words: list[str]) -> object:
        signal.raise_signal(signal.SIGINT)  # held: the words are checked on
        raise UsageError("unknown option --bogus (did you mean --out?)")

    monkeypatch.setattr(cli, "parse_command", refused_after_a_ctrl_c)
    assert main(["suite", "--bogus", "1"]) == 130
    said = ["sanbench suite: interrupted; nothing was saved"]  # refused: no folder to resume
    assert capsys.readouterr().err.splitlines() == said


@pytest.mark.parametrize("saved", [True, False], ids=["a rerun", "a first start"])
@pytest.mark.parametrize("command", ["suite", "reproduce", "fit"])
def test_a_ctrl_c_held_while_a_command_starts_says_what_was_saved(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: str,
    saved: bool,
) -> None:
    """Outside check at 9564b86 item 2: a Ctrl-C held while ``suite``, ``reproduce`` or
    ``fit`` started (its words checked) said a bare ``interrupted``, where one a moment later
    said ``interrupted; nothing was saved`` (or the command that resumes): the same line now."""
    import signal

    from harness import cli

    checked = cli.parse_command

    def a_ctrl_c_as_the_words_are_checked(name: str, words: list[str]) -> object:
        signal.raise_signal(signal.SIGINT)  # held: the words are checked on
        return checked(name, words)

    out = str(tmp_path / "s")
    words = {
        "suite": ["suite", "--tasks", "trec", "--encoders", "multi_cnn", "--out", out],
        "reproduce": ["reproduce", "--tasks", "trec", "--out", out],
        "fit": ["fit", "--task", "trec", "--encoder", "multi_cnn", "--out", out],
    }[command]
    earlier_run(tmp_path / "s", saved)
    monkeypatch.setattr(cli, "parse_command", a_ctrl_c_as_the_words_are_checked)
    monkeypatch.setattr(sys, "argv", ["sanbench", *words])
    assert main(words) == 130
    assert capsys.readouterr().err.splitlines() == stopped_lines("interrupted", words, saved)


def test_every_line_of_a_message_carries_the_commands_name(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Outside check of #54 part B: a message whose first line named a file's line printed no
    line with ``sanbench data stats:``, one whose first line named the file alone printed it
    on every line (the first line decided for all)."""
    rows = [{"text": f"w {i}", "label": ("pos", "neg")[i % 2]} for i in range(20)]
    rows[4]["label"] = ""
    (tmp_path / "all.jsonl").write_text("\n".join(map(json.dumps, rows)))
    task = tmp_path / "mine.yaml"
    task.write_text("name: mine\ntext: text\nlabel: label\ntrain: all.jsonl\nfolds: 2\n")
    for rows[2]["label"] in ("pos", 1):  # a bad line alone; then a whole-file problem first
        (tmp_path / "all.jsonl").write_text("\n".join(map(json.dumps, rows)))
        assert main(["data", "stats", "--task", str(task)]) == 2
        lines = capsys.readouterr().err.splitlines()
        assert lines and all(line.startswith("sanbench data stats: ") for line in lines), lines
        assert f"sanbench data stats: {tmp_path / 'all.jsonl'}:5: expected a label" in lines[-1]
    assert "expected labels of one JSON type" in lines[0]


def test_an_action_words_help_names_the_command_with_it(capsys: pytest.CaptureFixture) -> None:
    """Outside check of #56, item 18: ``sanbench data stats --help`` showed ``usage: sanbench
    data [-h] ... {stats}``; its usage names the command as its messages do."""
    assert main(["data", "stats", "--help"]) == 0
    usage = capsys.readouterr().out.partition("\n\n")[0]
    assert usage.startswith("usage: sanbench data stats [-h]") and "{stats}" not in usage, usage


TWO_BAD_VALUES = ["--model.dropout", "3", "--data.batch_size", "0"]  # of a fit's config
BAD_PAIRS = {  # two problems of each command's words at once
    "fit": ["--task", "trec", "--encoder", "bilstm", *TWO_BAD_VALUES],
    "suite": ["--tasks", "trec", "--encoders", "bilstm", *TWO_BAD_VALUES],
    "tune": ["--study", "dropout", "--task", "trec", "--encoder", "bilstm", *TWO_BAD_VALUES],
    "reproduce": ["--tasks", "trec", *TWO_BAD_VALUES],
    "profile": ["--encoders", "bilstmm", "--batch-size", "0"],
    "predict": ["--ckpt", "no.ckpt", "--input", "no.txt", "--out", "p.csv", "--batch-size", "0"],
    "encode": ["--ckpt", "no.ckpt", "--input", "no.txt", "--out", "e.npy", "--batch-size", "0"],
    "report": ["run", "--out", "site", "--bogus", "--bogusb"],
    "data stats": ["--task", "treec", "--encoding", "nope"],
    "encoders": ["--input-dim", "0"],  # its one option
}


@pytest.mark.parametrize("command", BAD_PAIRS)
@pytest.mark.parametrize("unknown", [False, True], ids=["values", "unknown options"])
def test_the_pointer_to_help_names_the_command_once_after_every_problem(
    command: str, unknown: bool, tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch
) -> None:
    """Outside check of #56, item 18: ``tune`` and ``reproduce`` pointed to ``fit --help``, the
    pointer ended the last problem's line only (as if it were that problem's), and ``tune``'s,
    ``predict``'s and ``encode``'s value problems had none. Every command's problems of its
    words are followed by one line, ``(see sanbench COMMAND --help)``, whichever layer found
    them."""
    monkeypatch.chdir(tmp_path)
    words = ["--bogus", "1", "--bogusb", "2"] if unknown else BAD_PAIRS[command]
    if command in ("fit", "suite", "tune", "reproduce"):
        words = [*words, "--data-dir", str(tmp_path), "--out", str(tmp_path / "out")]
    assert main([*command.split(), *words]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[-1] == f"(see sanbench {command} --help)", lines
    problems = 1 if words == ["--input-dim", "0"] else 2
    assert len(lines) > problems and "--help" not in "\n".join(lines[:-1]), lines
    assert all(line.startswith(f"sanbench {command}: ") for line in lines[:-1]), lines


def test_a_problem_two_checks_find_is_said_once(tmp_path: Path, capsys) -> None:
    """Short outside check 56f, item 4: a config file's misspelt optimizer class with a flag of
    its arguments after it was named twice (two checks each found it)."""
    config = tmp_path / "f.yaml"
    config.write_text(
        "model: {encoder: multi_cnn}\ndata: {task: trec}\n"
        "optimizer: {class_path: torch.optim.SDG, init_args: {lr: 0.1}}\n"
    )
    words = ["fit", "--config", str(config), "--optimizer.lr", "0.3"]
    assert main([*words, "--data-dir", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == len(set(lines)), lines
    assert any(
        "torch.optim.SDG: no class SDG in torch.optim (did you mean SGD?)" in line for line in lines
    )


@pytest.mark.parametrize(
    "words",
    [
        ["profile", "--encoders", "disan2", "--lengths", "8"],
        ["reproduce", "--data-dir", "nothere", "--encoders", "disan2"],
        ["report", "nothere"],
    ],
    ids=["profile", "reproduce", "report"],
)
def test_a_locked_commands_refusal_makes_no_out_folder_at_any_moment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, words: list
) -> None:
    """'profile --encoders disan2 --out x2c' made x2c (its marker and lock files) about 4 s
    before the refusal, which took it away again: a kill in that time left it. Now each input
    is checked before the folder is marked or locked (harness.outdir), as fit's are."""
    from contextlib import nullcontext

    import harness.outdir

    taken: list[str] = []
    monkeypatch.setattr(harness.outdir, "mark", lambda folder, command: taken.append("mark"))
    monkeypatch.setattr(
        harness.outdir, "one_writer", lambda folder: taken.append("lock") or nullcontext()
    )
    monkeypatch.chdir(tmp_path)
    assert main([*words, "--out", "x2c"]) == 2, capsys.readouterr().err
    assert taken == [] and not (tmp_path / "x2c").exists()


def test_a_sigterm_whose_error_a_library_swallows_still_stops_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 54 (outside check at 70c9de7, 5 of 6 under load): a SIGTERM 3 s into ``fit`` came
    while jsonargparse read a module's source for LightningCLI; its ``except Exception``
    swallowed the error sanbench's handler raised, and the fit trained to its end, status 0.
    Now the error is raised again until it leaves the command."""
    import importlib
    import signal
    import time

    trained: list[bool] = []

    def swallowing_then_training(config: object) -> int:
        try:  # a library's parsing that logs what it cannot read and goes on
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(100_000):  # the handler runs between these
                pass
        except Exception:
            pass
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:  # the training
            time.sleep(0.01)
        trained.append(True)
        return 0

    words = ["fit", "--task", "trec", "--encoder", "multi_cnn", "--out", str(tmp_path / "f")]
    monkeypatch.setattr(
        importlib.import_module("harness.training.command"), "fit", swallowing_then_training
    )
    monkeypatch.setattr(sys, "argv", ["sanbench", *words])
    before = signal.signal(signal.SIGTERM, signal.SIG_IGN)  # sanbench's handler takes it
    try:
        assert main(words) == 128 + signal.SIGTERM
    finally:
        signal.signal(signal.SIGTERM, before)
    assert not trained
    assert capsys.readouterr().err.splitlines() == ["sanbench fit: terminated; nothing was saved"]


@pytest.mark.parametrize("signum", [2, 15], ids=["SIGINT", "SIGTERM"])
def test_a_profile_stopped_before_its_sweep_folder_says_nothing_was_saved(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    signum: int,
) -> None:
    """Issue 54 (outside check at 70c9de7, 5 of 5): ``profile`` stopped 2-5 s in (its imports
    done, no sweep folder yet) said a bare ``sanbench profile: terminated`` (``interrupted``),
    where a fit says that nothing was saved."""
    words = ["profile", "--encoders", "multi_head", "--lengths", "8", "--out", str(tmp_path / "q")]
    _stopped_as_it_starts("harness.profiling.command:profile", words, signum, monkeypatch)
    word = "interrupted" if signum == 2 else "terminated"
    assert capsys.readouterr().err.splitlines() == [f"sanbench profile: {word}; nothing was saved"]
