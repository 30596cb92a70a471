"""What a CPU kernel holds inside one call, modelled as a function of the sequence length.

A meta run knows a kernel's outputs but not what its CPU kernel allocates and frees inside the
call: oneDNN's reordered copies of a convolution's input, weights and output in its blocked
layouts, its scratchpads, the LSTM layer's workspace. These depend on the CPU (oneDNN picks the
layouts by instruction set), the thread count and the library versions, so they are measured,
but never at the predicted shapes (except where a call costs no more than a calibration call:
below the shortest calibration length, and for a family that could not be modelled):

- a kernel's *family* is the kernel with its arguments' shapes, strides and other values, the
  sequence length (``LENGTH_DIMS``) left out, the grad mode and the thread count;
- once per family and process the kernel runs on real tensors at each of
  ``SHORT_LENGTHS`` (small; the batch and widths are the predicted ones), and the
  profiler's memory records give its allocations and frees in order and the bytes of the
  tensors it returns;
- each allocation, free and output is fitted as a line in the length (least squares;
  ``KernelModel``), and at a predicted length the lines are evaluated and the allocations
  replayed in order: the most the call holds is the largest running sum. Which phase of a call
  is its largest can change with the length; the replay follows it.

oneDNN chooses how to split a kernel's work over its threads from the problem's size, and some
splits take buffers others do not: on an AVX-512 CPU the backward of a convolution at batch 33
splits the minibatch over the threads from L = 73 on and then holds a reduction buffer of the
weights' size, a step that no line through L = 7..31 shows. So the family also runs at four
long lengths (``long_lengths``): up to 2000, as long as the call's arguments stay within
``LONG_CALIBRATION_BYTES`` (oneDNN splits by the work per thread, batch times length, so a
large batch reaches the split that a small one reaches late at a shorter length), at least 35;
a family too large for that is past any split at the short lengths and runs at those alone.
Where one line per allocation fits all the lengths and a length midway between the short and
the long ones, that line is the model; where it does not, the short and the long lengths each
get their lines (a *piece*), the length where oneDNN changes from one to the other
is found by bisection between them (calls at lengths of the family's own, never the predicted
one), and a predicted length uses the piece its length falls in. One change of split is
assumed between the short and the long lengths (threads only ever split more of a growing
problem), and none beyond the longest calibration length.

Allocations that are exact lines in the length (every convolution buffer) are predicted to the
byte. oneDNN starts each part of the LSTM workspace and scratchpad on a 4 KiB page, so those
are lines only to within a page per part (docs/benchmarks.md gives the measured error). A
family whose calls allocate differently within one piece (not one line through each side's
lengths), or whose arguments at a calibration length exceed ``MAX_CALIBRATION_BYTES``, is not
modelled: a call of it with arguments within ``LONG_CALIBRATION_BYTES`` then runs as it is, and
a larger one's prediction says it leaves the kernel out (``KernelRecord.unmodelled``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import torch
from torch.profiler import record_function

from harness.measurement.tensor_memory import allocation_trace, allocations_within

aten = torch.ops.aten

# Per operator: (argument index, dimension) of every tensor whose size follows the sequence
# length; the first names the length. Every such size moves by the same amount (stride-1
# convolutions and RNN layers).
LENGTH_DIMS: dict[Any, tuple[tuple[int, int], ...]] = {
    aten.convolution.default: ((0, -1),),
    aten.convolution_backward.default: ((1, -1), (0, -1)),
    aten.mkldnn_rnn_layer.default: ((0, 0),),
    aten.mkldnn_rnn_layer_backward.default: ((0, 0), (7, 0), (10, 0)),
}
# Lengths no preset or test point uses: short ones, where a call is cheap, and long ones, with
# every residue mod 4 (oneDNN rounds RNN parts to 4 KiB pages), where oneDNN may split the work
# otherwise; together they span enough that a few pages of rounding move a slope by little.
SHORT_LENGTHS = (7, 11, 15, 19, 23, 27, 31)
# The long lengths end at most here and at least at the shortest end, the four of them this far
# before their end (one of each residue mod 4), and their calls' arguments within the bytes.
LONGEST, SHORTEST_LONG_END = 2000, 35
LONG_OFFSETS = (3, 2, 1, 0)
LONG_CALIBRATION_BYTES = 8 * 2**20
# How far an allocation may stray from its line and still be that line: two pages (a part
# rounded up to a 4 KiB page, on either side of the fitted line); for oneDNN's RNN layer
# kernels, whose workspace and scratchpad are up to 14 parts each starting on a 4 KiB page
# (``rnn_utils::set_offsets``), a page per part. (With two pages, a [6, L, 9] -> 9 LSTM's
# workspace strayed 2.2 pages from the line through every calibration length: the short lengths
# alone then gave its slope, 4% low over 24 tokens of page steps, and its training was predicted
# 3.5% low at L = 1,000.)
LINE_TOLERANCE = 2 * 4096
PAGE_ROUNDED_TOLERANCE = 14 * 4096
# Arguments of a calibration call above this many bytes are not made: the family is then not
# modelled, and the prediction says so.
MAX_CALIBRATION_BYTES = 256 * 2**20


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
    """One call of a CPU kernel at a predicted length: the most bytes it holds above what was
    live before it (its outputs included), the bytes of each tensor it returns, and, when its
    family could not be modelled, why (then ``peak`` leaves the inside memory out)."""

    peak: int
    output_bytes: tuple[int, ...]
    unmodelled: str = ""


Line = tuple[float, float]  # bytes = intercept + slope * length


@dataclass(frozen=True)
class KernelModel:
    """A kernel family's allocations (positive) and frees (negative) in call order and its
    outputs' bytes, each a line in the length."""

    events: tuple[Line, ...]
    outputs: tuple[Line, ...]

    def record(self, length: int) -> KernelRecord:
        """The call at ``length``: its allocations replayed in order."""
        live = peak = 0
        for event in self.events:
            live += _at(event, length)
            peak = max(peak, live)
        return KernelRecord(peak, tuple(_at(line, length) for line in self.outputs))

    def distance(self, length: int, events: list[int]) -> float:
        """The most a real call's ``events`` at ``length`` stray from this model's (infinite
        when they are other allocations: another count, or a free where this one allocates)."""
        predicted = [_at(line, length) for line in self.events]
        if len(events) != len(predicted):
            return float("inf")
        pairs = list(zip(events, predicted, strict=True))
        if any((size > 0) != (guess > 0) for size, guess in pairs):
            return float("inf")
        return max(abs(size - guess) for size, guess in pairs)

    def fits(self, calls: Iterable[tuple[int, list[int]]], tolerance: int) -> bool:
        """Whether every (length, events) of ``calls`` is within ``tolerance`` bytes of it."""
        return all(self.distance(length, events) <= tolerance for length, events in calls)


