"""``block-length-memory``: mBloSA's peak forward memory over r for several n (no training).

Each trial measures one grid point (n, r): one forward of a single mBloSA layer (Bi-BloSAN
Eq. 11-18) on synthetic [B, n, d] inputs, every token real, with the profiler's peak-memory
measure (``harness.measurement.tensor_memory.memory_step``: live tensors at the allocator
level). The blocks' tanh attention is the one Appendix A counts, the naive one holding
[B, d, r, r] scores (``--attention-impl naive``, the default), or sanbench's chunked one
(``chunked``, the encoders' default), whose memory hardly depends on r. The
summary compares, per n, the measured argmin over r with Eq. 19's r = cbrt(2n), with the
r = ceil(cbrt(2n)) the encoder is given when profiled at length n (``block_length``) and with
the argmin of Eq. 19's cost r^2 m + m^2 taken over the integers with m = ceil(n / r) (blocks
padded to full length, as implemented). A block is at most the sentence (r <= n): a longer
one is the sentence padded, a point Appendix A's argmin per n never is; the best trial is
given per n.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import optuna
import torch
from torch import nn

from encoders.layers.block_length import memory_optimal_r
from harness.measurement.environment import environment
from harness.studies.plans import BLOCK_LENGTH_MEMORY, R_RANGE, StudyPlan, TuneContext
from harness.studies.trial_environment import record_environment

MEMORY = "peak_mem_mb"


class FixedBlockMBloSA(nn.Module):
    """One forward mBloSA layer with a fixed block length and tanh attention ``impl``, called
    as ``model(x, mask)``."""

    def __init__(self, dim: int, block_len: int, impl: str):
        super().__init__()
        from encoders.layers.mblosa import MaskedBlockSelfAttention

        self.mblosa = MaskedBlockSelfAttention(dim, "forward", impl=impl)
        self.block_len = block_len

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.mblosa(x, mask, self.block_len)


def peak_forward_mb(
    seq_len: int, block_len: int, batch: int, dim: int, device: str, impl: str
) -> float:
    """Peak MB of one inference forward of mBloSA on synthetic [batch, seq_len, dim] inputs."""
    from harness.measurement.profiled_step import Point, make_step, synthetic_batch
    from harness.measurement.tensor_memory import MB, live_bytes, memory_step

    target = torch.device(device)
    torch.manual_seed(0)
    model = FixedBlockMBloSA(dim, block_len, impl).to(target)
    x, mask = synthetic_batch(Point("mblosa", seq_len, "infer", batch, dim), target)
    step = make_step(model, x, mask, "infer", "fp32")
    baseline = live_bytes([*model.parameters(), *model.buffers(), x, mask])
    peak, _ = memory_step(step, target, baseline)
    return peak / MB


def block_lengths(n: int) -> range:
    """The block lengths r tried at length n: ``R_RANGE`` up to the sentence (r <= n; the
    smallest r where n is shorter)."""
    low, high = R_RANGE
    return range(low, max(low, min(high, n)) + 1)


def grid_sampler() -> optuna.samplers.BaseSampler:
    """Every (n, r) once, r's range following n (optuna's exhaustive define-by-run sampler,
    which it marks experimental: its warning is optuna's, not the user's)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        return optuna.samplers.BruteForceSampler(avoid_premature_stop=True)


def eq19_cost(n: int, r: int) -> int:
    """Eq. 19's cost r^2 m + m^2 with m = ceil(n / r) whole blocks."""
    m = math.ceil(n / r)
    return r * r * m + m * m


def compare(trials: list[optuna.trial.FrozenTrial]) -> list[dict[str, Any]]:
    """Per n: measured argmin r (smallest on ties) against Eq. 19 and the encoder's r."""
    from encoders.layers.block_length import block_length

    by_n: dict[int, dict[int, float]] = {}
    for trial in trials:
        by_n.setdefault(trial.params["seq_len"], {})[trial.params["block_len"]] = trial.value
    rows = []
    for n, memory in sorted(by_n.items()):
        best = min(memory, key=lambda r: (memory[r], r))
        default = block_length(n)
        model_best = min(block_lengths(n), key=lambda r: (eq19_cost(n, r), r))
        rows.append(
            {
                "seq_len": n,
                "r_measured": best,
                "mem_measured_mb": memory[best],
                "r_eq19": memory_optimal_r(n),
                "r_eq19_int_cost": model_best,
                "r_encoder": default,
                "mem_at_r_encoder_mb": memory.get(default),
                "excess_at_r_encoder": (
                    memory[default] / memory[best] - 1.0 if default in memory else None
                ),
                "points": len(memory),
            }
        )
    return rows


def plan(ctx: TuneContext) -> StudyPlan:
    lengths = sorted(set(ctx.lengths))

    def objective(trial: optuna.Trial) -> float:
        n = trial.suggest_categorical("seq_len", lengths)
        r = trial.suggest_int("block_len", block_lengths(n)[0], block_lengths(n)[-1])
        trial.set_user_attr("eq19_cost", eq19_cost(n, r))
        record_environment(trial, environment(torch.device(ctx.device)))
        return peak_forward_mb(n, r, ctx.batch_size, ctx.dim, ctx.device, ctx.attention_impl)

    def summarize(study: optuna.Study) -> dict[str, Any]:
        done = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
        return {
            "shape": f"[{ctx.batch_size}, n, {ctx.dim}]",
            "device": ctx.device,
            "attention_impl": ctx.attention_impl,
            "per_length": compare(done),
        }

    return StudyPlan(
        name=BLOCK_LENGTH_MEMORY,
        metric_names=[MEMORY],
        directions=["minimize"],
        objective=objective,
        default_trials=sum(len(block_lengths(n)) for n in lengths),
        sampler=grid_sampler(),
        pruner=optuna.pruners.NopPruner(),
        summarize=summarize,
        notes=[
            f"No training: a grid over (n, r), r = {R_RANGE[0]}..min({R_RANGE[1]}, n) (a block no "
            "longer than the sentence); each trial is one measured forward.",
            f"The blocks' tanh attention: {ctx.attention_impl}.",
        ],
        best_per="seq_len",
    )
