"""``sanbench fit``: train, validate and test one model, configured through LightningCLI.

    sanbench fit --task trec --encoder bi_blosan --data-dir D --embeddings FILE --out DIR \\
        --trainer.max_steps 50 --model.optimizer adam --model.dropout 0.3
    sanbench fit --task trec --encoder bi_blosan --data-dir D --print_config > trec.yaml
    sanbench fit --config trec.yaml --out DIR --model.dropout 0.2

The words after ``fit`` go to :class:`harness.training.fit_cli.FitCLI` (``--help`` lists
every option with its type and default), after the short forms below are spelled out.
"""

from __future__ import annotations

import json

OWN_PARSER = True  # harness.cli hands every word after ``fit`` to ``run``
SHORT_FORMS = {
    "--task": "--data.task",
    "--encoder": "--model.encoder",
    "--data-dir": "--data.data_dir",
    "--embeddings": "--data.embeddings",
    "--seed": "--seed_everything",
    "--fold": "--data.fold",
    "--encoding": "--data.encoding",
    "--print-config": "--print_config",
}
OVERWRITE = "--overwrite"  # not a config value (harness.cli takes ``--debug`` out of the words)


def spelled_out(words: list[str]) -> list[str]:
    """``words`` with the short forms replaced by LightningCLI's keys (``--task=x`` too)."""
    result = []
    for word in words:
        key, equals, value = word.partition("=")
        result.append(SHORT_FORMS.get(key, key) + equals + value)
    return result


def run(words: list[str]) -> int:
    overwrite = OVERWRITE in words
    words = [w for w in words if w != OVERWRITE]
    from harness.training.config import seed_message_hidden
    from harness.training.fit_cli import FitCLI

    with seed_message_hidden():
        cli = FitCLI(spelled_out(words))
    from harness.training.run import run_fit

    metrics = run_fit(cli, overwrite=overwrite)
    summary = {k: v for k, v in metrics.items() if k not in ("config", "versions")}
    if cli.trainer.is_global_zero:  # under DDP every process returns here; one prints
        print(json.dumps(summary, indent=2))
    return 0
