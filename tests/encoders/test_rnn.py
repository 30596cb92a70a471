"""Recurrent baselines: SRU equations, directions, padding, parameter counts vs the papers."""

from __future__ import annotations

import pytest
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from encoders import build_encoder
from encoders.layers.reverse import reversed_index
from encoders.models.rnn import BiRNN
from encoders.models.sru import BiSRU, SRUDirection

RNNS = ["bilstm", "bigru", "bisru", "bilstm_s2t"]
HIDDEN = 5


def small(name: str) -> torch.nn.Module:
    torch.manual_seed(0)
    return build_encoder(name, input_dim=4, hidden_dim=HIDDEN).eval()


def padded(lengths: list[int], max_len: int, dim: int = 4, seed: int = 0):
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(len(lengths), max_len, dim, generator=generator)
    mask = torch.arange(max_len) < torch.tensor(lengths).unsqueeze(1)
    return x, mask


def slow_sru(cell: SRUDirection, x: torch.Tensor) -> torch.Tensor:
    """Literal Lei & Zhang (2017) Eq. 1-4, one step at a time, for one unpadded sentence [L, D]."""
    hidden = cell.hidden_dim
    weight = cell.gates.weight
    w, w_f, w_r = weight[:hidden], weight[hidden : 2 * hidden], weight[2 * hidden :]
    b_f, b_r = cell.gate_bias[:hidden], cell.gate_bias[hidden:]
    c = torch.zeros(hidden)
    outputs = []
    for x_t in x:
        f_t = torch.sigmoid(w_f @ x_t + b_f)
        r_t = torch.sigmoid(w_r @ x_t + b_r)
        c = f_t * c + (1 - f_t) * (w @ x_t)
        skip = x_t if cell.highway is None else cell.highway.weight @ x_t
        outputs.append(r_t * torch.tanh(c) + (1 - r_t) * skip)
    return torch.stack(outputs)


@pytest.mark.parametrize("input_dim", [4, HIDDEN])
def test_sru_matches_step_by_step_reference(input_dim: int) -> None:
    torch.manual_seed(0)
    sru = BiSRU(input_dim, HIDDEN)
    with torch.no_grad():
        for cell in (sru.forward_cell, sru.backward_cell):
            cell.gate_bias.normal_()
    assert (sru.forward_cell.highway is None) == (input_dim == HIDDEN)
    lengths = [6, 3, 1]
    x, mask = padded(lengths, 6, dim=input_dim)
    out = sru(x, mask)
    assert torch.all(out[~mask] == 0)
    for row, length in enumerate(lengths):
        sentence = x[row, :length]
        forward = slow_sru(sru.forward_cell, sentence)
        backward = slow_sru(sru.backward_cell, sentence.flip(0)).flip(0)
        torch.testing.assert_close(out[row, :length, :HIDDEN], forward)
        torch.testing.assert_close(out[row, :length, HIDDEN:], backward)


def test_reversed_index_reverses_within_lengths() -> None:
    index = reversed_index(torch.tensor([3, 0, 5]), 5)
    assert index.tolist() == [[2, 1, 0, 3, 4], [0, 1, 2, 3, 4], [4, 3, 2, 1, 0]]


@pytest.mark.parametrize("name", RNNS)
def test_padded_batch_equals_unpadded_sentences(name: str) -> None:
    encoder = small(name)
    lengths = [2, 7, 4, 0]
    x, mask = padded(lengths, 9)
    out = encoder(x, mask)
    for row, length in enumerate(lengths[:3]):
        alone = encoder(x[row : row + 1, :length], mask[row : row + 1, :length])
        torch.testing.assert_close(out.tokens[row, :length], alone.tokens[0])
        torch.testing.assert_close(out.pooled[row], alone.pooled[0])
    assert torch.all(out.tokens[3] == 0) and torch.all(out.pooled[3] == 0)


@pytest.mark.parametrize("name", RNNS)
def test_backward_state_starts_at_last_real_token(name: str) -> None:
    """The backward half at the last real token has seen only that token."""
    encoder = small(name)
    x, mask = padded([3, 6], 6)
    out = encoder(x, mask)
    last = encoder(x[:1, 2:3], mask[:1, :1])
    torch.testing.assert_close(out.tokens[0, 2, HIDDEN:], last.tokens[0, 0, HIDDEN:])
    assert not torch.allclose(out.tokens[0, 2, :HIDDEN], last.tokens[0, 0, :HIDDEN])


