"""What only a GPU can confirm of the CUDA path (issue 57), checked by ``nox -s bench``.

    python -m harness.profiling.gpu_checks device      # where the bench runs, and why not CUDA
    python -m harness.profiling.gpu_checks checks RUN  # after the sweep into RUN: the checks
    python -m harness.profiling.gpu_checks confirm [RUN]  # a GPU user's one command: a quick
                                                          # CUDA sweep into RUN, then the checks

``confirm`` on a machine without CUDA says why in one line and exits 2, creating nothing.

The checks, each a line ``ok``, ``FAILED`` or ``not run`` with its figures:
- NVML's GPU is torch's: every visible device, found in NVML by its PCI bus id
  (``gpu_process.nvml_uuid``), has torch's UUID (``CUDA_VISIBLE_DEVICES`` renumbers torch's).
- The CUDA peak against the prediction: ``predicted_error_pct`` of RUN's measured CUDA rows
  (the prediction models the CPU's kernels; reported, not bounded).
- No context on a device the run did not ask for: a process measures one point of DiSAN's
  chunked attention (the tiles' probe and warm-up included) on the last visible GPU, then asks
  NVML which GPUs list its process id (its own only: a context of a process it started, such
  as torch.compile's compile workers, goes unseen). A MIG slice is unverified: the GPU NVML
  finds by the slice's bus id is the whole GPU.
- fp16 tiles as planned: the same point under fp16 autocast on cuda:0; the tiles it ran must be
  the ones ``tile_plan`` reports (issue 57.9).
- Fit, encode and predict on the GPU: ``sanbench fit`` of a tiny TREC written into RUN with
  multi_cnn and with DiSAN (its default chunked attention: the tiles compiled for CUDA), then
  ``sanbench encode`` and ``sanbench predict`` of each checkpoint (issue 57.1); every command
  exits 0 and two sentences are encoded and predicted.
Without CUDA each says it was not run and why; the exit status is 1 only when a check failed.
Each line is printed as its check ends; a Ctrl-C stops the running check's child process and
exits 130 (:func:`main`).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harness.interrupts import INTERRUPTED_STATUS, interrupt_held
from reports.contracts.profile_run import OK

INTERRUPTED = "gpu_checks: interrupted"

# run as a program, a Ctrl-C during the imports (torch's: seconds) waits for them to end, then
# exits 130 in one line (a library stopped half imported gave a traceback)
held = interrupt_held() if __name__ == "__main__" else contextlib.nullcontext(lambda: False)
with held as interrupted:
    import torch

    from harness.measurement.gpu_process import (
        gpus_listing,
        nvml_bus_id,
        nvml_module,
        nvml_uuid,
        read_with_nvml,
    )
if interrupted():
    print(INTERRUPTED, file=sys.stderr, flush=True)
    sys.exit(INTERRUPTED_STATUS)

# this module's name: run as ``python -m`` its ``__name__`` is "__main__", which no child can
# run (``python -m __main__``: "Error while finding module specification")
MODULE = "harness.profiling.gpu_checks"
# where the checks run in this process write what they print (a failed point's traceback)
CHECKS_LOG = "gpu-checks.log"
# how long a check's child process gets to end after SIGTERM on Ctrl-C, before SIGKILL
CHILD_STOP_SECONDS = 5.0
# the point the context check measures: chunked DiSAN, whose tiles are probed and compiled
CONTEXT_POINT = {"encoder": "disan", "seq_len": 16, "mode": "train", "batch_size": 2, "dim": 32}
CONTEXT_OPTIONS = "attention_impl=chunked"
# what ``confirm`` sweeps on the GPU: the papers' figure encoders as the figures ran them and
# DiSAN's chunked attention (the encoders' default; off the CPU its tiles read no value, issue
# 57.6), as ``nox -s bench`` does at the paper preset
CONFIRM_ENCODERS = (
    "bilstm,bigru,bisru,multi_cnn,hrchy_cnn,multi_head,disan:attention_impl=naive,"
    "bi_blosan:attention_impl=naive,mtsa,disan:attention_impl=chunked"
)


@dataclass(frozen=True)
class Check:
    """One check's outcome: ``ok`` True (passed), False (failed) or None (not run)."""

    name: str
    ok: bool | None
    detail: str

    def line(self) -> str:
        status = {True: "ok", False: "FAILED", None: "not run"}[self.ok]
        return f"GPU check, {self.name}: {status}: {self.detail}"


