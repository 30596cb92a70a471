"""Parameter counts of every encoder under the SNLI configuration, beside the papers' |θ|.

|θ| excludes the word embeddings (Bi-BloSAN Table 1, MTSA Table 1). Ours is the encoder
built for 300-d GloVe inputs with the SNLI config (``harness/training/configs/snli.yaml``:
``hidden_dim``, ``encoder_options``) plus its head [s_p; s_h; s_p - s_h; s_p ⊙ s_h] ->
``head_hidden``-d FC -> 3 (Bi-BloSAN Sec. 4.1, ``harness.training.heads.Classifier``), the
same count ``TaskModule.parameter_count`` reports. No training needed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from torch import nn

from encoders import build_encoder, list_encoders
from harness.suite.table_files import Table
from harness.training.heads import Classifier, head_input_dim
from harness.training.settings.fit_run import FitRun
from reports.numbers import MISSING
from reports.paper_numbers import BI_BLOSAN, DISAN, MTSA, PaperValue, lookup

SNLI_INPUT_DIM = 300
SNLI_CLASSES = 3


@dataclass(frozen=True)
class ParamSpec:
    """One row: a registered encoder, builder overrides and where the paper's |θ| is."""

    label: str
    encoder: str
    overrides: tuple[tuple[str, Any], ...] = ()
    paper: tuple[str, str] | None = None  # (paper, table) holding the SNLI |θ|


# The models whose |θ| the papers print; the builders' defaults are the papers' sizes.
PAPER_ROWS = (
    ParamSpec("DiSAN", "disan", paper=(DISAN, "SNLI text")),
    ParamSpec("Bi-LSTM", "bilstm", paper=(BI_BLOSAN, "Table 1")),
    ParamSpec("Bi-GRU", "bigru", paper=(BI_BLOSAN, "Table 1")),
    ParamSpec("Bi-SRU", "bisru", paper=(BI_BLOSAN, "Table 1")),
    ParamSpec("Multi-CNN", "multi_cnn", paper=(BI_BLOSAN, "Table 1")),
    ParamSpec("Hrchy-CNN", "hrchy_cnn", paper=(BI_BLOSAN, "Table 1")),
    ParamSpec("Multi-head", "multi_head", paper=(BI_BLOSAN, "Table 1")),
    ParamSpec("600D Bi-BloSAN", "bi_blosan", (("hidden_dim", 300),), (MTSA, "Table 1")),
    ParamSpec("480D Bi-BloSAN", "bi_blosan", (("hidden_dim", 240),), (BI_BLOSAN, "Table 1")),
    ParamSpec("MTSA", "mtsa", paper=(MTSA, "Table 1")),
)


@dataclass(frozen=True)
class ParamRow:
    spec: ParamSpec
    output_dim: int
    encoder_params: int
    head_params: int
    paper: PaperValue | None

    @property
    def total_params(self) -> int:
        return self.encoder_params + self.head_params

    @property
    def deviation(self) -> float | None:
        """(ours with head - paper) / paper."""
        return None if self.paper is None else self.total_params / self.paper.value - 1

    @property
    def deviation_without_head(self) -> float | None:
        return None if self.paper is None else self.encoder_params / self.paper.value - 1


def count(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


def snli_head_params(output_dim: int, hidden: int) -> int:
    """Parameters of the SNLI classifier on top of ``output_dim``-d sentence encodings."""
    width = head_input_dim("pair", output_dim)
    head = Classifier(width, SNLI_CLASSES, hidden, dropout=0.0, activation="relu")
    return count(head)


def param_specs(encoders: Iterable[str] | None = None) -> list[ParamSpec]:
    """The paper rows whose encoder is registered, then every other registered encoder; of
    ``encoders`` only, when given (one a plugin registered, not imported now, is left out)."""
    known = list_encoders()
    registered = known if encoders is None else [name for name in encoders if name in known]
    specs = [spec for spec in PAPER_ROWS if spec.encoder in registered]
    listed = {spec.encoder for spec in specs}
    specs.extend(ParamSpec(name, name) for name in registered if name not in listed)
    return specs


def param_row(spec: ParamSpec) -> ParamRow:
    """Build ``spec``'s encoder as the SNLI run would (config, then the row's overrides)."""
    from harness.training.settings.task_model import (
        builder_options,
    )  # Lightning: not for `suite --help`

    model = FitRun("snli", spec.encoder, Path("."), Path(".")).resolved()["model"]
    options = builder_options(
        spec.encoder,
        model["hidden_dim"],
        model["encoder_options"],
        width_scale=model.get("width_scale"),
    )
    options.update(spec.overrides)
    encoder = build_encoder(spec.encoder, input_dim=SNLI_INPUT_DIM, **options)
    paper = None if spec.paper is None else lookup(*spec.paper, spec.encoder, "snli", "params")
    return ParamRow(
        spec=spec,
        output_dim=encoder.output_dim,
        encoder_params=count(encoder),
        head_params=snli_head_params(encoder.output_dim, model["head_hidden"]),
        paper=paper,
    )


def param_rows(encoders: Iterable[str] | None = None) -> list[ParamRow]:
    return [param_row(spec) for spec in param_specs(encoders)]


def _millions(value: float) -> str:
    return f"{value / 1e6:.2f}m"


def _percent(value: float | None) -> str:
    return MISSING if value is None else f"{value:+.1%}"


def params_table(rows: list[ParamRow]) -> Table:
    header = [
        "model",
        "encoder",
        "overrides",
        "output dim",
        "encoder params",
        "SNLI head params",
        "total (ours)",
        "|θ| paper",
        "deviation",
        "deviation w/o head",
        "paper source",
    ]
    table = Table(
        name="params",
        title="Parameters under the SNLI configuration (word embeddings excluded)",
        header=header,
        notes=[
            f"Inputs {SNLI_INPUT_DIM}-d, configs/snli.yaml; head [s_p; s_h; s_p - s_h; "
            f"s_p * s_h] -> head_hidden-d FC -> {SNLI_CLASSES} (Bi-BloSAN Sec. 4.1).",
            "deviation = total (ours) / |θ| paper - 1; beyond ±10% is explained in docs/suite.md.",
        ],
    )
    for row in rows:
        paper = row.paper
        table.rows.append(
            [
                row.spec.label,
                row.spec.encoder,
                ", ".join(f"{k}={v}" for k, v in row.spec.overrides) or "defaults",
                str(row.output_dim),
                f"{row.encoder_params:,}",
                f"{row.head_params:,}",
                f"{row.total_params:,}",
                MISSING if paper is None else _millions(paper.value),
                _percent(row.deviation),
                _percent(row.deviation_without_head),
                MISSING if paper is None else f"{paper.paper}, {paper.table}",
            ]
        )
    return table