@dataclass(frozen=True)
class PiecewiseModel:
    """One :class:`KernelModel` per range of lengths: ``pieces[i]`` holds from ``starts[i]``
    on (oneDNN splits the work otherwise from there)."""

    starts: tuple[int, ...]
    pieces: tuple[KernelModel, ...]

    def record(self, length: int) -> KernelRecord:
        piece = next(
            p for s, p in zip(self.starts[::-1], self.pieces[::-1], strict=True) if length >= s
        )
        return piece.record(length)


def _at(line: Line, length: int) -> int:
    return round(line[0] + line[1] * length)


def _fit(lengths: tuple[int, ...], values: list[int]) -> Line:
    """The least-squares line through (length, value)."""
    n = len(lengths)
    mean_x, mean_y = sum(lengths) / n, sum(values) / n
    spread = sum((x - mean_x) ** 2 for x in lengths)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(lengths, values, strict=True)) / spread
    return mean_y - slope * mean_x, slope


_models: dict[tuple, PiecewiseModel | str] = {}


def line_tolerance(func: Any) -> int:
    """How far ``func``'s allocations may stray from their lines (``LINE_TOLERANCE``)."""
    rounded = func in (aten.mkldnn_rnn_layer.default, aten.mkldnn_rnn_layer_backward.default)
    return PAGE_ROUNDED_TOLERANCE if rounded else LINE_TOLERANCE


