"""What the CPU does that a meta run does not: the CPU kernels the prediction stands in for.

``harness.memory_prediction.step`` runs a step on meta tensors. Where the CPU takes another path
than the meta kernels, or allocates inside a kernel what a meta kernel cannot know, this module
says what the CPU does, modelled on this CPU where it cannot be derived:

- ``CPU_KERNELS``: operators the CPU runs another way (eval-mode dropout returns its input; the
  fused attention kernel and its output layout; oneDNN's fused LSTM layer, whose workspace the
  meta kernel gives as empty).
- ``CPU_WORKSPACES``: operators whose CPU kernel holds memory inside the call (oneDNN's
  reordered copies of inputs, weights and outputs in its blocked layouts), given by
  ``harness.memory_prediction.kernel_model`` (fitted on calls at small lengths, never run at the
  predicted shapes).
- ``PROMOTING_CPU_OPS``: elementwise operators whose CPU TensorIterator copies an input of
  another dtype into a temporary of the result's dtype (done on the CPU only).
- ``CONTIGUOUS_CPU_OPS``: operators whose CPU kernel copies non-contiguous arguments into
  contiguous temporaries for the call (the softmax backward's gradient, which the meta kernel
  reads as it is).
- ``CpuRnn``: ``torch.lstm`` run as the CPU runs it (``aten::mkldnn_rnn_layer`` per layer and
  direction, as ATen's ``mkldnn_rnn``), not as the per-step cell the meta device decomposes it
  into, and ``torch.gru`` through ATen's CPU branch (every step's input projection in one
  product); it is a function mode because ATen makes these choices above autograd.
- ``CpuLinear``: ``linear`` composed as ATen composes it outside a dispatch mode. Under one,
  ATen takes every tensor for a subclass and adds the bias out of place, and in inference the
  weight's transpose that the mode returns loses ``requires_grad``, so ``matmul`` takes
  ``bmm`` where the CPU folds the product into one ``mm`` of a copy of the input: a GRU's
  input projection was predicted with one [L, B, 3H] tensor too many and without that copy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from typing import Any, Protocol

import torch
from torch.overrides import TorchFunctionMode

from harness.memory_prediction.kernel_model import KernelRecord, kernel_record, tensors_of


class StorageLedger(AbstractContextManager, Protocol):
    """What a CPU kernel needs of the dispatch mode that predicts (``predict.LiveStorageTracker``):
    the live and peak bytes, the FLOPs, the kernels whose inside memory it leaves out (and
    why), and ``track`` for the storages it returns; entering it runs operators under it."""

    live: int
    peak: int
    flops: int
    unmodelled: set[str]

    def track(self, tensors: Iterable[Any]) -> None: ...


aten = torch.ops.aten
LSTM_MODE = 2  # ideep::rnn_kind::LSTM, the ``mode`` argument of ``aten::mkldnn_rnn_layer``


CPU_WORKSPACES = frozenset({aten.convolution.default, aten.convolution_backward.default})
PROMOTING_CPU_OPS = frozenset(
    {
        *(aten.add.Tensor, aten.sub.Tensor, aten.mul.Tensor, aten.div.Tensor),
        *(aten.add_.Tensor, aten.sub_.Tensor, aten.mul_.Tensor, aten.div_.Tensor),
    }
)


# Per operator, the arguments its CPU kernel makes contiguous for the call (ATen's SoftMax.cpp:
# ``input.contiguous()``, ``grad.contiguous()``, ``output.contiguous()``), after its result is
# allocated.
CONTIGUOUS_CPU_OPS: dict[Any, tuple[int, ...]] = {
    aten._softmax.default: (0,),
    aten._log_softmax.default: (0,),
    aten._softmax_backward_data.default: (0, 1),
    aten._log_softmax_backward_data.default: (0, 1),
}


def contiguous_temporaries(func: Any, args: tuple) -> int:
    """Bytes of the contiguous copies ``func``'s CPU kernel makes of its non-contiguous
    arguments (``CONTIGUOUS_CPU_OPS``)."""
    tensors = (args[index] for index in CONTIGUOUS_CPU_OPS[func])
    return sum(t.numel() * t.element_size() for t in tensors if not t.is_contiguous())


def hold_inside_memory(mode: StorageLedger, live_before: int, record: KernelRecord) -> None:
    """A kernel call's inside memory on top of what was live before it; when its family could
    not be modelled, why (the prediction is then a lower bound)."""
    if record.unmodelled:
        mode.unmodelled.add(record.unmodelled)
    mode.peak = max(mode.peak, live_before + record.peak)


def promotion_temporaries(args: tuple, dtype: torch.dtype) -> int:
    """Bytes of the temporaries a CPU TensorIterator makes for ``args`` of another dtype than
    ``dtype`` (0-dim tensors are read as scalars and need none)."""
    return sum(
        arg.numel() * dtype.itemsize
        for arg in args[:2]
        if isinstance(arg, torch.Tensor) and arg.dim() > 0 and arg.dtype != dtype
    )


def _dropout_as_on_cpu(mode: StorageLedger, x: Any, p: float, train: bool | None) -> Any:
    """Dropout off (eval, p = 0): the CPU kernel returns its input; the Python decomposition a
    composite gets under ``inference_mode`` would copy it."""
    return x if not train or p == 0 else NotImplemented


def _attention_as_on_cpu(
    mode: StorageLedger,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attn_mask: torch.Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    dropout_mask: torch.Tensor | None = None,
    *,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Any:
    """``scaled_dot_product_attention`` picks the math path on meta tensors and the fused CPU
    kernel (``_scaled_dot_product_flash_attention_for_cpu``) on the CPU when there is no dropout
    and the inputs are dense [B, h, L, d]. Run the fused kernel's meta function instead and give
    its output the CPU kernel's layout ([B, L, h, d] in memory), so that the heads' concatenation
    is a view, as it is on the CPU."""
    dense = all(t.dim() == 4 and t.stride(-1) == 1 for t in (query, key, value))
    if dropout_p or dropout_mask is not None or enable_gqa or not dense:
        return NotImplemented
    with mode:
        out, logsumexp = aten._scaled_dot_product_flash_attention_for_cpu(
            query, key, value, 0.0, is_causal, attn_mask=attn_mask, scale=scale
        )
    _, heads, length, width = out.shape
    strides = (length * heads * width, width, heads * width, 1)
    return out.as_strided(out.shape, strides), logsumexp


def _lstm_layer_flops(input: torch.Tensor, weight_ih: torch.Tensor) -> int:
    """Matrix-product FLOPs of one LSTM layer's forward, as ``FlopCounterMode`` counts them on
    the per-step cell: 2 x L x N x 4H x (I + H)."""
    steps, batch, features = input.shape
    gates, hidden = weight_ih.shape[0], weight_ih.shape[0] // 4
    return 2 * steps * batch * gates * (features + hidden)


def _fused_rnn(func: Any, flops_per_forward: float) -> Callable[..., Any]:
    """A ``CPU_KERNELS`` entry for oneDNN's LSTM layer kernels: the meta kernel's outputs, the
    workspace (the forward's 4th output, empty on meta; none when not training) at the size
    the CPU kernel gives it, the most the CPU kernel holds during the call, and the FLOPs of
    the per-step cell."""

    def run(mode: StorageLedger, *args: Any, **kwargs: Any) -> Any:
        live_before = mode.live
        out = func(*args, **kwargs)
        record = kernel_record(func, args, kwargs)
        if func is aten.mkldnn_rnn_layer.default and len(record.output_bytes) > 3:
            workspace = torch.empty(record.output_bytes[3], dtype=torch.uint8, device="meta")
            out = (*out[:3], workspace)
        mode.flops += round(flops_per_forward * _lstm_layer_flops(args[0], args[1]))
        mode.track(tensors_of(out))
        hold_inside_memory(mode, live_before, record)
        return out

    return run


# Operators whose CPU kernel a meta run would not reproduce, with what the CPU does (or
# NotImplemented where it does what the meta run does).
CPU_KERNELS: dict[Any, Callable[..., Any]] = {
    aten.dropout.default: _dropout_as_on_cpu,
    aten.feature_dropout.default: _dropout_as_on_cpu,
    aten.alpha_dropout.default: _dropout_as_on_cpu,
    aten.feature_alpha_dropout.default: _dropout_as_on_cpu,
    aten._scaled_dot_product_attention_math.default: _attention_as_on_cpu,
    aten.mkldnn_rnn_layer.default: _fused_rnn(aten.mkldnn_rnn_layer.default, 1),
    # backward: the gradients of the input and of both weight matrices
    aten.mkldnn_rnn_layer_backward.default: _fused_rnn(aten.mkldnn_rnn_layer_backward.default, 2),
}


def _lstm_as_on_cpu(
    input: torch.Tensor,
    hx: tuple[torch.Tensor, torch.Tensor],
    params: list[torch.Tensor],
    has_biases: bool,
    num_layers: int,
    dropout: float,
    train: bool,
    bidirectional: bool,
    batch_first: bool,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``torch.lstm`` as ATen's ``mkldnn_rnn`` runs it on the CPU: the input made sequence-first
    and contiguous, one ``mkldnn_rnn_layer`` per layer and direction, the directions'
    outputs concatenated, the final states stacked."""
    h0, c0 = hx
    layer_input = (input.transpose(0, 1) if batch_first else input).contiguous()
    h0, c0 = h0.contiguous(), c0.contiguous()
    directions = 2 if bidirectional else 1
    per_layer = 4 if has_biases else 2
    hidden = h0.shape[-1]
    final_h, final_c = [], []
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            weights = params[index * per_layer : (index + 1) * per_layer]
            if has_biases:
                bias_ih, bias_hh = weights[2], weights[3]
            else:
                bias_ih, bias_hh = torch.zeros_like(weights[0]), torch.zeros_like(weights[1])
            output, h, c, _ = aten.mkldnn_rnn_layer(
                layer_input,
                weights[0],
                weights[1],
                bias_ih,
                bias_hh,
                h0[index],
                c0[index],
                direction > 0,
                [],
                LSTM_MODE,
                hidden,
                num_layers,
                has_biases,
                bidirectional,
                False,
                train,
            )
            outputs.append(output)
            final_h.append(h)
            final_c.append(c)
        layer_input = outputs[0] if directions == 1 else torch.cat(outputs, -1)
        if dropout and train and layer < num_layers - 1:
            layer_input = torch.dropout(layer_input, dropout, True)
    output = layer_input.transpose(0, 1) if batch_first else layer_input
    return output, torch.stack(final_h, 0), torch.stack(final_c, 0)


def _gru_as_on_cpu(
    input: torch.Tensor,
    hx: torch.Tensor,
    params: list[torch.Tensor],
    has_biases: bool,
    num_layers: int,
    dropout: float,
    train: bool,
    bidirectional: bool,
    batch_first: bool,
) -> Any:
    """``torch.gru`` (one layer, one direction) as ATen runs it on CPU tensors: the input
    projection of every step in one product (``FullLayer``'s CPU branch), then ``GRUCell``'s
    in-place gate arithmetic per step, the outputs stacked. On meta tensors ATen takes its other
    branch, one input projection per step."""
    if num_layers != 1 or bidirectional or not has_biases:
        return NotImplemented
    steps = input.transpose(0, 1) if batch_first else input
    output, hidden = _gru_layer(steps, hx.unbind(0)[0], params)
    return (output.transpose(0, 1) if batch_first else output), torch.stack([hidden], 0)


def _gru_layer(
    steps: torch.Tensor, hidden: torch.Tensor, params: list[torch.Tensor]
) -> tuple[torch.Tensor, torch.Tensor]:
    """``FullLayer``: the steps' input projection, the steps, their outputs stacked. The
    projection and the step outputs are freed when it returns, as the C++ function's locals
    (before the final state is stacked)."""
    w_ih, w_hh, b_ih, b_hh = params
    outputs = []
    for step_gates in torch.nn.functional.linear(steps, w_ih, b_ih).unbind(0):
        hidden = _gru_cell(step_gates, hidden, w_hh, b_hh)
        outputs.append(hidden)
    return torch.stack(outputs, 0), hidden


def _gru_cell(
    step_gates: torch.Tensor, hidden: torch.Tensor, w_hh: torch.Tensor, b_hh: torch.Tensor
) -> torch.Tensor:
    """``GRUCell`` on a step's projected input; its gates are freed when it returns, as the C++
    cell's are (a loop's Python variables held them into the next step: a GRU's inference was
    predicted a [B, 4H] high)."""
    i_reset, i_input, i_new = step_gates.unsafe_chunk(3, 1)
    h_reset, h_input, h_new = torch.nn.functional.linear(hidden, w_hh, b_hh).unsafe_chunk(3, 1)
    reset = h_reset.add_(i_reset).sigmoid_()
    update = h_input.add_(i_input).sigmoid_()
    new = i_new.add(h_new.mul_(reset)).tanh_()
    return (hidden - new).mul_(update).add_(new)


class CpuRnn(TorchFunctionMode):
    """Runs ``torch.lstm`` (dense input, fp32) through oneDNN's layer kernel and ``torch.gru``
    through ATen's CPU branch, as the CPU does; every other function as it is."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        dense = len(args) == 9 and not kwargs and args[0].dtype == torch.float32
        if func is torch.lstm and dense and isinstance(args[1], list | tuple):
            return _lstm_as_on_cpu(*args)
        if func is torch.gru and dense and isinstance(args[1], torch.Tensor):
            out = _gru_as_on_cpu(*args)
            if out is not NotImplemented:
                return out
        return func(*args, **kwargs)


def _linear_as_on_cpu(
    input: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None
) -> Any:
    """``at::native::linear`` on CPU tensors: a 2-D input, or a contiguous one with a bias, in
    one ``addmm`` (as under the mode); else ``matmul`` by the weight's transpose, folded into
    one ``mm`` of ``input`` reshaped into a matrix (a copy where its leading dimensions are not
    viewable as one) when the weight requires grad (``should_fold``), then the bias added in
    place."""
    if (bias is not None and (input.dim() == 2 or input.is_contiguous())) or input.dim() < 3:
        return NotImplemented
    if weight.requires_grad:
        product = torch.mm(input.reshape(-1, input.shape[-1]), weight.t())
        product = aten._unsafe_view(product, (*input.shape[:-1], weight.shape[0]))
    else:
        product = torch.matmul(input, weight.t())
    return product if bias is None else product.add_(bias)


class CpuLinear(TorchFunctionMode):
    """Runs ``torch.nn.functional.linear`` as ATen composes it on CPU tensors; every other
    function as it is."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = NotImplemented
        if func is torch.nn.functional.linear:
            out = _linear_as_on_cpu(*args, **kwargs)
        return func(*args, **kwargs) if out is NotImplemented else out
