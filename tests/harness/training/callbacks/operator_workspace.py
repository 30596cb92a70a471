"""What an operator holds inside itself while it runs, the one thing an allocator counts and
``live_tensor_count`` cannot see: the tolerance between the two.

:class:`OperatorWorkspace` is a callback that runs every training step under
``torch.profiler`` (``profile_memory``) and reads its trace: for each outermost ``aten::``
operator, the blocks allocated *and* freed within its span (a convolution's per-thread weight
gradients, contiguous copies of operands, partial sums), and the most of them held at once. A
step's workspace is the largest over its operators. Only one operator runs at a time, and what
it returns outlives it (the count sees that), so at any moment an allocator holds the counted
bytes plus at most one operator's workspace.

It is a separate run of the same steps, read op by op: it does not repeat the fit's reading
(a step's total), and a composite operator's intermediate outputs, which the count sees too,
only make the allowance larger.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import lightning.pytorch as pl
from torch.profiler import ProfilerActivity, profile


def _events(prof: profile) -> list[dict]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "trace.json"
        prof.export_chrome_trace(str(path))
        return json.loads(path.read_text())["traceEvents"]


def _outermost_operators(events: list[dict]) -> list[tuple[float, float]]:
    spans = sorted(
        (e["ts"], e["ts"] + e["dur"])
        for e in events
        if e.get("cat") == "cpu_op" and e.get("name", "").startswith("aten::")
    )
    outermost: list[tuple[float, float]] = []
    for start, end in spans:
        if outermost and start <= outermost[-1][1]:
            continue  # inside the previous outermost operator
        outermost.append((start, end))
    return outermost


def workspace(events: list[dict]) -> int:
    """The most bytes an outermost operator held at once in blocks it allocated and freed."""
    records = sorted(
        (e for e in events if e.get("name") == "[memory]"),
        key=lambda e: (e["ts"], e["args"].get("Ev Idx", 0)),
    )
    freed_at: dict[int, float] = {}  # index of an allocation -> time of its free
    open_blocks: dict[int, int] = {}  # address -> index of its allocation
    for index, record in enumerate(records):
        address, size = record["args"]["Addr"], record["args"]["Bytes"]
        if size > 0:
            open_blocks[address] = index
        elif address in open_blocks:
            freed_at[open_blocks.pop(address)] = record["ts"]
    spans = _outermost_operators(events)
    largest = held = current = 0
    inside: dict[int, int] = {}
    for index, record in enumerate(records):
        while current < len(spans) and spans[current][1] < record["ts"]:
            current, held, inside = current + 1, 0, {}  # the next operator
        if current == len(spans) or record["ts"] < spans[current][0]:
            continue  # between operators
        address, size = record["args"]["Addr"], record["args"]["Bytes"]
        if size > 0 and freed_at.get(index, float("inf")) <= spans[current][1]:
            inside[address] = size
            held += size
        elif size < 0 and address in inside:
            held -= inside.pop(address)
        largest = max(largest, held)
    return largest


class OperatorWorkspace(pl.Callback):
    """``step_workspaces``: each training step's largest operator workspace, in bytes."""

    def __init__(self) -> None:
        self.step_workspaces: list[int] = []
        self._profile: profile | None = None

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx) -> None:
        self._profile = profile(activities=[ProfilerActivity.CPU], profile_memory=True)
        self._profile.__enter__()

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        assert self._profile is not None
        self._profile.__exit__(None, None, None)
        self.step_workspaces.append(workspace(_events(self._profile)))
        self._profile = None