def kernel_record(func: Any, args: tuple, kwargs: dict) -> KernelRecord:
    """What ``func``'s CPU kernel holds during one call on these (meta) arguments, from its
    family's model; nothing runs at these shapes. The call runs as it is where that costs no
    more than a calibration call: below the shortest calibration length (at L = 1 a
    convolution whose input has a length-major layout reads as channels-last and copies its
    weight, which no longer length shows), and, for a family that could not be modelled, with
    arguments within ``LONG_CALIBRATION_BYTES``."""
    dims = LENGTH_DIMS[func]
    length = args[dims[0][0]].shape[dims[0][1]]
    arguments = argument_bytes(func, args, kwargs, length)
    if length < short_lengths(func, args)[0] and arguments <= MAX_CALIBRATION_BYTES:
        return _record_of_the_call(func, args, kwargs)
    model = kernel_model(func, args, kwargs)
    if isinstance(model, str) and arguments <= LONG_CALIBRATION_BYTES:
        return _record_of_the_call(func, args, kwargs)  # no dearer than a calibration call
    if isinstance(model, str):
        return KernelRecord(0, (), model)
    return model.record(length)


_calls: dict[tuple, KernelRecord] = {}


def _record_of_the_call(func: Any, args: tuple, kwargs: dict) -> KernelRecord:
    """The call run on real tensors laid out as ``args`` (once per process and call)."""
    called = _as_called(func, args)
    key = call_key(func, called, kwargs, [])
    key = key and (*key, torch.is_grad_enabled(), torch.get_num_threads())
    if key is not None and key in _calls:
        return _calls[key]
    try:
        (events,), (outputs,) = _real_calls(func, [called], kwargs)
    except RuntimeError as error:  # a kernel that refuses these shapes: a lower bound, said so
        return KernelRecord(0, (), _refused(func, error))
    live = peak = 0
    for size in events:
        live += size
        peak = max(peak, live)
    record = KernelRecord(peak, tuple(outputs))
    if key is not None:
        _calls[key] = record
    return record


def kernel_model(func: Any, args: tuple, kwargs: dict) -> PiecewiseModel | str:
    """The model of the family of ``func`` on ``args`` (fitted once per process), or why it
    could not be made."""
    canonical = _at_length(func, args, short_lengths(func, args)[0])
    key = call_key(func, canonical, kwargs, [])
    # the caller's grad mode, which kernels read (oneDNN's LSTM keeps a workspace for backward
    # only when gradients are on), and the threads (oneDNN sizes scratchpads per thread)
    key = key and (*key, torch.is_grad_enabled(), torch.get_num_threads())
    if key is not None and key in _models:
        return _models[key]
    model = _calibrate(func, args, kwargs)
    if key is not None:
        _models[key] = model
    return model