def why_no_cuda() -> str:
    """Why this process has no CUDA device ("" when it has one)."""
    if torch.cuda.is_available():
        return ""
    if torch.version.cuda is None:
        return f"torch {torch.__version__} is a CPU build (no CUDA in the wheel)"
    return (
        f"torch {torch.__version__} (CUDA {torch.version.cuda}) finds no GPU (no driver, or "
        "CUDA_VISIBLE_DEVICES hides them)"
    )


def device_line() -> str:
    """The line ``nox -s bench`` prints before its sweep: the device it runs on."""
    why = why_no_cuda()
    if why:
        return f"bench runs on CPU: {why}; the GPU checks will not run"
    names = ", ".join(
        f"cuda:{i} {torch.cuda.get_device_name(i)}" for i in range(torch.cuda.device_count())
    )
    return f"bench runs on CUDA (torch {torch.__version__}, CUDA {torch.version.cuda}): {names}"


def _uuid(value: Any) -> str:
    text = value.decode() if isinstance(value, bytes) else str(value)
    return text.lower().removeprefix("gpu-")


def nvml_matches_torch(nvml: Any, properties: Sequence[Any]) -> Check:
    """Each of torch's devices (``properties`` by index) found in NVML by bus id has torch's
    UUID."""
    found, wrong = [], []
    for index, device in enumerate(properties):
        uuid = _uuid(nvml_uuid(nvml, device))
        line = f"cuda:{index} = NVML GPU at {nvml_bus_id(device)}"
        (found if uuid == _uuid(device.uuid) else wrong).append(line)
    if wrong:
        return Check("NVML's GPU is torch's", False, "UUIDs differ: " + "; ".join(wrong))
    return Check("NVML's GPU is torch's", True, "; ".join(found) + " (same UUIDs)")


def noted(check: Check, note: str) -> Check:
    """``check`` with ``note`` after its figures (none when ``note`` is "")."""
    return replace(check, detail=f"{check.detail}; {note}") if note else check


def nvml_check(nvml: Any, properties: Sequence[Any]) -> Check:
    """``nvml_matches_torch`` between NVML's start and shut down; a failed start or read leaves
    the check not run, with the error, and the later checks run; a failed shut down keeps the
    verdict and notes the failure."""
    check, failed, unfinished = read_with_nvml(nvml, lambda: nvml_matches_torch(nvml, properties))
    if check is None:
        check = Check("NVML's GPU is torch's", None, f"NVML failed: {failed}")
    return noted(check, unfinished)


