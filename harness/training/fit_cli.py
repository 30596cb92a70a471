"""``FitCLI``: LightningCLI for one fit (``trainer:``, ``model:``, ``data:``, ``run:``, ``out``).

The task's config (``configs/<task>.yaml``, its per-encoder values included) sets the defaults,
so any ``--config`` file and then any ``--section.key`` option wins over it. Classes are built
by :meth:`FitCLI.build`, which reads and checks every input file before ``run_fit`` touches the
run folder.
"""

from __future__ import annotations

import argparse
import re
import warnings
from argparse import ArgumentError
from pathlib import Path
from typing import Any

import lightning.pytorch as pl
from lightning.pytorch.cli import LightningArgumentParser, LightningCLI
from lightning.pytorch.utilities.exceptions import MisconfigurationException

from datamodules.datamodule import BenchmarkDataModule
from harness.commands.suggest import did_you_mean, options_in
from harness.training.callbacks import trainer_arguments
from harness.training.config import (
    ConfigError,
    chosen_task_and_encoder,
    list_task_configs,
    plain,
    task_defaults,
)
from harness.training.run_options import RunOptions
from harness.training.task_model import registered_task_model

# our defaults for Lightning's own: one device, repeatable CPU runs, no sanity check or summary
# (quiet), and the datamodule's own distributed sharding (docs/training.md, DDP)
TRAINER_DEFAULTS = {
    "devices": 1,
    "deterministic": "warn",
    "num_sanity_val_steps": 0,
    "enable_model_summary": False,
    "use_distributed_sampler": False,
    "log_every_n_steps": 50,
}
LITERAL = re.compile(r'key "([^"]+)": Expected a typing\.Literal\[(.*)\]\. Got value: (\S+)')
UNRECOGNIZED = re.compile(r"unrecognized arguments: (.*) \(see sanbench fit --help\)")
DESCRIPTION = """Train, validate and test one model. Defaults: the task's config
(harness/training/configs/<task>.yaml), then --config files, then options. Short forms:
--task (--data.task), --encoder (--model.encoder), --data-dir (--data.data_dir), --embeddings
(--data.embeddings), --seed (--seed_everything), --fold (--data.fold), --encoding
(--data.encoding); --overwrite deletes an --out folder holding another run (only a run
folder sanbench made, never a folder of yours)."""


def _one_line(error: ArgumentError) -> str:
    """jsonargparse's message in one line: the key and its first telling reason (with the lines
    that continue it), e.g. ``Parser key "trainer.logger": Problem with given class_path
    '...TensorBoardLogger': the following arguments are required: save_dir``."""
    lines = [line for line in str(error).splitlines() if line.strip()]
    reasons = [i for i, line in enumerate(lines) if line.lstrip().startswith("- ")]
    # an Optional's None alternative never says what is wrong (jsonargparse < 4.53 lists it first)
    telling = [i for i in reasons if "NoneType" not in lines[i]]
    reason = (telling or reasons or [None])[0]
    if reason is None:
        detail = lines[1:2]
    else:
        depth = len(lines[reason]) - len(lines[reason].lstrip())
        continued = []
        for line in lines[reason + 1 :]:
            if len(line) - len(line.lstrip()) <= depth:
                break
            continued.append(line)
        detail = [lines[reason].lstrip().removeprefix("- "), *continued]
    text = " ".join(part.strip() for part in [lines[0], *detail])
    return f"{text} (see sanbench fit --help)"


def _with_suggestion(message: str, parser: argparse.ArgumentParser | None) -> str:
    """``message`` with a did-you-mean: a mistyped option gets the closest one, a value outside
    a ``Literal`` (e.g. an encoder name) the closest choice instead of the type's dump."""
    literal = LITERAL.search(message)
    if literal:
        key, choices, value = (
            literal.group(1),
            re.findall(r"'([^']*)'", literal.group(2)),
            literal.group(3),
        )
        return (
            f"--{key} {value}: expected one of {', '.join(choices)}"
            f"{did_you_mean(value, choices)} (see sanbench fit --help)"
        )
    unknown = UNRECOGNIZED.search(message)
    if unknown and parser is not None:
        known = options_in(parser)
        words = [
            word + did_you_mean(word.partition("=")[0], known) if word.startswith("--") else word
            for word in unknown.group(1).split()
        ]
        return f"unrecognized arguments: {' '.join(words)} (see sanbench fit --help)"
    return message