def _calibrate(func: Any, args: tuple, kwargs: dict) -> PiecewiseModel | str:
    name = str(func).removeprefix("aten.").removesuffix(".default")
    # the longest first: the shorter calls' buffers then fit in the heap it grew, which the C
    # allocator keeps (in ascending order each call grew it again: a process predicting
    # Hrchy-CNN and Bi-LSTM at batch 128 peaked 40 MB higher)
    short = short_lengths(func, args)
    longer = long_lengths(func, args, kwargs)
    lengths = tuple(sorted(short + longer, reverse=True))
    calls = [_at_length(func, args, length) for length in lengths]
    for length, call in zip(lengths, calls, strict=True):
        tensors = tensors_of((call, kwargs))
        if sum(t.numel() * t.element_size() for t in tensors) > MAX_CALIBRATION_BYTES:
            return (
                f"{name}: the inside memory is left out (a calibration call's arguments at "
                f"L={length} exceed {MAX_CALIBRATION_BYTES // 2**20} MiB)"
            )
    try:
        events, outputs = _real_calls(func, calls, kwargs)
    except RuntimeError as error:  # a kernel that refuses these shapes: a lower bound, said so
        return _refused(func, error)
    whole = _lines(lengths, events, outputs)
    tolerance = line_tolerance(func)
    calibrated = list(zip(lengths, events, strict=True))
    if whole is not None and not longer and whole.fits(calibrated, tolerance):
        return PiecewiseModel((0,), (whole,))
    if whole is not None:
        # A line through two clusters of lengths far apart can pass within the tolerance of a
        # step between them (a constant buffer taken from some length on), so lengths between
        # them are called too: a step puts one of them off the line.
        between = _between(max(short), min(longer))
        if whole.fits([*calibrated, *_checked(func, args, kwargs, between)], tolerance):
            return PiecewiseModel((0,), (whole,))
    parts = [
        (
            tuple(lengths[i] for i in part),
            [events[i] for i in part],
            [outputs[i] for i in part],
        )
        for part in (
            [i for i, n in enumerate(lengths) if n in short],
            [i for i, n in enumerate(lengths) if n in longer],
        )
    ]
    pieces = [_lines(*part) for part in parts]
    # each side a line through its own lengths (on an SSE4.1 CPU an unpadded convolution of
    # width 13 changes its buffer's layout between L = 25 and 29, again past 120 and by 601: a
    # line through 13..37 was 26 KB low at L = 23)
    if not all(
        piece is not None and piece.fits(zip(part[0], part[1], strict=True), tolerance)
        for piece, part in zip(pieces, parts, strict=True)
    ):
        return (
            f"{name}: the inside memory is left out (the kernel allocates differently at "
            f"different lengths)"
        )
    switch = _switch(func, args, kwargs, pieces, (max(short), min(longer)))
    edges = (  # the four lengths on either side of the switch
        tuple(switch - 1 - offset for offset in LONG_OFFSETS),
        tuple(switch + offset for offset in LONG_OFFSETS),
    )
    model = PiecewiseModel(
        (0, switch),
        tuple(
            _spanning(func, args, kwargs, piece, part, edge)
            for piece, part, edge in zip(pieces, parts, edges, strict=True)
        ),
    )
    # the long piece holds from the switch to the longest length: a third layout in between
    # (on SSE4.1 a width-9 convolution at batch 6 changes its input's layout near L = 70 and
    # again by 200; a line through 68..71 and 1997..2000 was 9.6% low at L = 97)
    between = _between(switch + max(LONG_OFFSETS), min(longer))
    if not model.pieces[1].fits(_checked(func, args, kwargs, between), tolerance):
        return (
            f"{name}: the inside memory is left out (the kernel allocates differently at "
            f"different lengths)"
        )
    return model


def _between(low: int, high: int) -> tuple[int, ...]:
    """Lengths between ``low`` and ``high`` that a model through both ends is checked at: the
    midpoint, and doublings of ``low`` (a layout change anywhere between puts one of them off
    a line)."""
    doublings = []
    length = 2 * low
    while length < high:
        doublings.append(length)
        length *= 2
    middle = (low + high) // 2
    return tuple(sorted({*doublings, middle} - {low, high})) if high - low > 1 else ()


def _checked(
    func: Any, args: tuple, kwargs: dict, lengths: tuple[int, ...]
) -> list[tuple[int, list[int]]]:
    """(length, events) of real calls at ``lengths``."""
    if not lengths:
        return []
    events, _ = _real_calls(func, [_at_length(func, args, n) for n in lengths], kwargs)
    return list(zip(lengths, events, strict=True))


def _spanning(
    func: Any,
    args: tuple,
    kwargs: dict,
    piece: KernelModel,
    part: tuple[tuple[int, ...], list[list[int]], list[list[int]]],
    edge: tuple[int, ...],
) -> KernelModel:
    """``piece`` fitted again with calls at ``edge`` (its end at the switch) beside its own
    lengths ``part``, so that its lines span every length it predicts: the long lengths alone
    span three tokens, and a page of rounding over three tokens tilts a line by hundreds of
    bytes per token (Bi-LSTM's training at [5, 1500, 300] was 0.31% high). ``piece`` as it was
    where those calls allocate otherwise."""
    lengths, events, outputs = part
    edge = tuple(n for n in edge if n not in lengths)
    if not edge:
        return piece
    more_events, more_outputs = _real_calls(func, [_at_length(func, args, n) for n in edge], kwargs)
    spanning = _lines(lengths + edge, events + more_events, outputs + more_outputs)
    calls = zip(lengths + edge, events + more_events, strict=True)
    fits = spanning is not None and spanning.fits(calls, line_tolerance(func))
    return spanning if fits else piece