def peak_against_prediction(rows: Sequence[Mapping[str, str]]) -> Check:
    """The measured CUDA rows' ``predicted_error_pct``: how many, range and median."""
    name = "CUDA peak against the prediction"
    errors = sorted(
        (float(row["predicted_error_pct"]), f"{row['encoder']} {row['mode']} L={row['seq_len']}")
        for row in rows
        if row["device"] == "cuda" and row.get("predicted_error_pct", "") != ""
    )
    if not errors:
        return Check(name, False, "no measured CUDA row has a prediction to compare")
    median = errors[len(errors) // 2][0]
    return Check(
        name,
        True,
        f"{len(errors)} rows, prediction error {errors[0][0]:+.1f}% ({errors[0][1]}) to "
        f"{errors[-1][0]:+.1f}% ({errors[-1][1]}), median {median:+.1f}% (the prediction "
        "models the CPU's kernels; docs/benchmarks.md, Peak memory)",
    )


def context_check(asked: int, listed: list[int], count: int) -> Check:
    """The verdict on the GPUs that list the process which asked for ``cuda:asked`` only."""
    name = "no context on a GPU the run did not ask for"
    if asked not in listed:
        return Check(name, None, f"NVML lists the process on no GPU it used ({listed}): in a "
                     "container NVML reports the host's process ids")  # fmt: skip
    others = [index for index in listed if index != asked]
    if others:
        return Check(name, False, f"asked for cuda:{asked}, also has a context on " +
                     ", ".join(f"cuda:{i}" for i in others))  # fmt: skip
    return Check(name, True, f"asked for cuda:{asked} of {count}: a context there only")


def _context_child(asked: int) -> dict[str, Any]:
    """In a fresh process: measure the context point on ``cuda:asked``, then list the GPUs on
    which NVML lists this process."""
    from harness.measurement.profiled_step import Point
    from harness.profiling.worker import Models, run_point, worker_device
    from harness.profiling.worker_process import point_request

    point = Point(**CONTEXT_POINT, options=CONTEXT_OPTIONS)
    models = Models(worker_device(f"cuda:{asked}"), compile_model=False)  # as the worker does
    reply = run_point(point_request(point, "fp32", repeats=3), models)
    count = torch.cuda.device_count()
    properties = [torch.cuda.get_device_properties(i) for i in range(count)]
    nvml = nvml_module()
    if nvml is None:
        return {"status": "nvml failed", "message": "pynvml is not installed", "listed": []}
    listed, failed, unfinished = read_with_nvml(
        nvml, lambda: gpus_listing(os.getpid(), nvml, properties)
    )
    if listed is None:
        message = "; ".join(part for part in (failed, unfinished) if part)
        return {"status": "nvml failed", "message": message, "listed": []}
    message = "; ".join(part for part in (reply.get("message", ""), unfinished) if part)
    return {"status": reply["status"], "message": message, "listed": listed}


def fp16_tiles_check(log: Path) -> Check:
    """Under fp16 autocast on cuda:0, the tiles the context point ran against the tiles
    ``tile_plan`` reports (issue 57.9: fp16's product-form bound, 2.77, sent ordinary inputs to
    the eager tiles while the plan said "compiled"). The point runs in this process: what it
    writes to stderr (a failure's traceback, warnings) is appended to ``log``, not the console."""
    from harness.measurement.profiled_step import Point
    from harness.profiling.worker import Models, run_point
    from harness.profiling.worker_process import point_request

    name = "fp16 tiles as planned"
    point = Point(**CONTEXT_POINT, options=CONTEXT_OPTIONS)
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a") as stream, contextlib.redirect_stderr(stream):
        models = Models(torch.device("cuda", 0), compile_model=False)
        reply = run_point(point_request(point, "fp16", repeats=3), models)
    if reply["status"] != OK:
        return Check(name, False, f"the fp16 point failed: {reply['message']} (its log: {log})")
    from encoders.layers.tanh_attention import tile_plan

    planned = tile_plan(models.eager, models.device, point.mode)
    ran = reply["attention_tiles"]
    return Check(name, ran == planned, f"ran {ran!r}, planned {planned!r}")


# a tiny TREC (the task's file layout): a word per label, so that a fit of one epoch runs
TREC_WORDS = ("what", "how", "which", "who", "where", "many")


# what the fit-encode-predict check trains: a CNN, and an attention encoder on its default
# (chunked) attention, whose tiles torch.compile builds on the GPU (cached by the sweep's)
CHECK_FIT_ENCODERS = ("multi_cnn", "disan")


# the line of sanbench's stderr that says why it failed (``harness.cli``'s, before its hint)
SANBENCH_ERROR = re.compile(r"sanbench [\w-]+: ")


def failure_line(stderr: str) -> str:
    """The first ``sanbench COMMAND: ...`` line of ``stderr`` (the last is the ``--debug``
    hint), else its first line."""
    lines = stderr.strip().splitlines() or ["no output"]
    return next((line for line in lines if SANBENCH_ERROR.match(line)), lines[0])


def encode_check(run: Path) -> Check:
    """For each of :data:`CHECK_FIT_ENCODERS`: ``sanbench fit`` of a tiny TREC on the GPU
    (Lightning's ``accelerator="auto"``), then ``sanbench encode`` and ``sanbench predict`` of
    its checkpoint (issue 57.1: the batch index was read on the host from a GPU tensor); each
    exits 0, and two sentences are encoded and predicted. Each call writes into a new folder
    ``run/gpu-checks-encode-*`` (a second ``checks RUN`` found the first's outputs)."""
    name = "fit, encode and predict on the GPU"
    run.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="gpu-checks-encode-", dir=run))
    for split, count in (("train", 60), ("test", 12)):
        lines = [f"{i % 6} {TREC_WORDS[i % 6]} is the one ?" for i in range(count)]
        (work / f"TREC.{split}.all").write_text("\n".join(lines) + "\n")
    words = [*TREC_WORDS, "is", "the", "one", "?"]
    (work / "glove.txt").write_text("".join(f"{w} {' '.join(['0.1'] * 6)}\n" for w in words))
    (work / "sentences.txt").write_text("what is the one ?\nwho is ?\n")
    sanbench = str(Path(sys.executable).with_name("sanbench"))
    done_with = []
    for encoder in CHECK_FIT_ENCODERS:
        run = work / encoder
        checkpoint = str(run / "checkpoints" / "last.ckpt")
        commands = [
            [sanbench, "fit", "--task", "trec", "--encoder", encoder, "--data-dir", str(work),
             "--embeddings", str(work / "glove.txt"), "--out", str(run),
             "--model.hidden_dim", "4", "--trainer.max_epochs", "1"],
            [sanbench, "encode", "--ckpt", checkpoint, "--input", str(work / "sentences.txt"),
             "--out", str(run / "encoded.npy")],
            [sanbench, "predict", "--ckpt", checkpoint, "--input", str(work / "sentences.txt"),
             "--out", str(run / "predicted.csv")],
        ]  # fmt: skip
        for command in commands:
            done = run_child(command)
            if done.returncode != 0:
                why = failure_line(done.stderr)
                said = f"sanbench {command[1]} ({encoder}) exited {done.returncode}: {why}"
                return Check(name, False, said)
        import numpy as np

        encoded = np.load(run / "encoded.npy").shape[0]
        predicted = len((run / "predicted.csv").read_text().splitlines()) - 1  # its header
        if (encoded, predicted) != (2, 2):
            said = f"{encoder}: {encoded} sentences encoded, {predicted} predicted, of 2"
            return Check(name, False, said)
        done_with.append(encoder)
    return Check(name, True, f"2 sentences encoded and predicted by {', '.join(done_with)}")


