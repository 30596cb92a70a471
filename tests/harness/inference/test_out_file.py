"""``sanbench predict`` / ``encode`` write ``--out`` only when it is new, or a file sanbench made
and ``--overwrite`` is given, and say what is wrong with a path before any work (issue 54.6,
56.11, 56.12): each refusal is one line, exit status 2, the user's files byte for byte as they
were and no file added."""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import zipfile
from pathlib import Path

import pytest

from harness.cli import main
from harness.errors import InputError
from harness.inference.command import run_checked
from harness.inference.options import InferenceOptions
from harness.outdir import FILE_RECORD, one_file_writer, out_file_problems, record_file
from harness.training.fit import run_fit
from tests.harness.problem_lines import files_lines, files_refusal, problem_lines
from tests.harness.test_outdir import held_by_another_process, refusal, sanbench, snapshot
from tests.harness.training.test_fit import tiny_run

QUESTIONS = "how many ?\nwho is it ?\n"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A user's folder: a stand-in checkpoint (a complete zip archive, as ``torch.save`` writes;
    the paths are refused before torch reads it), the questions, and predictions of the user's
    own."""
    with zipfile.ZipFile(tmp_path / "model.ckpt", "w") as archive:
        archive.writestr("archive/data.pkl", b"not read")
    (tmp_path / "q3.csv").write_text(QUESTIONS)
    (tmp_path / "mine.csv").write_text("line,label\n1,NUM\n")
    return tmp_path


def predict(folder: Path, *argv: str, command: str = "predict") -> subprocess.CompletedProcess:
    return sanbench(command, "--ckpt", str(folder / "model.ckpt"), *argv)


def files_line(done: subprocess.CompletedProcess) -> str:
    """The one problem line of a refusal of the files alone: no pointer to the help."""
    (line,) = files_refusal(done)
    return line


@pytest.mark.parametrize("command", ["predict", "encode"])
@pytest.mark.parametrize("out", ["folder", "/proc/x", "symlink", "mine"])
def test_the_help_is_pointed_to_for_a_refused_value_only(
    folder: Path, command: str, out: str
) -> None:
    """Fixer 5a leftovers item 1: an --out that is a folder, /proc/x.csv, a symlink or a
    user's file, alone, ended with '(see sanbench predict --help)', which the folder commands
    say only for a problem of the words (harness.cli._status); beside a refused value, it
    does."""
    suffix = ".csv" if command == "predict" else ".npy"
    given = {
        "folder": folder,
        "/proc/x": Path(f"/proc/x{suffix}"),
        "symlink": folder / f"link{suffix}",
        "mine": folder / f"mine{suffix}",
    }[out]
    (folder / f"link{suffix}").symlink_to(folder / "q3.csv")
    (folder / f"mine{suffix}").write_bytes(b"the user's own")
    before = snapshot(folder)
    argv = ["--input", str(folder / "q3.csv"), "--out", str(given)]
    (line,) = files_refusal(predict(folder, *argv, command=command))
    assert f"--out {given}" in line
    done = predict(folder, *argv, "--batch-size", "0", command=command)
    assert done.returncode == 2, done.stderr
    lines = problem_lines(done.stderr, command)
    assert lines == [line, f"sanbench {command}: --batch-size 0: expected a positive integer"]
    assert snapshot(folder) == before


def test_the_input_as_out_is_refused(folder: Path) -> None:
    """On 023e32f it exited 0, the questions replaced by their predictions."""
    before = snapshot(folder)
    q3 = folder / "q3.csv"
    line = files_line(predict(folder, "--input", str(q3), "--out", str(q3)))
    assert line == f"sanbench predict: --out {q3} is the --input file; choose another file name"
    assert snapshot(folder) == before


@pytest.mark.parametrize("overwrite", [[], ["--overwrite"]])
@pytest.mark.parametrize(("command", "name"), [("predict", "mine.csv"), ("encode", "mine.npy")])
def test_a_file_of_the_users_is_never_written_over(
    folder: Path, overwrite: list[str], command: str, name: str
) -> None:
    out = folder / name
    out.write_bytes(b"the user's own")
    before = snapshot(folder)
    argv = ["--input", str(folder / "q3.csv"), "--out", str(out), *overwrite]
    line = files_line(predict(folder, *argv, command=command))
    assert line == (
        f"sanbench {command}: --out {out} exists and sanbench did not make it (or it was changed "
        "since); nothing was written. Choose another file name"
    )
    assert snapshot(folder) == before


def test_an_unwritable_folder_is_refused_before_any_work(folder: Path) -> None:
    """On 023e32f the prediction ran, then failed on its temporary file. /proc takes no new
    file, even from root."""
    before = snapshot(folder)
    out = Path("/proc/predictions.csv")
    line = files_line(predict(folder, "--input", str(folder / "q3.csv"), "--out", str(out)))
    assert line == f"sanbench predict: --out {out}: folder /proc is not writable"
    assert snapshot(folder) == before


def test_an_out_folder_is_called_a_folder(folder: Path) -> None:
    before = snapshot(folder)
    line = files_line(predict(folder, "--input", str(folder / "q3.csv"), "--out", str(folder)))
    assert line == (
        f"sanbench predict: --out {folder} is a folder; give a .csv file name "
        f"(e.g. {folder / 'output.csv'})"
    )
    assert snapshot(folder) == before


def test_a_checkpoint_folder_is_called_a_folder_with_its_checkpoints_named(folder: Path) -> None:
    """On 023e32f: "--ckpt runs/trec/checkpoints: no such file"."""
    checkpoints = folder / "run" / "checkpoints"
    checkpoints.mkdir(parents=True)
    for name in ("last.ckpt", "best-epoch=1-step=8.ckpt"):
        (checkpoints / name).write_bytes(b"")
    argv = ["--input", str(folder / "q3.csv"), "--out", str(folder / "p.csv")]
    before = snapshot(folder)
    line = files_line(sanbench("predict", "--ckpt", str(folder / "run"), *argv))
    assert line == (
        f"sanbench predict: --ckpt {folder / 'run'} is a folder; give one of its files: "
        f"{checkpoints / 'best-epoch=1-step=8.ckpt'}, {checkpoints / 'last.ckpt'}"
    )
    assert snapshot(folder) == before
    for path in checkpoints.iterdir():
        path.unlink()
    before = snapshot(folder)
    line = files_line(sanbench("predict", "--ckpt", str(checkpoints), *argv))
    assert line == (
        f"sanbench predict: --ckpt {checkpoints} is a folder, holding no .ckpt file (in it, its "
        "checkpoints/ and the run folders sanbench made in it; under it only when sanbench made "
        "it or the folder holding it); give a file"
    )
    assert snapshot(folder) == before


def test_a_folder_sanbench_did_not_make_is_not_searched_below_its_checkpoints(
    folder: Path,
) -> None:
    """Outside check 56i of #56, item 11: 'encode --ckpt /tmp' walked all of /tmp and named
    other users' checkpoints ('and 1588 more'). A folder sanbench did not make offers its own
    checkpoints and its checkpoints/' only; one it made (a suite's) is searched whole."""
    deep = folder / "someone" / "run" / "checkpoints"
    deep.mkdir(parents=True)
    (deep / "last.ckpt").write_bytes(b"")
    argv = ["--input", str(folder / "q3.csv"), "--out", str(folder / "e.npy")]
    line = files_line(sanbench("encode", "--ckpt", str(folder), *argv))
    assert line.endswith(f"give one of its files: {folder / 'model.ckpt'}")  # its own only
    (folder / "someone" / ".sanbench").write_text("made by sanbench suite\n")
    line = files_line(sanbench("encode", "--ckpt", str(folder / "someone"), *argv))
    assert line.endswith(f"give one of its files: {deep / 'last.ckpt'}")


@pytest.mark.parametrize("command", ["predict", "encode"])
def test_a_folder_of_fit_runs_offers_their_checkpoints(folder: Path, command: str) -> None:
    """Outside check 56j of #56, item 8: '--ckpt b', b holding two fit runs (b/f1/checkpoints/
    last.ckpt), or a symlink to b, said 'is a folder, holding no .ckpt file': false. The runs
    sanbench made in it offer their checkpoints; a folder of the user's in it does not."""
    runs = folder / "b"
    for name in ("f1", "f2", "mine"):
        (runs / name / "checkpoints").mkdir(parents=True)
        (runs / name / "checkpoints" / "last.ckpt").write_bytes(b"")
    for name in ("f1", "f2"):
        (runs / name / ".sanbench-run").write_text("made by sanbench fit\n")
    (folder / "link").symlink_to(runs)
    out = folder / ("out.csv" if command == "predict" else "out.npy")
    argv = ["--input", str(folder / "q3.csv"), "--out", str(out)]
    for given in (runs, folder / "link"):
        line = files_line(sanbench(command, "--ckpt", str(given), *argv))
        assert line == (
            f"sanbench {command}: --ckpt {given} is a folder; give one of its files: "
            f"{given / 'f1/checkpoints/last.ckpt'}, {given / 'f2/checkpoints/last.ckpt'}"
        )


