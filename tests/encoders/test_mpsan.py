"""MPSAN-specific properties: masks entry by entry, Eq. 1-16 against a literal loop, sizes."""

from __future__ import annotations

import math

import pytest
import torch
from torch.nn.functional import elu, relu

from encoders import build_encoder
from encoders.models.mpsan import MASK_STUDY, MPSAN, PositionalSelfAttention, positional_mask

# MPSAN "Positional Self-Attention Layer": "In our model, we set c = 5 to obtain stable output";
# "All the activation functions sigma(.) are Exponential Linear Unit (ELU) if they are not
# specified" (Experimental Settings), so Eq. 6's sigma is ELU.
C = 5.0
SPECS = ["fa2", "fa3", "bw", "fw", "bw+sd", "fw+sd", "bw+d", "fw+d", "fa2+sd", "fa1"]


def paper_mask(spec: str, i: int, j: int, inclusive: bool = True) -> float:
    """M_ij from Eq. 8-12 (i: the attended word, j: the target word); ``inclusive=False`` is the
    authors' code's faraway window, |i - j| < m."""
    base, _, penalty = spec.partition("+")
    if base == "bw":
        allowed = i < j  # Eq. 9
    elif base == "fw":
        allowed = i > j  # Eq. 10
    else:
        window = int(base[2:])
        inside = abs(i - j) <= window if inclusive else abs(i - j) < window
        allowed = inside and i != j  # Eq. 8
    if not allowed:
        return -math.inf
    if penalty == "d":
        return -abs(i - j) if i != j else 0.0  # Eq. 11
    if penalty == "sd":
        return -math.log(abs(i - j)) if i != j else 0.0  # Eq. 12
    return 0.0


@pytest.mark.parametrize("spec", SPECS)
def test_masks_entry_by_entry(spec: str) -> None:
    length = 7
    mask = positional_mask(spec, length)
    for i in range(length):
        for j in range(length):
            expected = paper_mask(spec, i, j)
            assert mask[j, i].item() == pytest.approx(expected), (spec, i, j)


def test_mask_examples_by_hand() -> None:
    fa2 = positional_mask("fa2", 5)
    assert fa2[2].isfinite().tolist() == [True, True, False, True, True]
    bw_sd = positional_mask("bw+sd", 4)
    assert bw_sd[3].tolist() == pytest.approx([-math.log(3), -math.log(2), 0.0, -math.inf])
    fw_d = positional_mask("fw+d", 4)
    assert fw_d[0].tolist() == [-math.inf, -1.0, -2.0, -3.0]


@pytest.mark.parametrize("spec", ["bw+sd+d", "fa0", "fa", "up", "BW"])
def test_bad_mask_names_are_rejected(spec: str) -> None:
    with pytest.raises(ValueError, match="MPSAN"):
        positional_mask(spec, 3)


def slow_mpsan(
    encoder: MPSAN, w: torch.Tensor, length: int, score: str, code: bool = False
) -> tuple[torch.Tensor, torch.Tensor]:
    """Eq. 1, 6, 7, 15, 16 and the source2token layer for one sentence w [L, d_e], by loops,
    with the paper's c = 5 and the score function ``score`` (ELU in the paper). ``code``: the
    authors' code, ReLU for sigma and faraway windows |i - j| < m."""
    sigma = relu if code else elu
    att, fusion, s2t = encoder.attention, encoder.fusion, encoder.source2token
    hidden, c = att.hidden_dim, C
    units = []
    for k, spec in enumerate(att.masks):
        W_h = att.dense.weight[k * hidden : (k + 1) * hidden]
        b_h = att.dense.bias[k * hidden : (k + 1) * hidden]
        U, V, b = att.key_weight[k], att.query_weight[k], att.bias[k]
        h = [sigma(W_h @ w[t] + b_h) for t in range(length)]
        s = []
        for j in range(length):
            keys = [i for i in range(length) if paper_mask(spec, i, j, not code) > -math.inf]
            if not keys:
                s.append(torch.zeros(hidden, dtype=w.dtype))
                continue
            raw = [(U @ h[i] + V @ h[j] + b) / c for i in keys]
            f = [elu(r) if score == "elu" else c * torch.tanh(r) for r in raw]
            logits = torch.stack(
                [f[n] + paper_mask(spec, i, j, not code) for n, i in enumerate(keys)]
            )
            p = torch.softmax(logits, dim=0)
            s.append(sum(p[n] * h[i] for n, i in enumerate(keys)))
        units.append(s)
    o = torch.zeros(w.shape[0], hidden, dtype=w.dtype)
    for j in range(length):
        own = w[j] if fusion.project is None else fusion.project.weight @ w[j] + fusion.project.bias
        sources = torch.stack([unit[j] for unit in units] + [own])  # [k + 1, H]
        a = torch.softmax(
            (fusion.weight.weight @ w[j] + fusion.weight.bias).view(len(units) + 1, hidden), dim=0
        )
        o[j] = (a * sources).sum(0)
    scores = torch.stack(
        [
            s2t.score.weight @ sigma(s2t.hidden.weight @ o[i] + s2t.hidden.bias) + s2t.score.bias
            for i in range(length)
        ]
    )
    p = torch.softmax(scores, dim=0)
    return o, sum(p[i] * o[i] for i in range(length))


