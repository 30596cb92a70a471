"""The LightningModule: word embeddings -> one encoder (tied across a pair) -> task head.

Training setup of Bi-BloSAN §4.1/§4.3/§4.4, DiSAN §5 and MTSA App. B: Glorot-initialised
weight matrices with zero biases (each encoder initialises itself per matrix of its paper's
equations; this module initialises only the head), fine-tuned word embeddings, dropout,
cross-entropy (or the App. C KL divergence for relatedness) plus an L2 penalty
gamma/2 * ||W||^2 on weight matrices, minimised with Adadelta or Adam.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict

import lightning.pytorch as pl
import torch
from lightning.pytorch.cli import LightningCLI, instantiate_class
from torch import nn
from torch.nn import functional as F
from torchmetrics import (
    MeanSquaredError,
    Metric,
    MetricCollection,
    PearsonCorrCoef,
    SpearmanCorrCoef,
)
from torchmetrics.classification import MulticlassAccuracy

from datamodules.task_spec import KINDS
from encoders import Encoder, build_encoder, encoder_entry
from encoders.layers.init import glorot_layers_
from encoders.registry import require_encoder
from harness.training.batch_mean import BatchMean
from harness.training.heads import (
    HEAD_HIDDEN,
    Classifier,
    head_input,
    head_input_dim,
    relatedness_loss,
    relatedness_score,
)
from harness.training.settings.task_configs import PAPERS_OPTIMIZER_KEYS, PAPERS_OPTIMIZERS

# The papers' training defaults (Bi-BloSAN §4.1, DiSAN §5.1): TaskModule's and fit's --model.*
OPTIMIZER = "adadelta"
LR = 0.5
WEIGHT_DECAY = 1e-4  # gamma of the L2 penalty
DROPOUT = 0.25
ACTIVATION = "relu"
ADADELTA_RHO = 0.95
EPS = 1e-8


class Vocabulary(TypedDict):
    """The token of every embedding row (``itos``) and whether input is lower-cased first."""

    itos: list[str]
    lowercase: bool


def metric_names(kind: str) -> tuple[str, ...]:
    """The metrics a task of ``kind`` scores each stage with (logged as ``{stage}_{name}``)."""
    return ("pearson", "spearman", "mse") if kind == "relatedness" else ("acc",)


def logged_metrics(kind: str) -> list[str]:
    """Every name the module logs in training and validation (``train_loss``, ``val_acc``):
    what a ``monitor`` (ReduceLROnPlateau, EarlyStopping, ModelCheckpoint) may watch."""
    return [
        f"{stage}_{name}" for stage in ("train", "val") for name in ("loss", *metric_names(kind))
    ]


def _metrics(kind: str, num_classes: int, stage: str) -> MetricCollection:
    made: dict[str, Any] = {
        "pearson": PearsonCorrCoef,
        "spearman": SpearmanCorrCoef,
        "mse": MeanSquaredError,
        "acc": lambda: MulticlassAccuracy(num_classes=num_classes, average="micro"),
    }
    metrics = {name: made[name]() for name in metric_names(kind)}
    return MetricCollection(metrics, prefix=f"{stage}_")


class TaskModule(pl.LightningModule):
    """The registered encoder ``encoder`` plus the head of ``kind`` ("single" | "pair" |
    "relatedness").

    Every constructor argument is a saved hyper-parameter, so ``TaskModule.load_from_checkpoint
    (path)`` rebuilds encoder and head exactly (``encoder_options`` are the builder's extra
    keywords, e.g. ``hidden_dim``); the vocabulary the embedding rows stand for is stored in the
    checkpoint too (``vocabulary``, set by ``task_model``). Pre-trained vectors are copied in with
    :meth:`set_embeddings`. ``encoder_source`` is recorded, not chosen: where a plugin encoder
    came from (``encoders.sources.EncoderSource``), imported again on loading if needed.
    """

    def __init__(
        self,
        encoder: str,
        kind: str,
        num_classes: int,
        vocab_size: int,
        embedding_dim: int,
        *,
        encoder_options: dict[str, Any] | None = None,
        labels: Sequence[str] = (),
        optimizer: str = OPTIMIZER,
        lr: float = LR,
        weight_decay: float = WEIGHT_DECAY,
        dropout: float = DROPOUT,
        head_hidden: int = HEAD_HIDDEN,
        activation: str = ACTIVATION,
        finetune_embeddings: bool = True,
        adadelta_rho: float = ADADELTA_RHO,
        eps: float = EPS,
        encoder_source: dict[str, str | None] | None = None,
        optimizer_init: dict[str, Any] | None = None,
        lr_scheduler_init: dict[str, Any] | None = None,
    ):
        super().__init__()
        require_encoder(encoder, encoder_source)
        if kind not in KINDS:
            raise ValueError(f"unknown task kind {kind!r}; expected one of {KINDS}")
        if optimizer not in PAPERS_OPTIMIZERS:
            raise ValueError(
                f"unknown optimizer {optimizer!r}; expected one of {', '.join(PAPERS_OPTIMIZERS)}"
            )
        self.save_hyperparameters()
        if optimizer_init is not None:  # --optimizer CLASS: the papers' keys did not run
            for key in PAPERS_OPTIMIZER_KEYS:
                self.hparams.pop(key)
        # where the encoder came from now, so that predict/encode can import it again
        self.hparams["encoder_source"] = encoder_entry(encoder).source.as_dict()
        self.kind = kind
        self.labels = list(labels)
        self.vocabulary: Vocabulary | None = None
        self.trained_precision: str | None = None
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=0)
        self.embedding.weight.requires_grad_(finetune_embeddings)
        options = {"dropout": dropout, **(encoder_options or {})}
        self.encoder: Encoder = build_encoder(encoder, input_dim=embedding_dim, **options)
        self.head = Classifier(
            head_input_dim(kind, self.encoder.output_dim),
            num_classes,
            head_hidden,
            dropout,
            activation,
        )
        glorot_layers_(self.head)
        self.train_metrics = _metrics(kind, num_classes, "train")
        self.val_metrics = _metrics(kind, num_classes, "val")
        self.test_metrics = _metrics(kind, num_classes, "test")
        # each stage's mean loss, in a metric (not Lightning's loop) that a checkpoint can hold
        self.train_loss, self.val_loss, self.test_loss = BatchMean(), BatchMean(), BatchMean()

    @torch.no_grad()
    def set_embeddings(self, matrix: torch.Tensor) -> None:
        """Copy pre-trained word vectors [vocab_size, embedding_dim] into the embedding."""
        if tuple(matrix.shape) != tuple(self.embedding.weight.shape):
            raise ValueError(
                f"embedding matrix of shape {tuple(matrix.shape)}; the module was built for "
                f"{tuple(self.embedding.weight.shape)} (vocab_size, embedding_dim)"
            )
        self.embedding.weight.copy_(matrix)

    def on_fit_start(self) -> None:
        self.trained_precision = str(self.trainer.precision)

    def on_save_checkpoint(self, checkpoint: dict[str, Any]) -> None:
        """Store the vocabulary and the training precision beside the weights."""
        if self.vocabulary is not None:
            checkpoint["vocabulary"] = dict(self.vocabulary)
        if self.trained_precision is not None:
            checkpoint["precision"] = self.trained_precision

    def on_load_checkpoint(self, checkpoint: dict[str, Any]) -> None:
        if "vocabulary" in checkpoint:
            self.vocabulary = Vocabulary(**checkpoint["vocabulary"])
        self.trained_precision = checkpoint.get("precision")

    def encode(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.encoder(self.embedding(tokens), mask).pooled

    def forward(self, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        """Logits [B, num_classes]; the encoder's parameters are shared by both sentences."""
        if self.kind == "single":
            return self.head(self.encode(batch["tokens"], batch["mask"]))
        s_a = self.encode(batch["tokens_a"], batch["mask_a"])
        s_b = self.encode(batch["tokens_b"], batch["mask_b"])
        return self.head(head_input(self.kind, s_a, s_b))

    def _step(self, batch: dict[str, torch.Tensor], stage: str) -> torch.Tensor:
        logits = self(batch)
        metrics = getattr(self, f"{stage}_metrics")
        if self.kind == "relatedness":
            loss = relatedness_loss(logits, batch["target"])
            metrics.update(relatedness_score(logits).float(), batch["label"].float())
        else:
            loss = F.cross_entropy(logits, batch["label"])
            metrics.update(logits.argmax(dim=-1), batch["label"])
        batch_size = batch["label"].shape[0]
        mean_loss = getattr(self, f"{stage}_loss")
        mean_loss.update(loss, batch_size)
        self.log(f"{stage}_loss", mean_loss, on_step=False, on_epoch=True, batch_size=batch_size)
        # the terminal's progress bar shows the latest dev metric beside the loss
        self.log_dict(
            metrics, on_step=False, on_epoch=True, batch_size=batch_size, prog_bar=stage == "val"
        )
        return loss

    def running_metrics(self, stage: str) -> dict[str, Metric]:
        """The metrics a ``stage`` ("train", "val", "test") accumulates over its epoch, by their
        logged names (``train_loss``, ``train_acc``, ...)."""
        collection = getattr(self, f"{stage}_metrics")
        return {
            f"{stage}_loss": getattr(self, f"{stage}_loss"),
            **dict(collection.items(copy_state=False)),
        }

    def training_step(self, batch: dict[str, torch.Tensor], batch_idx: int) -> torch.Tensor:
        return self._step(batch, "train")

    def validation_step(self, batch: dict[str, torch.Tensor], batch_idx: int) -> None:
        self._step(batch, "val")

    def test_step(self, batch: dict[str, torch.Tensor], batch_idx: int) -> None:
        self._step(batch, "test")

    def predict_step(self, batch: dict[str, torch.Tensor], batch_idx: int) -> torch.Tensor:
        """Class probabilities [B, num_classes], or the relatedness score [B] (App. C eq. 25)."""
        logits = self(batch)
        if self.kind == "relatedness":
            return relatedness_score(logits.float())
        return torch.softmax(logits.float(), dim=-1)

    def memory_by_shape(self) -> bool:
        """Whether a training step's memory follows from its batch's shape alone: the encoder's
        declaration (``register_encoder``'s ``memory_by_shape``) on this device; the embedding,
        the head and the loss take memory by shape."""
        return encoder_entry(self.hparams["encoder"]).memory_by_shape(self.encoder, self.device)

    def parameter_count(self) -> int:
        """|theta| as the papers count it: every parameter except the word embedding."""
        return sum(p.numel() for n, p in self.named_parameters() if not n.startswith("embedding."))

    def configure_optimizers(self) -> Any:
        """L2 penalty gamma on weight matrices only (not biases, vectors, or the embedding).

        Coupled ``weight_decay`` adds gamma * W to the gradient, i.e. the gradient of
        gamma/2 * ||W||^2 (TensorFlow's ``gamma * tf.nn.l2_loss(W)`` in the authors' code).
        The optimizer is the papers' (``optimizer``: Adadelta or Adam) unless ``optimizer_init``
        names a class (``--optimizer``), built on the same groups; an ``lr_scheduler_init``
        (``--lr_scheduler``) steps it as LightningCLI's own ``configure_optimizers`` returns it.
        """
        decay, no_decay = [], []
        for name, param in self.named_parameters():
            if not param.requires_grad:
                continue
            is_matrix = param.ndim >= 2 and not name.startswith("embedding.")
            (decay if is_matrix else no_decay).append(param)
        groups = [
            {"params": decay, "weight_decay": self.hparams.weight_decay},
            {"params": no_decay, "weight_decay": 0.0},
        ]
        chosen = self.hparams.get("optimizer_init")  # absent from older checkpoints
        scheduler = self.hparams.get("lr_scheduler_init")
        if chosen:
            optimizer = instantiate_class(groups, chosen)
        elif self.hparams.optimizer == "adam":
            optimizer = torch.optim.Adam(groups, lr=self.hparams.lr, eps=self.hparams.eps)
        else:
            optimizer = torch.optim.Adadelta(
                groups, lr=self.hparams.lr, rho=self.hparams.adadelta_rho, eps=self.hparams.eps
            )
        if not scheduler:
            return optimizer
        return LightningCLI.configure_optimizers(
            self, optimizer, instantiate_class(optimizer, scheduler)
        )