def _refused(func: Any, error: RuntimeError) -> str:
    """Why a kernel's inside memory is left out: its call on real tensors failed."""
    name = str(func).removeprefix("aten.").removesuffix(".default")
    first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return f"{name}: the inside memory is left out (its calibration call failed: {first})"


def _lines(
    lengths: tuple[int, ...], events: list[list[int]], outputs: list[list[int]]
) -> KernelModel | None:
    """The least-squares lines of calls at ``lengths`` that allocate alike (the same number of
    allocations and frees, in the same order, and of outputs); None when they do not."""
    if (
        len({tuple(size > 0 for size in sizes) for sizes in events}) != 1
        or len({len(sizes) for sizes in outputs}) != 1
    ):
        return None
    return KernelModel(
        tuple(_fit(lengths, sizes) for sizes in _columns(events)),
        tuple(_fit(lengths, sizes) for sizes in _columns(outputs)),
    )


def shortest_length(func: Any, args: tuple) -> int:
    """The shortest length the kernel takes with ``args``' other sizes: every size that follows
    the length at least 1, and a convolution's output too (an unpadded or dilated kernel
    wider than the length has none)."""
    dims = LENGTH_DIMS[func]
    length = args[dims[0][0]].shape[dims[0][1]]
    shortest = max(
        length - args[i].shape[d] + 1 for i, d in dims if isinstance(args[i], torch.Tensor)
    )
    if func is aten.convolution.default:
        weight, padding, dilation = args[1], args[4][-1], args[5][-1]
        shortest = max(shortest, dilation * (weight.shape[-1] - 1) + 1 - 2 * padding)
    return max(shortest, 1)


def short_lengths(func: Any, args: tuple) -> tuple[int, ...]:
    """``SHORT_LENGTHS``, moved up as one where the kernel takes no length that short."""
    shift = max(0, shortest_length(func, args) - SHORT_LENGTHS[0])
    return tuple(length + shift for length in SHORT_LENGTHS)


def argument_bytes(func: Any, args: tuple, kwargs: dict, length: int) -> int:
    """The bytes of a call's tensor arguments at ``length`` (meta: nothing is allocated)."""
    tensors = tensors_of((_at_length(func, args, length), kwargs))
    return sum(t.numel() * t.element_size() for t in tensors)


def long_lengths(func: Any, args: tuple, kwargs: dict) -> tuple[int, ...]:
    """The family's four long calibration lengths: ending at the longest length up to
    ``LONGEST`` whose arguments fit ``LONG_CALIBRATION_BYTES`` and at least at
    ``SHORTEST_LONG_END`` (past the short lengths, however far those moved up); none when even
    that one's do not fit. oneDNN splits by the work per thread, which grows with the
    arguments: a family that large has its long lengths' split at the short lengths already,
    and calibrating it longer would only cost memory (12 MB more at the peak of a process
    predicting Bi-LSTM's training at [128, 1024, 300])."""
    past_short = max(short_lengths(func, args)) + len(LONG_OFFSETS)
    low, high = max(SHORTEST_LONG_END, past_short), max(LONGEST, past_short)
    if argument_bytes(func, args, kwargs, low) > LONG_CALIBRATION_BYTES:
        return ()
    if argument_bytes(func, args, kwargs, high) > LONG_CALIBRATION_BYTES:
        while high - low > 1:  # arguments grow with the length: the last that fits
            middle = (low + high) // 2
            fits = argument_bytes(func, args, kwargs, middle) <= LONG_CALIBRATION_BYTES
            low, high = (middle, high) if fits else (low, middle)
        high = low
    return tuple(high - offset for offset in LONG_OFFSETS)


def _switch(
    func: Any, args: tuple, kwargs: dict, pieces: list[KernelModel], between: tuple[int, int]
) -> int:
    """The first length at which calls allocate as the long lengths' piece does rather than
    the short lengths' (bisection ``between`` the two; one call at each length tried)."""
    low, high = between
    while high - low > 1:
        middle = (low + high) // 2
        (sizes,), _ = _real_calls(func, [_at_length(func, args, middle)], kwargs)
        short, long = (piece.distance(middle, sizes) for piece in pieces)
        low, high = (middle, high) if short <= long else (low, middle)
    return high


