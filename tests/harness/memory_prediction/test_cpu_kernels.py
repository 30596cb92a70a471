"""The CPU kernels the prediction stands in for: the LSTM run as ATen's oneDNN path runs it,
TensorIterator's promotion copies and the softmax's contiguous copies (the kernels' inside
memory: test_kernel_model.py)."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from harness.memory_prediction.cpu_kernels import (
    CpuRnn,
    contiguous_temporaries,
    promotion_temporaries,
)
from harness.memory_prediction.kernel_model import kernel_record
from tests.harness.memory_prediction.test_kernel_model import lstm_layer_call

pytestmark = pytest.mark.held_out


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


def test_promotion_copies_count_tensors_of_another_dtype_but_not_scalars() -> None:
    meta = torch.device("meta")
    mask = torch.empty(4, 10, dtype=torch.bool, device=meta)
    values = torch.empty(4, 10, device=meta)
    assert promotion_temporaries((values, mask), torch.float32) == 4 * 10 * 4
    assert promotion_temporaries((values, values), torch.float32) == 0
    scalar = torch.empty((), dtype=torch.int64, device=meta)
    assert promotion_temporaries((values, scalar), torch.float32) == 0


def test_the_softmax_copies_a_non_contiguous_gradient_for_its_backward() -> None:
    """ATen's softmax backward works on contiguous copies of its gradient and output (the meta
    kernel reads them as they are): Hrchy-CNN's training was 2-4% low past L = 64 without."""
    meta = torch.device("meta")
    output = torch.empty(4, 10, 6, device=meta)
    strided = torch.empty(4, 6, 10, device=meta).transpose(1, 2)
    backward = torch.ops.aten._softmax_backward_data.default
    assert contiguous_temporaries(backward, (strided, output, 1, torch.float32)) == 4 * 60 * 4
    assert contiguous_temporaries(backward, (output, output, 1, torch.float32)) == 0


def test_the_lstm_workspace_has_the_cpu_kernels_size_when_gradients_are_on() -> None:
    """On meta tensors oneDNN's workspace is empty; the kernel model gives the CPU's size, which
    a training step keeps from forward to backward (without it a Bi-LSTM's training prediction
    was 34% low at [64, 64, 300]). The kernel keeps none when gradients are off (inference)."""
    func, args, kwargs = lstm_layer_call(40, train=True)
    record = kernel_record(func, args, kwargs)
    assert not record.unmodelled and len(record.output_bytes) == 4 and record.output_bytes[3] > 0
    with torch.no_grad():
        inference = kernel_record(func, args, kwargs)
    assert not inference.unmodelled and len(inference.output_bytes) == 3
