"""Per-example test predictions with sentence lengths (DiSAN's accuracy-vs-length figure).

``test_predictions.csv``: ``index`` (row in the test split), ``length`` (real tokens of the
sentence, the first one of a pair), ``length_b`` (pairs only), ``label``, ``prediction``
(the argmax class, or the Bi-BloSAN App. C eq. (25) score for relatedness).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from pathlib import Path

import torch

from harness.training.heads import relatedness_score
from harness.training.module import TaskModule

FILE_NAME = "test_predictions.csv"


@torch.no_grad()
def write_test_predictions(
    module: TaskModule, batches: Iterable[dict[str, torch.Tensor]], device: torch.device, path: Path
) -> Path:
    """Run ``module`` in eval mode over ``batches`` and write one CSV row per example."""
    module.eval().to(device)
    pair = module.kind != "single"
    columns = ["index", "length", *(["length_b"] if pair else []), "label", "prediction"]
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        for batch in batches:
            logits = module({k: v.to(device) for k, v in batch.items()})
            if module.kind == "relatedness":
                predicted = relatedness_score(logits).cpu().tolist()
            else:
                predicted = logits.argmax(dim=-1).cpu().tolist()
            lengths = [batch["mask_a" if pair else "mask"].sum(dim=-1).tolist()]
            lengths += [batch["mask_b"].sum(dim=-1).tolist()] if pair else []
            writer.writerows(
                zip(
                    batch["index"].tolist(),
                    *lengths,
                    batch["label"].tolist(),
                    predicted,
                    strict=True,
                )
            )
    tmp.replace(path)
    return path