@pytest.mark.parametrize("inside", ["runs", "runs/trec"])
def test_a_folder_inside_one_sanbench_made_offers_its_checkpoints(
    folder: Path, inside: str
) -> None:
    """Outside check 56k of #56, item 6: '--ckpt SUITE/runs' and '--ckpt SUITE/runs/trec' said
    'holding no .ckpt file' though the suite made them and its seeds' last.ckpt are below. A
    folder inside one sanbench made is searched whole, as that folder is."""
    suite = folder / "su"
    seeds = [suite / "runs" / "trec" / "multi_cnn" / f"seed_{n}" for n in (0, 1)]
    for seed in seeds:
        (seed / "checkpoints").mkdir(parents=True)
        (seed / "checkpoints" / "last.ckpt").write_bytes(b"")
    (suite / ".sanbench").write_text("made by sanbench suite\n")
    argv = ["--input", str(folder / "q3.csv"), "--out", str(folder / "p.csv")]
    given = suite / inside
    line = files_line(sanbench("predict", "--ckpt", str(given), *argv))
    assert line == (
        f"sanbench predict: --ckpt {given} is a folder; give one of its files: "
        f"{seeds[0] / 'checkpoints/last.ckpt'}, {seeds[1] / 'checkpoints/last.ckpt'}"
    )


