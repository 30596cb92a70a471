"""What the CPU does that a meta run does not: the CPU kernels the prediction stands in for.

``harness.profiling.predict`` runs a step on meta tensors. Where the CPU takes another path
than the meta kernels, or allocates inside a kernel what a meta kernel cannot know, this module
says what the CPU does, measured on this CPU where it cannot be derived:

- ``CPU_KERNELS``: operators the CPU runs another way (eval-mode dropout returns its input; the
  fused attention kernel and its output layout; oneDNN's fused LSTM layer, whose workspace the
  meta kernel gives as empty).
- ``CPU_WORKSPACES``: operators whose CPU kernel holds memory inside the call (oneDNN's
  reordered copies of inputs, weights and outputs in its blocked layouts): the most bytes held
  during one call is measured once per argument shapes, on real tensors of those shapes, with
  the profiler's memory records (``kernel_record``).
- ``PROMOTING_CPU_OPS``: elementwise operators whose CPU TensorIterator copies an input of
  another dtype into a temporary of the result's dtype (done on the CPU only).
- ``CpuRnn``: ``torch.lstm`` run as the CPU runs it (``aten::mkldnn_rnn_layer`` per layer and
  direction, as ATen's ``mkldnn_rnn``), not as the per-step cell the meta device decomposes it
  into, and ``torch.gru`` through ATen's CPU branch (every step's input projection in one
  product); it is a function mode because ATen makes these choices above autograd.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

import torch
from torch.overrides import TorchFunctionMode


class StorageLedger(AbstractContextManager, Protocol):
    """What a CPU kernel needs of the dispatch mode that predicts (``predict.LiveStorageTracker``):
    the live and peak bytes, the FLOPs, and ``track`` for the storages it returns; entering it
    runs operators under it."""

    live: int
    peak: int
    flops: int

    def track(self, tensors: Iterable[Any]) -> None: ...


aten = torch.ops.aten
# Above this many bytes of arguments a kernel is not run for real: its workspace is then left
# out of the prediction (a lower bound) rather than allocate what a meta run exists to avoid.
MAX_REAL_ARGUMENT_BYTES = 2**30
LSTM_MODE = 2  # ideep::rnn_kind::LSTM, the ``mode`` argument of ``aten::mkldnn_rnn_layer``


def tensors_of(value: Any) -> Iterator[torch.Tensor]:
    """The tensors in nested tuples, lists and dicts (operator arguments and results)."""
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, list | tuple):
        for item in value:
            yield from tensors_of(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from tensors_of(item)


def signature(value: Any, tensors: list[torch.Tensor]) -> Any:
    """``value`` as a hashable description (tensors by shape, strides and dtype; anything else
    by type and value), appending the tensors met to ``tensors``."""
    if isinstance(value, torch.Tensor):
        tensors.append(value)
        return (value.shape, value.stride(), value.dtype)
    if isinstance(value, list | tuple):
        return (type(value), *[signature(item, tensors) for item in value])
    if isinstance(value, dict):
        if not value:
            return ()
        items = sorted(value.items())
        return (dict, *[(name, signature(item, tensors)) for name, item in items])
    return (type(value), value)


def call_key(func: Any, args: tuple, kwargs: dict, tensors: list[torch.Tensor]) -> tuple | None:
    """What a kernel's outputs and workspace depend on: the operator, every tensor's shape,
    strides and dtype (not its storage offset: an RNN's step t reads slices at offsets that vary
    with t), and every other argument with its type (``True`` is not ``1``); None when one
    cannot be hashed. The tensors of ``args`` and ``kwargs`` are appended to ``tensors``."""
    key = (func, signature(args, tensors), signature(kwargs, tensors))
    try:
        hash(key)
    except TypeError:
        return None
    return key


@dataclass(frozen=True)
class KernelRecord:
    """One real call of a CPU kernel: the most bytes it held above what was live before it
    (its outputs included) and the bytes of each tensor it returned."""

    peak: int
    output_bytes: tuple[int, ...]


_records: dict[tuple, KernelRecord | None] = {}


def _real(value: Any) -> Any:
    """``value`` with every meta tensor replaced by a CPU tensor of its shape, strides and dtype
    (normal values for floating point, zeros otherwise)."""
    if isinstance(value, torch.Tensor):
        real = torch.empty_strided(value.shape, value.stride(), dtype=value.dtype)
        return real.normal_() if real.is_floating_point() else real.zero_()
    if isinstance(value, list | tuple):
        return type(value)(_real(item) for item in value)
    return value


# Per operator: (argument index, dimension) of every tensor whose size follows the sequence
# length; the first names the length. Beyond EXACT_UP_TO tokens such a kernel is measured at the
# two ANCHORS lengths and its record extrapolated linearly, because a real call at long L takes
# seconds (an LSTM backward; Hrchy-CNN's convolution backward, 2.9 s at [64, 600, 386]).
# oneDNN's LSTM workspace and copies grow linearly in L but for parts rounded up to 4 KiB pages,
# so the extrapolation is within EXTRAPOLATION_ERROR_BYTES of a real call (4 KiB at [64, L, 300]
# for L = 97..513; 13 KiB at [8, L, 64] -> 300); a convolution's backward extrapolates to the
# byte (Multi-CNN, Hrchy-CNN at L = 130..388). A convolution's forward is always measured at its
# own shapes (cheap): its peak is the largest of several phases, and which one is largest
# changes with L (extrapolated, Hrchy-CNN's was 10-14% low at L = 130-260).
LENGTH_DIMS: dict[Any, tuple[tuple[int, int], ...]] = {
    aten.convolution_backward.default: ((1, -1), (0, -1)),
    aten.mkldnn_rnn_layer.default: ((0, 0),),
    aten.mkldnn_rnn_layer_backward.default: ((0, 0), (7, 0), (10, 0)),
}
EXACT_UP_TO = 64
ANCHORS = (32, 64)
EXTRAPOLATION_ERROR_BYTES = 16 * 1024


def _with_size(tensor: torch.Tensor, dim: int, size: int) -> torch.Tensor:
    """A meta tensor like ``tensor`` (dtype, order of its strides) with ``size`` at ``dim``."""
    shape = list(tensor.shape)
    shape[dim] = size
    order = sorted(range(tensor.dim()), key=lambda d: tensor.stride(d), reverse=True)
    base = torch.empty([shape[d] for d in order], dtype=tensor.dtype, device="meta")
    return base.permute([order.index(d) for d in range(tensor.dim())])


def _at_length(func: Any, args: tuple, length: int) -> tuple:
    """``args`` with the sequence length (see ``LENGTH_DIMS``) changed to ``length``."""
    dims = LENGTH_DIMS[func]
    index, dim = dims[0]
    shift = length - args[index].shape[dim]
    changed = list(args)
    for index, dim in dims:
        if isinstance(args[index], torch.Tensor):
            changed[index] = _with_size(args[index], dim, args[index].shape[dim] + shift)
    return tuple(changed)


def kernel_record(func: Any, args: tuple, kwargs: dict) -> KernelRecord | None:
    """What ``func``'s CPU kernel holds during one call on these argument shapes: measured on
    real tensors up to ``EXACT_UP_TO`` tokens, extrapolated from the ``ANCHORS`` lengths beyond;
    None when the arguments are too big to make for real."""
    dims = LENGTH_DIMS.get(func)
    length = args[dims[0][0]].shape[dims[0][1]] if dims else 0
    if length <= EXACT_UP_TO:
        return _measured_record(func, args, kwargs)
    short, long = (_measured_record(func, _at_length(func, args, n), kwargs) for n in ANCHORS)
    if short is None or long is None or len(short.output_bytes) != len(long.output_bytes):
        return None
    step = (length - ANCHORS[0]) / (ANCHORS[1] - ANCHORS[0])

    def grown(first: int, second: int) -> int:
        return round(first + (second - first) * step)

    outputs = zip(short.output_bytes, long.output_bytes, strict=True)
    return KernelRecord(grown(short.peak, long.peak), tuple(grown(a, b) for a, b in outputs))


def _measured_record(func: Any, args: tuple, kwargs: dict) -> KernelRecord | None:
    """``kernel_record`` measured on real tensors of exactly these shapes (once per shapes)."""
    tensors: list[torch.Tensor] = []
    key = call_key(func, args, kwargs, tensors)
    # in the caller's grad mode, which kernels read (oneDNN's LSTM keeps a workspace for
    # backward only when gradients are on); the real tensors need none
    key = key and (*key, torch.is_grad_enabled())
    if key is not None and key in _records:
        return _records[key]
    record = None
    if sum(t.untyped_storage().nbytes() for t in tensors) <= MAX_REAL_ARGUMENT_BYTES:
        from torch.profiler import ProfilerActivity, profile

        from harness.tensor_memory import allocated_peak

        real_args = REAL_ARGUMENTS.get(func, _real)(args)
        real_kwargs = {k: _real(v) for k, v in kwargs.items()}
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as p:
            out = func(*real_args, **real_kwargs)
        sizes = tuple(t.untyped_storage().nbytes() for t in tensors_of(out))
        record = KernelRecord(allocated_peak(p), sizes)
    if key is not None:
        _records[key] = record
    return record


def _real_lstm_backward_arguments(args: tuple) -> tuple:
    """Real arguments of ``mkldnn_rnn_layer_backward``: the output, states and workspace come
    from a real forward on the same inputs (the kernel reads the workspace's layout; a made-up
    one crashes it), the incoming gradients are random."""
    real = _real(args)
    reverse, mode, hidden, layers, biases, train, bidirectional, sizes, batch_first = real[13:22]
    with torch.enable_grad():  # (backward runs without: the forward would keep no workspace)
        output, hy, cy, workspace = aten.mkldnn_rnn_layer(
            *real[:7], reverse, sizes, mode, hidden, layers, biases, bidirectional,
            batch_first, train,
        )  # fmt: skip
    return (*real[:7], output, hy, cy, *real[10:22], workspace)


# How to make real arguments for a kernel whose arguments must agree with each other.
REAL_ARGUMENTS: dict[Any, Callable[[tuple], tuple]] = {
    aten.mkldnn_rnn_layer_backward.default: _real_lstm_backward_arguments,
}
CPU_WORKSPACES = frozenset({aten.convolution.default, aten.convolution_backward.default})
PROMOTING_CPU_OPS = frozenset(
    {
        *(aten.add.Tensor, aten.sub.Tensor, aten.mul.Tensor, aten.div.Tensor),
        *(aten.add_.Tensor, aten.sub_.Tensor, aten.mul_.Tensor, aten.div_.Tensor),
    }
)


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
        if func is aten.mkldnn_rnn_layer.default and record and len(record.output_bytes) > 3:
            workspace = torch.empty(record.output_bytes[3], dtype=torch.uint8, device="meta")
            out = (*out[:3], workspace)
        mode.flops += round(flops_per_forward * _lstm_layer_flops(args[0], args[1]))
        mode.track(tensors_of(out))
        if record is not None:
            mode.peak = max(mode.peak, live_before + record.peak)
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
    hidden = hx.unbind(0)[0]
    w_ih, w_hh, b_ih, b_hh = params
    outputs = []
    for step_gates in torch.nn.functional.linear(steps, w_ih, b_ih).unbind(0):
        i_reset, i_input, i_new = step_gates.unsafe_chunk(3, 1)
        h_reset, h_input, h_new = torch.nn.functional.linear(hidden, w_hh, b_hh).unsafe_chunk(3, 1)
        reset = h_reset.add_(i_reset).sigmoid_()
        update = h_input.add_(i_input).sigmoid_()
        new = i_new.add(h_new.mul_(reset)).tanh_()
        hidden = (hidden - new).mul_(update).add_(new)
        outputs.append(hidden)
    output = torch.stack(outputs, 0)
    return (output.transpose(0, 1) if batch_first else output), torch.stack([hidden], 0)


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