@pytest.mark.parametrize(
    ("input_dim", "options", "score"),
    [
        (5, {}, "elu"),  # the defaults: the paper's masks, c and score function
        (4, {"masks": MASK_STUDY["model6"]}, "elu"),
        (5, {"masks": MASK_STUDY["model5"], "score": "scaled_tanh"}, "scaled_tanh"),
        (5, {"variant": "code"}, "scaled_tanh"),  # the authors' code: 5 tanh(x/5), ReLU, < m
        (4, {"variant": "code", "score": "elu"}, "elu"),  # an explicit score wins
    ],
)
def test_encoder_matches_literal_equations(input_dim: int, options: dict, score: str) -> None:
    torch.manual_seed(0)
    encoder = build_encoder("mpsan", input_dim=input_dim, hidden_dim=4, **options)
    if not options:  # MPSAN = fa(2), fa(3), bw + sd, fw + sd (Table 2, last row; Eq. 16)
        assert encoder.attention.masks == ("fa2", "fa3", "bw+sd", "fw+sd")
    encoder = encoder.double().eval()
    assert (encoder.fusion.project is None) == (input_dim == 4)
    w = torch.randn(2, 6, input_dim, dtype=torch.double) * 2
    mask = torch.tensor([[True] * 6, [True] * 3 + [False] * 3])
    out = encoder(w, mask)
    for b, length in enumerate(mask.sum(1).tolist()):
        tokens, pooled = slow_mpsan(encoder, w[b], length, score, options.get("variant") == "code")
        torch.testing.assert_close(out.tokens[b], tokens)
        torch.testing.assert_close(out.pooled[b], pooled)


@pytest.mark.parametrize(
    ("spec", "seen", "hidden"), [("bw", slice(0, 3), 3), ("fw", slice(3, 6), 2)]
)
def test_direction_of_bw_and_fw_units(spec: str, seen: slice, hidden: int) -> None:
    """MPSAN's bw (Eq. 9) reads earlier words only, fw (Eq. 10) later words only."""
    torch.manual_seed(0)
    layer = PositionalSelfAttention(5, 4, (spec,)).eval()
    w, mask = torch.randn(1, 6, 5), torch.ones(1, 6, dtype=torch.bool)
    other = w.clone()
    other[:, hidden] = torch.randn(5)
    before, after = layer(w, mask), layer(other, mask)
    torch.testing.assert_close(after[:, :, seen], before[:, :, seen], rtol=0, atol=0)
    assert not torch.allclose(after, before)
    edge = 0 if spec == "bw" else 5  # nothing to attend to: zero, not NaN
    assert torch.all(before[0, 0, edge] == 0)


def test_distance_and_scaled_distance_variants_differ() -> None:
    w, mask = torch.randn(2, 9, 8), torch.ones(2, 9, dtype=torch.bool)
    outputs = []
    for masks in (MASK_STUDY["mpsan"], MASK_STUDY["model6"], MASK_STUDY["model4"]):
        torch.manual_seed(0)
        encoder = build_encoder("mpsan", input_dim=8, hidden_dim=8, masks=masks).eval()
        outputs.append(encoder(w, mask).pooled)
    assert not torch.allclose(outputs[0], outputs[1])
    assert not torch.allclose(outputs[1], outputs[2])


@pytest.mark.parametrize("name", sorted(MASK_STUDY))
def test_every_mask_study_model_builds_and_runs(name: str) -> None:
    encoder = build_encoder("mpsan", input_dim=6, hidden_dim=4, masks=MASK_STUDY[name])
    out = encoder(torch.randn(2, 5, 6), torch.tensor([[True] * 5, [True] + [False] * 4]))
    assert out.pooled.shape == (2, 4) and torch.isfinite(out.pooled).all()
    assert encoder.fusion.sources == len(MASK_STUDY[name]) + 1


def test_bad_options_are_rejected() -> None:
    with pytest.raises(ValueError, match="at least one mask"):
        build_encoder("mpsan", masks=())
    with pytest.raises(ValueError, match="score"):
        build_encoder("mpsan", score="relu")
    with pytest.raises(ValueError, match="variant"):
        build_encoder("mpsan", variant="tf")


def test_code_variant_windows_stop_before_m() -> None:
    """The authors' code keeps |i - j| < m: fa2 then sees only the neighbours."""
    strict = positional_mask("fa2", 5, inclusive=False)
    assert strict.isfinite().sum(dim=1).tolist() == [1, 2, 2, 2, 1]
    assert positional_mask("fa2", 5).isfinite().sum(dim=1).tolist() == [2, 3, 4, 3, 2]


def test_parameter_count_matches_the_paper() -> None:
    """4 units x (W_h 300x300 + 300, U, V, b) + W_P 300x1500 + b_P + source2token on 300-d.

    The paper's 1.09m (SST, Tables 3-5) also counts the 300-d FC layer and the 5-way output.
    """
    encoder = build_encoder("mpsan")
    count = sum(p.numel() for p in encoder.parameters())
    units = 4 * (300 * 300 + 300 + 300 + 300 + 1)
    assert count == units + (300 * 1500 + 1500) + 2 * (300 * 300 + 300) == 995_704
    sst_classifier = (300 * 300 + 300) + (300 * 5 + 5)
    assert round((count + sst_classifier) / 1e6, 2) == 1.09