def run_child(command: list[str]) -> subprocess.CompletedProcess[str]:
    """``command`` run to its end, its output captured, in a session of its own: a terminal's
    Ctrl-C reaches this process only, which then stops the child and what it started
    (:func:`stop_group`) and raises the ``KeyboardInterrupt`` again."""
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    ) as child:
        try:
            out, err = child.communicate()
        except KeyboardInterrupt:
            stop_group(child)
            raise
    return subprocess.CompletedProcess(command, child.returncode, out, err)


def stop_group(child: subprocess.Popen[str]) -> None:
    """SIGTERM to ``child``'s process group, SIGKILL to what is left of it after
    :data:`CHILD_STOP_SECONDS` (or at once on a second Ctrl-C)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(child.pid, signal.SIGTERM)
    try:
        child.wait(CHILD_STOP_SECONDS)
    except subprocess.TimeoutExpired:
        pass
    finally:
        with contextlib.suppress(ProcessLookupError):  # a group with no process left
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()


def context_process_check(asked: int, count: int) -> Check:
    """The context check of a process (:func:`_context_child`) that measured the context point
    on ``cuda:asked``."""
    name = "no context on a GPU the run did not ask for"
    child = run_child([sys.executable, "-m", MODULE, "context", str(asked)])
    if child.returncode != 0:
        tail = (child.stderr.strip().splitlines() or ["no output"])[-1]
        return Check(name, False, f"the measuring process failed: {tail}")
    reply = json.loads(child.stdout.strip().splitlines()[-1])
    if reply["status"] == "nvml failed":
        return Check(name, None, f"NVML failed: {reply['message']}")
    if reply["status"] != OK:
        return Check(name, False, f"the point failed: {reply['message']}")
    return noted(context_check(asked, reply["listed"], count), reply["message"])


def run_checks(run: Path) -> Iterator[Check]:
    """Every check (see the module docstring) of the sweep written into ``run``, each as it
    ends."""
    why = why_no_cuda()
    names = ("NVML's GPU is torch's", "CUDA peak against the prediction",
             "no context on a GPU the run did not ask for", "fp16 tiles as planned",
             "fit, encode and predict on the GPU")  # fmt: skip
    if why:
        yield from (Check(name, None, f"no CUDA here: {why}") for name in names)
        return
    nvml = nvml_module()
    count = torch.cuda.device_count()
    if nvml is None:
        yield Check(names[0], None, "pynvml is not installed")
    else:
        yield nvml_check(nvml, [torch.cuda.get_device_properties(i) for i in range(count)])
    from reports.contracts.profile_run import results_file

    yield peak_against_prediction(results_file(run).rows())
    if count < 2:
        yield Check(names[2], None, "one GPU visible: no other GPU to find a context on")
    elif nvml is None:
        yield Check(names[2], None, "pynvml is not installed")
    else:
        yield context_process_check(count - 1, count)
    yield fp16_tiles_check(run / CHECKS_LOG)
    yield encode_check(run)


def report(checks: Iterable[Check]) -> int:
    """Print each check's line as it ends; 1 when one failed, else 0."""
    failed = False
    for check in checks:
        print(check.line(), flush=True)
        failed = failed or check.ok is False
    return 1 if failed else 0


