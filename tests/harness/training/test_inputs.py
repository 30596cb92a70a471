"""Every data and vectors file a set of fits needs, read before any training
(harness/training/inputs.py), and its refusal said as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.harness.refusal_scratch import refused, scratch

# each command's words without its vectors file, and the config key that names one
COMMANDS = {
    "fit": (
        ["fit", "--data.task", "trec", "--model.encoder", "bilstm", "--out", "runs/f"],
        "data.",
    ),
    "suite": (["suite", "--tasks", "trec", "--encoders", "bilstm", "--out", "runs/s"], ""),
    "reproduce": (["reproduce", "--tasks", "trec", "--encoders", "bilstm", "--out", "runs/r"], ""),
    "tune": (["tune", "--study", "dropout", "--task", "trec", "--encoder", "bilstm"], ""),
}
BAD_LINE = (
    "line 2: expected a word and 2 values; found 1 values in 'cat 0.3'; fix: use GloVe or"
    " word2vec text format: 'word v1 ... vD' per line, optional 'N D' header"
)
KEY_SAYS = "{key}embeddings bad.vec: {line} (read beside the config file: {root}/sub/bad.vec)"
WAYS = {  # how the vectors file is given -> what each line says
    "flag": (["--embeddings", "sub/bad.vec"], None, ["--embeddings sub/bad.vec: {line}"]),
    "config": (["--config", "sub/c.yaml"], None, [f"--config sub/c.yaml: {KEY_SAYS}"]),
    "config, an unknown key beside": (
        ["--config", "sub/c.yaml"],
        "bogus",
        ["--config sub/c.yaml: unknown key bogus", f"--config sub/c.yaml: {KEY_SAYS}"],
    ),
}


@pytest.mark.parametrize("way", list(WAYS))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_bad_vectors_line_read_late_is_led_by_the_option_that_gave_the_file(
    command: str, way: str, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 56: beside a data folder holding the task's files, the vectors file is read with
    the data, and its bad line was said by the path read (fit ``sub/bad.vec:2: ...``, a config
    file's ``/abs/sub/bad.vec:2: ...``, suite's absolute for a flag too), and beside a config
    file's unknown key not at all. Now each command says it as ``data stats`` does, led by the
    option or key that gave the file, as written, every problem at once, nothing made."""
    words, key = COMMANDS[command]
    given, unknown, said = WAYS[way]
    section = "data:\n  embeddings: bad.vec\n" if key else "embeddings: bad.vec\n"
    config = section + (f"{unknown}: 1\n" if unknown else "")
    files = {"sub/bad.vec": "the 0.1 0.2\ncat 0.3\n", "sub/c.yaml": config}
    with scratch(trec_dir, files) as root:
        err = refused(root, [*words, "--data-dir", "trec", *given], capsys)
    lines = [line for line in err.splitlines() if not line.endswith("--help)")]
    lines = [line for line in lines if not line.startswith("warning:")]
    expected = [s.format(key=key, line=BAD_LINE, root=root) for s in said]
    assert lines == [f"sanbench {command}: {line}" for line in expected]
