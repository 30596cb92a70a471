"""The CPU kernels the prediction stands in for: the LSTM run as ATen's oneDNN path runs it, the
kernels' workspaces measured (and extrapolated) per shape, TensorIterator's promotion copies."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from harness.profiling import cpu_kernels
from harness.profiling.cpu_kernels import (
    ANCHORS,
    EXTRAPOLATION_ERROR_BYTES,
    CpuRnn,
    _measured_record,
    kernel_record,
    promotion_temporaries,
)
from harness.profiling.measure import MB, Point
from harness.profiling.predict import predict


@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("layers", [1, 2])
def test_the_lstm_runs_as_aten_runs_it_on_the_cpu(bidirectional: bool, layers: int) -> None:
    """The emulation gives torch.lstm's own results on real CPU tensors, so it calls the
    kernels ATen calls (oneDNN's layer kernel), with the same arguments."""
    torch.manual_seed(0)
    lstm = nn.LSTM(16, 12, num_layers=layers, batch_first=True, bidirectional=bidirectional)
    x = torch.randn(3, 7, 16)
    expected, (h, c) = lstm(x)
    with CpuRnn():
        output, (h_cpu, c_cpu) = lstm(x)
    torch.testing.assert_close(output, expected, rtol=0, atol=0)
    torch.testing.assert_close(h_cpu, h, rtol=0, atol=0)
    torch.testing.assert_close(c_cpu, c, rtol=0, atol=0)


def test_the_gru_runs_as_aten_runs_it_on_the_cpu() -> None:
    """ATen's CPU branch of the GRU (one input projection for every step), emulated, gives
    torch.gru's own results; layers or directions it does not emulate run as they are."""
    torch.manual_seed(0)
    x = torch.randn(3, 7, 16)
    for gru in (nn.GRU(16, 12, batch_first=True), nn.GRU(16, 12, bidirectional=True)):
        expected, h = gru(x)
        with CpuRnn():
            output, h_cpu = gru(x)
        torch.testing.assert_close(output, expected, rtol=0, atol=0)
        torch.testing.assert_close(h_cpu, h, rtol=0, atol=0)


def test_the_lstm_workspace_has_the_cpu_kernels_size_when_gradients_are_on() -> None:
    """On meta tensors oneDNN's workspace is empty; its record gives the CPU's size, which a
    training step keeps from forward to backward (without it a Bi-LSTM's training prediction was
    34% low at [64, 64, 300]). The kernel keeps none when gradients are off (inference)."""
    func, args, kwargs = lstm_layer_call(16, train=True)
    record = _measured_record(func, args, kwargs)
    assert record is not None and len(record.output_bytes) == 4 and record.output_bytes[3] > 0
    with torch.no_grad():
        inference = _measured_record(func, args, kwargs)
    assert inference is not None and len(inference.output_bytes) == 3


def nn_encoder(name: str) -> torch.nn.Module:
    from encoders import build_encoder

    return build_encoder(name, input_dim=16)


def lstm_layer_call(length: int, train: bool) -> tuple:
    """A meta call of oneDNN's LSTM layer kernel: [length, batch 4, 16] -> 12 hidden units."""
    meta = torch.device("meta")
    x = torch.empty(length, 4, 16, device=meta)
    w_ih, w_hh = torch.empty(48, 16, device=meta), torch.empty(48, 12, device=meta)
    b_ih, b_hh = torch.empty(48, device=meta), torch.empty(48, device=meta)
    h = torch.empty(4, 12, device=meta)
    flags = (False, [], cpu_kernels.LSTM_MODE, 12, 1, True, False, False, train)
    args = (x, w_ih, w_hh, b_ih, b_hh, h, h, *flags)
    return torch.ops.aten.mkldnn_rnn_layer.default, args, {}


def test_long_lstm_records_are_extrapolated_within_a_few_pages() -> None:
    """Beyond the exact range an LSTM layer's record comes from the two anchor lengths; it is
    within EXTRAPOLATION_ERROR_BYTES of a real call at that length (oneDNN rounds parts of its
    workspace up to pages), for the workspace and the peak inside the call."""
    for length in (ANCHORS[1] + 33, 5 * ANCHORS[1] + 1):
        func, args, kwargs = lstm_layer_call(length, train=True)
        extrapolated, measured = (
            kernel_record(func, args, kwargs),
            _measured_record(*lstm_layer_call(length, True)),
        )
        assert extrapolated is not None and measured is not None
        assert abs(extrapolated.peak - measured.peak) <= EXTRAPOLATION_ERROR_BYTES
        workspace_error = extrapolated.output_bytes[3] - measured.output_bytes[3]
        assert abs(workspace_error) <= EXTRAPOLATION_ERROR_BYTES
        assert extrapolated.output_bytes[:3] == measured.output_bytes[:3]


def test_a_convolution_holds_its_reordered_copies_during_the_call() -> None:
    """oneDNN reorders a convolution's input and weights into blocked copies inside the call:
    the measured peak of one call is more than its output."""
    meta = torch.device("meta")
    x, weight = torch.empty(8, 30, 20, device=meta), torch.empty(20, 30, 3, device=meta)
    func = torch.ops.aten.convolution.default
    args = (x, weight, None, [1], [0], [1], False, [0], 1)
    record = kernel_record(func, args, {})
    assert record is not None and record.output_bytes == (8 * 20 * 18 * 4,)
    assert record.peak > record.output_bytes[0]


def test_a_long_convolution_backward_is_extrapolated_to_the_byte() -> None:
    """A convolution's backward beyond the exact range comes from the anchor lengths and equals
    a real call (its forward is always run: its peak changes phase with L)."""
    meta = torch.device("meta")
    length = 3 * ANCHORS[1] + 5
    grad = torch.empty(8, 20, length - 2, device=meta)
    x, weight = torch.empty(8, 30, length, device=meta), torch.empty(20, 30, 3, device=meta)
    func = torch.ops.aten.convolution_backward.default
    args = (grad, x, weight, [20], [1], [0], [1], False, [0], 1, [True, True, True])
    assert kernel_record(func, args, {}) == _measured_record(func, args, {})


def test_arguments_too_big_to_make_are_not_run() -> None:
    meta = torch.device("meta")
    huge = torch.empty(2**30, device=meta)  # 4 GiB of fp32, above the cap
    args = (huge.view(1, 1, -1), torch.empty(1, 1, 1, device=meta), None, [1], [0], [1])
    args += (False, [0], 1)
    assert kernel_record(torch.ops.aten.convolution.default, args, {}) is None


def test_promotion_copies_count_tensors_of_another_dtype_but_not_scalars() -> None:
    meta = torch.device("meta")
    mask = torch.empty(4, 10, dtype=torch.bool, device=meta)
    values = torch.empty(4, 10, device=meta)
    assert promotion_temporaries((values, mask), torch.float32) == 4 * 10 * 4
    assert promotion_temporaries((values, values), torch.float32) == 0
    scalar = torch.empty((), dtype=torch.int64, device=meta)
    assert promotion_temporaries((values, scalar), torch.float32) == 0


def test_predicting_a_cnn_and_a_bilstm_allocates_only_small_real_tensors() -> None:
    """The kernels run for real at their own (small) shapes or at the anchor lengths: a
    prediction at a long length stays fast and small."""
    for name in ("multi_cnn", "bilstm"):
        point = Point(name, 512, "train", 4, 16)
        prediction = predict(lambda name=name: nn_encoder(name), point)
        assert 0 < prediction.peak_bytes / MB < 1000