def confirm(run: Path) -> int:
    """``confirm RUN``: the quick preset's CUDA sweep of :data:`CONFIRM_ENCODERS` into ``run``
    (``sanbench profile --device cuda``), then every check of it. 2 without CUDA (one line,
    nothing created); the sweep's status when it did not finish (bad input 2, Ctrl-C 130);
    else 1 when the sweep has failed points or a check failed (the checks run either way)."""
    why = why_no_cuda()
    if why:
        print(f"gpu_checks confirm: no CUDA here: {why}; run it on a GPU", file=sys.stderr)
        return 2
    sanbench = str(Path(sys.executable).with_name("sanbench"))
    sweep = [sanbench, "profile", "--device", "cuda", "--preset", "quick",
             "--encoders", CONFIRM_ENCODERS, "--no-report", "--out", str(run)]  # fmt: skip
    with subprocess.Popen(sweep) as sweeping:
        try:
            status = sweeping.wait()
        except KeyboardInterrupt:  # the sweep got it too: it saves what it can, exits 130
            status = sweeping.wait()
    if status not in (0, 1):
        return status
    return max(status, report(run_checks(run)))


USAGE = f"usage: python -m {MODULE} device | checks RUN_DIR | confirm [RUN_DIR]"


def main(argv: list[str]) -> int:
    """The words after the module (:func:`run_words`); a Ctrl-C ends it with the line
    :data:`INTERRUPTED` and exit 130, after the lines of the checks that ended and with the
    running check's child process stopped (:func:`run_child`)."""
    try:
        return run_words(argv)
    except KeyboardInterrupt:
        print(INTERRUPTED, file=sys.stderr, flush=True)
        return INTERRUPTED_STATUS


def run_words(argv: list[str]) -> int:
    """``--help`` anywhere prints the usage (exit 0); a word that starts with ``-`` is no
    RUN_DIR (``confirm --help`` would have swept into a folder so named)."""
    if "-h" in argv or "--help" in argv:
        print(USAGE)
        return 0
    if any(word.startswith("-") for word in argv):
        print(USAGE, file=sys.stderr)
        return 2
    if argv == ["device"]:
        print(device_line())
        return 0
    if argv[:1] == ["context"] and len(argv) == 2:
        if not argv[1].isdigit():
            print(f"gpu_checks context: {argv[1]!r} is no GPU index (0, 1, ...)", file=sys.stderr)
            return 2
        print(json.dumps(_context_child(int(argv[1]))))
        return 0
    if argv[:1] == ["checks"] and len(argv) == 2:
        from reports.contracts.profile_run import PROFILE_CSV, profile_csv

        if not profile_csv(Path(argv[1])).is_file():
            print(f"gpu_checks checks: {argv[1]} has no {PROFILE_CSV}: not a sweep's folder "
                  "(sanbench profile --out RUN)", file=sys.stderr)  # fmt: skip
            return 2
        return report(run_checks(Path(argv[1])))
    if argv[:1] == ["confirm"] and len(argv) <= 2:
        return confirm(
            Path(argv[1] if argv[1:] else time.strftime("runs/gpu-confirm-%Y%m%d-%H%M%S"))
        )
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