def _columns(rows: list[list[int]]) -> list[list[int]]:
    """The i-th entries of every row, for each i (the rows have one length)."""
    return [list(column) for column in zip(*rows, strict=True)]


def _real_calls(
    func: Any, calls: list[tuple], kwargs: dict
) -> tuple[list[list[int]], list[list[int]]]:
    """``func`` run on real tensors of each of ``calls``' argument shapes, in one profiler
    session: each call's allocations (positive) and frees (negative) in order, and the bytes of
    the tensors it returned."""
    labels = [f"sanbench calibration {index}" for index in range(len(calls))]
    outputs = []
    with allocation_trace() as prof:
        for label, args in zip(labels, calls, strict=True):
            real_args = REAL_ARGUMENTS.get(func, _real)(args)
            real_kwargs = {k: _real(v) for k, v in kwargs.items()}
            with record_function(label):
                out = func(*real_args, **real_kwargs)
            outputs.append([t.untyped_storage().nbytes() for t in tensors_of(out)])
            del out, real_args, real_kwargs
    return allocations_within(prof, labels), outputs


def _real(value: Any) -> Any:
    """``value`` with every meta tensor replaced by a CPU tensor of its shape, strides and dtype
    (normal values for floating point, zeros otherwise)."""
    if isinstance(value, torch.Tensor):
        real = torch.empty_strided(value.shape, value.stride(), dtype=value.dtype)
        return real.normal_() if real.is_floating_point() else real.zero_()
    if isinstance(value, list | tuple):
        return type(value)(_real(item) for item in value)
    return value


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


# How to make real arguments for a kernel whose arguments must agree with each other, and which
# arguments that remakes whatever they were (the LSTM backward's forward outputs and workspace).
REAL_ARGUMENTS: dict[Any, Callable[[tuple], tuple]] = {
    aten.mkldnn_rnn_layer_backward.default: _real_lstm_backward_arguments,
}
REMADE_ARGUMENTS: dict[Any, tuple[int, ...]] = {aten.mkldnn_rnn_layer_backward.default: (22,)}


def _with_size(tensor: torch.Tensor, dim: int, size: int) -> torch.Tensor:
    """A meta tensor like ``tensor`` with ``size`` at ``dim``: its dtype, the order of its
    strides and the gaps between them (a slice of a wider tensor, as the gradient a ``cat``
    passes back, stays one; a kernel copies it into a contiguous buffer of its own). Dimensions
    of size 1 go outermost, where their stride changes nothing (in ``tensor`` it may be any)."""
    shape = list(tensor.shape)
    shape[dim] = size
    order = sorted(range(tensor.dim()), key=lambda d: (tensor.shape[d] == 1, tensor.stride(d)))
    strides, extent, old_extent = [0] * tensor.dim(), 1, 1
    for d in order:
        if tensor.shape[d] != 1:
            strides[d] = extent + max(0, tensor.stride(d) - old_extent)  # the same gap
            old_extent = tensor.stride(d) * tensor.shape[d]
        else:
            strides[d] = extent
        extent = strides[d] * shape[d]
    return torch.empty_strided(shape, strides, dtype=tensor.dtype, device="meta")


def _at_length(func: Any, args: tuple, length: int) -> tuple:
    """``args`` with the sequence length (see ``LENGTH_DIMS``) changed to ``length``; the
    arguments ``REAL_ARGUMENTS`` remakes from the others become empty."""
    dims = LENGTH_DIMS[func]
    index, dim = dims[0]
    shift = length - args[index].shape[dim]
    changed = list(_as_called(func, args))
    for index, dim in dims:
        if isinstance(args[index], torch.Tensor):
            changed[index] = _with_size(args[index], dim, args[index].shape[dim] + shift)
    return tuple(changed)


def _as_called(func: Any, args: tuple) -> tuple:
    """``args`` with the arguments ``REAL_ARGUMENTS`` remakes from the others made empty."""
    changed = list(args)
    for index in REMADE_ARGUMENTS.get(func, ()):
        changed[index] = torch.empty(0, dtype=args[index].dtype, device="meta")
    return tuple(changed)