class FitCLI(LightningCLI):
    """One fit's configuration, parsed from command-line words or a nested mapping."""

    def __init__(self, args: list[str] | dict[str, Any]) -> None:
        self.task, self.encoder = chosen_task_and_encoder(args)
        self.extra_callbacks: list[pl.Callback] = []
        try:
            with warnings.catch_warnings():  # args stand for sys.argv here, on purpose
                warnings.filterwarnings("ignore", message="LightningCLI's args parameter")
                super().__init__(
                    registered_task_model(),
                    BenchmarkDataModule,
                    save_config_callback=None,  # run_fit writes fit_config.yaml itself
                    trainer_defaults=TRAINER_DEFAULTS,
                    seed_everything_default=0,
                    parser_kwargs={
                        "prog": "sanbench fit",
                        "exit_on_error": False,
                        "description": DESCRIPTION,
                    },
                    args=args,
                    run=False,
                    auto_configure_optimizers=False,  # TaskModule has the papers' optimizers
                    load_from_checkpoint_support=False,  # TaskModule saves its own arguments
                )
        except ArgumentError as error:
            parser = getattr(self, "parser", None)  # set unless the parser itself failed
            raise ConfigError(_with_suggestion(_one_line(error), parser)) from None

    def add_arguments_to_parser(self, parser: LightningArgumentParser) -> None:
        parser.add_class_arguments(RunOptions, "run")
        parser.add_argument("--out", type=Path | None, default=None, help="the run folder")
        parser.link_arguments("seed_everything", "data.seed")
        parser.link_arguments("out", "trainer.default_root_dir")
        parser.link_arguments("data", "model.data", apply_on="instantiate")
        if self.task is not None:
            if self.task not in list_task_configs():
                raise ConfigError(
                    f"unknown task {self.task!r}; known: {', '.join(list_task_configs())}"
                )
            parser.set_defaults(task_defaults(self.task, self.encoder))

    def instantiate_classes(self) -> None:
        """Deferred to :meth:`build` (``run_fit`` calls it after :meth:`check`)."""

    def build(self, callbacks: list[pl.Callback] | None = None) -> None:
        """Datamodule (its data read), model and trainer; ``callbacks`` join the trainer's."""
        self.extra_callbacks = list(callbacks or [])
        try:
            super().instantiate_classes()
        except MisconfigurationException as error:  # a trainer value Lightning refuses
            raise ConfigError(f"{error} (see sanbench fit --help)") from None

    def instantiate_trainer(self, **kwargs: Any) -> pl.Trainer:
        trainer = self.config_init["trainer"]
        extra = trainer_arguments(
            RunOptions(**{k: plain(v) for k, v in self.config["run"].items()}),
            self.out_dir,
            self.datamodule.task.kind,
            trainer["enable_progress_bar"],
            trainer["logger"],
            [*(trainer["callbacks"] or []), *self.extra_callbacks],
        )
        return super().instantiate_trainer(**extra, **kwargs)

    @property
    def out_dir(self) -> Path:
        return Path(self.config["out"])

    def check(self) -> None:
        """What must hold before any data is read (jsonargparse checked the types): a positive
        batch size, folders and files that exist, a run folder."""
        data = self.config["data"]
        if data["batch_size"] < 1:
            raise ConfigError(
                f"data.batch_size must be a positive integer, got {data['batch_size']}"
            )
        if not Path(data["data_dir"]).is_dir():
            raise ConfigError(f"--data-dir {data['data_dir']}: no such folder")
        if data["embeddings"] is not None and not Path(data["embeddings"]).is_file():
            raise ConfigError(f"--embeddings {data['embeddings']}: no such file")
        if self.config["out"] is None:
            raise ConfigError("missing --out (the run folder)")

    def config_yaml(self) -> str:
        """The complete resolved config, as ``--print_config`` prints it (``--config`` runs it)."""
        return self.parser.dump(self.config, skip_unset=False)  # nulls too, as --print_config