@pytest.fixture(scope="module")
def checkpoint(trec_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The last checkpoint of a tiny TREC fit."""
    out = tmp_path_factory.mktemp("trained") / "run"
    run_fit(tiny_run(trec_dir, out, trainer__max_epochs=1))
    return out / "checkpoints" / "last.ckpt"


@pytest.mark.slow  # a tiny fit, once per process
@pytest.mark.parametrize(("command", "suffix"), [("predict", ".csv"), ("encode", ".npy")])
def test_a_file_sanbench_wrote_is_replaced_only_with_overwrite(
    checkpoint: Path, tmp_path: Path, command: str, suffix: str
) -> None:
    """The writes, then the refusals, by the command (``main``) in this process."""
    questions = tmp_path / "questions.txt"
    questions.write_text(QUESTIONS)
    out = tmp_path / f"out{suffix}"
    argv = [command, "--ckpt", str(checkpoint), "--input", str(questions), "--out", str(out)]
    assert main(argv) == 0
    first = snapshot(tmp_path)
    # no lock file left in the user's folder (outside check 54i item 4: it stayed)
    assert sorted(first) == sorted([f".{out.name}{FILE_RECORD}", out.name, questions.name])
    line = files_line(sanbench(*argv))
    assert line == (
        f"sanbench {command}: --out {out} exists (an earlier sanbench command wrote it); add "
        "--overwrite to replace it, or choose another file name"
    )
    assert snapshot(tmp_path) == first
    questions.write_text("how many ?\n")
    assert main([*argv, "--overwrite"]) == 0
    if command == "predict":
        with out.open() as handle:
            assert [row["sentence"] for row in csv.DictReader(handle)] == ["how many ?"]
    assert sorted(snapshot(tmp_path)) == sorted(first)
    out.write_bytes(out.read_bytes() + b"\n")  # edited: no longer what sanbench made
    edited = snapshot(tmp_path)
    assert "sanbench did not make it" in files_line(sanbench(*argv, "--overwrite"))
    assert snapshot(tmp_path) == edited


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("1e23", "--batch-size 1e23: expected an integer"),  # as typed (issue 56 H17.2)
        ("100000000000000000000000", "--batch-size 100000000000000000000000: a batch "),
    ],
)
def test_an_absurd_batch_size_is_one_line_in_sanbenchs_words(
    folder: Path, given: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 56 breaker: jsonargparse's union dump, then itertools.islice's own error."""
    before = snapshot(folder)
    argv = ["--input", str(folder / "q3.csv"), "--out", str(folder / "p.csv"), "--batch-size"]
    assert main(["predict", "--ckpt", str(folder / "model.ckpt"), *argv, given]) == 2
    lines = problem_lines(capsys.readouterr().err, "predict")
    assert len(lines) == 1 and lines[0].startswith(f"sanbench predict: {said}"), lines
    assert snapshot(folder) == before


def test_a_file_on_the_out_path_is_called_a_file(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 56 breaker: ``--out afile/p.csv`` said "folder afile does not exist"."""
    before = snapshot(folder)
    out = folder / "mine.csv" / "p.csv"
    argv = ["predict", "--ckpt", str(folder / "model.ckpt"), "--input", str(folder / "q3.csv")]
    assert main([*argv, "--out", str(out)]) == 2
    lines = files_lines(capsys.readouterr().err)
    said = f"--out {out}: {folder / 'mine.csv'} is a file, not a folder"
    assert lines == [f"sanbench predict: {said}"]
    assert snapshot(folder) == before


@pytest.mark.parametrize(("command", "name"), [("predict", "dang.csv"), ("encode", "dang.npy")])
@pytest.mark.parametrize("target", ["missing", "mine.csv"])
def test_a_symlink_out_is_refused_dangling_or_not(
    folder: Path, command: str, name: str, target: str
) -> None:
    """Outside check A item 11: a user's dangling symlink was replaced by a regular file."""
    out = folder / name
    out.symlink_to(folder / target)
    names, mine = sorted(os.listdir(folder)), (folder / "mine.csv").read_bytes()
    argv = ["--input", str(folder / "q3.csv"), "--out", str(out), "--overwrite"]
    line = files_line(predict(folder, *argv, command=command))
    assert line == (
        f"sanbench {command}: --out {out} is a symlink (sanbench writes only files it made); "
        "nothing was written. Choose another file name"
    )
    assert sorted(os.listdir(folder)) == names and os.readlink(out) == str(folder / target)
    assert (folder / "mine.csv").read_bytes() == mine


@pytest.mark.parametrize(("command", "name"), [("predict", "preds.csv"), ("encode", "vec.npy")])
@pytest.mark.parametrize("content", ["the user's own", '{"sha256": "0"}'])
def test_a_users_file_named_as_sanbenchs_record_is_never_written_over(
    folder: Path, command: str, name: str, content: str
) -> None:
    """Outside check A item 11: a user's ``.preds.csv.sanbench.json`` was overwritten by the
    record of a new preds.csv."""
    out = folder / name
    record = folder / f".{name}{FILE_RECORD}"
    record.write_text(content)
    before = snapshot(folder)
    line = files_line(predict(folder, "--input", str(folder / "q3.csv"), "--out", str(out),
                           command=command))  # fmt: skip
    assert line == (
        f"sanbench {command}: --out {out}: {record.name} beside it is not a record sanbench "
        "wrote (its records of the files it writes are named so); nothing was written. Move it "
        "away or choose another file name"
    )
    assert snapshot(folder) == before


def test_out_is_checked_again_once_its_lock_is_held(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside check A item 5: a command that wrote --out after this one checked it (the
    first of two concurrent predicts) is not written over: the check is made again under the
    lock, before any work."""
    out = folder / "pp.csv"
    out.write_text("line,sentence,label\n")
    record_file(out, "predict")  # written by the other command meanwhile, under its lock
    (folder / f".sanbench-{out.name}.lock").touch()  # which stays
    monkeypatch.setattr(InferenceOptions, "problems", lambda self, suffix: ([], []))
    monkeypatch.setattr(signal, "signal", lambda *arguments: None)  # the command's own
    options = InferenceOptions(folder / "model.ckpt", folder / "q3.csv", out)
    before = snapshot(folder)
    with pytest.raises(InputError, match="add --overwrite to replace it"):
        run_checked(options, "predict", ".csv", lambda *arguments: pytest.fail("written"))
    assert snapshot(folder) == before


def test_a_files_lock_goes_when_its_writer_ends_and_one_found_there_stays(
    tmp_path: Path,
) -> None:
    """Outside check 54i item 4: ``predict --out p.csv`` left ``.sanbench-p.csv.lock`` in the
    user's folder. The lock file a writer made goes as it ends, written or refused; one that was
    there before stays (a refused command leaves the folder as it was)."""
    out, lock = tmp_path / "p.csv", tmp_path / ".sanbench-p.csv.lock"
    with one_file_writer(out):
        assert lock.exists()
    with pytest.raises(RuntimeError), one_file_writer(out):
        raise RuntimeError
    assert list(tmp_path.iterdir()) == []
    lock.touch()
    with one_file_writer(out):
        pass
    assert list(tmp_path.iterdir()) == [lock]


@pytest.mark.parametrize(
    ("name", "suffix"), [("test_predictions.csv", ".csv"), ("checkpoints/last.npy", ".npy")]
)
def test_a_file_another_command_made_is_refused_as_that_commands(
    tmp_path: Path, name: str, suffix: str
) -> None:
    """Outside check 54i item 4: ``predict --overwrite --out RUN/test_predictions.csv`` (a file
    ``fit`` wrote) was refused as a file 'sanbench did not make'."""
    run = tmp_path / "runs" / "x"
    (run / "checkpoints").mkdir(parents=True)
    (run / "fit_config.yaml").write_text("model:\n  encoder: multi_cnn\n")
    out = run / name
    out.write_text("written by fit\n")
    (problem,) = out_file_problems(out, suffix, overwrite=True)
    assert problem == (
        f"--out {out} is a file of {run}, which sanbench fit made: predict and encode write "
        "over only the files they wrote; nothing was written. Choose another file name"
    )


@pytest.mark.slow  # a second process
@pytest.mark.parametrize(("command", "suffix"), [("predict", ".csv"), ("encode", ".npy")])
def test_a_second_command_writing_the_same_out_is_refused(
    folder: Path, command: str, suffix: str
) -> None:
    """Outside check A item 5: two concurrent predicts to one new --out both exited 0, the
    second replacing the first's rows without --overwrite."""
    out = folder / f"pp{suffix}"
    lock = f".sanbench-{out.name}.lock"
    with held_by_another_process(folder, lock) as pid:
        before = snapshot(folder)
        line = refusal(predict(folder, "--input", str(folder / "q3.csv"), "--out", str(out),
                               command=command))  # fmt: skip
        assert snapshot(folder) == before
    assert line == (
        f"sanbench {command}: {out} is being written by another sanbench process (PID {pid}); "
        "wait for it to end or choose another --out"
    )


@pytest.mark.parametrize(("command", "name"), [("predict", "p.csv"), ("encode", "p.npy")])
def test_an_out_through_a_symlink_to_nothing_is_said_as_by_the_folder_commands(
    folder: Path, command: str, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 54 leftovers (item 5): ``--out L/p.csv``, ``L`` a symlink to nothing, said
    ``folder L does not exist`` where every folder command says what ``L`` is."""
    before = snapshot(folder)
    (folder / "L").symlink_to("nowhere")
    (folder / "A").symlink_to("L")
    argv = [command, "--ckpt", str(folder / "model.ckpt"), "--input", str(folder / "q3.csv")]
    for link, chain in (
        ("L", "a symlink to nowhere, which does not exist"),
        ("A", "a symlink to L, which is a symlink to nowhere, which does not exist"),
    ):
        out = folder / link / name
        assert main([*argv, "--out", str(out)]) == 2
        lines = files_lines(capsys.readouterr().err)
        assert lines == [f"sanbench {command}: --out {out}: {folder / link} is {chain}"], lines
    (folder / "L").unlink()
    (folder / "A").unlink()
    assert snapshot(folder) == before


@pytest.mark.parametrize("out", ["5", "5.0"])
def test_a_config_files_number_out_is_a_name_as_the_flags(
    folder: Path, out: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 56 leftovers (f13b item 3): a config file's ``out: 5`` was refused ("out 5:
    expected a path") while ``--out 5`` was taken as the file name 5: both are names now, said
    alike (here: not a .csv file name), the file's read beside it."""
    monkeypatch.chdir(folder)
    argv = ["predict", "--ckpt", "model.ckpt", "--input", "q3.csv"]
    assert main([*argv, "--out", out]) == 2
    flag = problem_lines(capsys.readouterr().err, "predict")
    (folder / "p.yaml").write_text(f"ckpt: model.ckpt\ninput: q3.csv\nout: {out}\n")
    assert main(["predict", "--config", "p.yaml"]) == 2
    config = problem_lines(capsys.readouterr().err, "predict")
    assert flag == [f"sanbench predict: --out {out}: expected a .csv file name"]
    beside = f" (read beside the config file: {folder / out})"
    assert config == [
        f"sanbench predict: --config p.yaml: out {out}: expected a .csv file name{beside}"
    ]