@pytest.mark.parametrize("name", RNNS)
def test_directions_read_only_their_side(name: str) -> None:
    encoder = small(name)
    x, mask = padded([6], 6)
    changed = x.clone()
    changed[0, 3] += 1.0
    before, after = encoder(x, mask).tokens[0], encoder(changed, mask).tokens[0]
    torch.testing.assert_close(before[:3, :HIDDEN], after[:3, :HIDDEN])  # forward: past only
    torch.testing.assert_close(before[4:, HIDDEN:], after[4:, HIDDEN:])  # backward: future only
    assert not torch.allclose(before[4:, :HIDDEN], after[4:, :HIDDEN])
    assert not torch.allclose(before[:3, HIDDEN:], after[:3, HIDDEN:])


def snli_head(sentence_dim: int, hidden: int = 300, classes: int = 3) -> int:
    """[s_p; s_h; s_p - s_h; s_p * s_h] -> 300 FC -> 3 (Bi-BloSAN Sec. 4.1)."""
    return 4 * sentence_dim * hidden + hidden + hidden * classes + classes


def source2token(dim: int) -> int:
    return 2 * (dim * dim + dim)


# name -> (encoder parameters at input 300, Bi-BloSAN / DiSAN |θ| on SNLI in millions)
PAPER = {
    # 4 gates x (W_ih + W_hh + PyTorch's two biases) x 2 directions; TF has one bias (-2,400).
    "bilstm": (2 * 4 * (300 * 300 + 300 * 300 + 2 * 300) + source2token(600), 2.9),
    "bigru": (2 * 3 * (300 * 300 + 300 * 300 + 2 * 300) + source2token(600), 2.5),
    # W, W_f, W_r and b_f, b_r per direction; the highway reads x directly (input 300 = hidden).
    "bisru": (2 * (3 * 300 * 300 + 2 * 300) + source2token(600), 2.0),
    "bilstm_s2t": (2 * 4 * (300 * 300 + 300 * 300 + 2 * 300) + source2token(600), 2.9),
}


@pytest.mark.parametrize("name", list(PAPER))
def test_parameter_count_matches_paper_with_snli_head(name: str) -> None:
    encoder = build_encoder(name)
    count = sum(p.numel() for p in encoder.parameters())
    expected, paper_millions = PAPER[name]
    assert count == expected
    assert encoder.output_dim == 600
    assert round((count + snli_head(encoder.output_dim)) / 1e6, 1) == paper_millions


def test_bilstm_and_bilstm_s2t_differ_only_in_activation() -> None:
    bilstm, disan_style = build_encoder("bilstm"), build_encoder("bilstm_s2t")
    shapes = [(n, p.shape) for n, p in bilstm.named_parameters()]
    assert shapes == [(n, p.shape) for n, p in disan_style.named_parameters()]
    assert type(bilstm.source2token.activation).__name__ == "ReLU"
    assert type(disan_style.source2token.activation).__name__ == "ELU"


@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_birnn_equals_torch_packed_bidirectional_rnn(cell: str) -> None:
    torch.manual_seed(0)
    ours = BiRNN(cell, 4, HIDDEN)
    rnn_class = torch.nn.LSTM if cell == "lstm" else torch.nn.GRU
    packed_rnn = rnn_class(4, HIDDEN, batch_first=True, bidirectional=True)
    with torch.no_grad():
        for name, param in ours.forward_rnn.named_parameters():
            getattr(packed_rnn, name).copy_(param)
            getattr(packed_rnn, f"{name}_reverse").copy_(getattr(ours.backward_rnn, name))
    lengths = [6, 2, 4]
    x, mask = padded(lengths, 6)
    packed = pack_padded_sequence(x, torch.tensor(lengths), batch_first=True, enforce_sorted=False)
    expected, _ = pad_packed_sequence(packed_rnn(packed)[0], batch_first=True, total_length=6)
    torch.testing.assert_close(ours(x, mask), expected)


def test_initialisation_follows_the_papers_and_tf_lstm_cell() -> None:
    """Glorot weights, zero biases; the LSTM forget gate starts at TF's forget_bias = 1."""
    encoder = build_encoder("bilstm", input_dim=4, hidden_dim=HIDDEN)
    rnn = encoder.fusion.backward_rnn
    assert torch.all(rnn.bias_ih_l0[HIDDEN : 2 * HIDDEN] == 1)
    assert torch.all(rnn.bias_ih_l0[:HIDDEN] == 0) and torch.all(rnn.bias_hh_l0 == 0)
    bound = (6 / (4 * HIDDEN + HIDDEN)) ** 0.5
    assert rnn.weight_hh_l0.abs().max() <= bound
    assert torch.all(encoder.source2token.hidden.bias == 0)
