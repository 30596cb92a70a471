"""The NVML column: torch's device found in NVML by PCI bus id, NVML's failures said, never raised.

No GPU here: NVML and torch's device properties are stood in for by what they return on a machine
whose ``CUDA_VISIBLE_DEVICES=2`` makes NVML's third GPU torch's ``cuda:0``.
"""

from __future__ import annotations

import os
import sys
from types import ModuleType, SimpleNamespace

import pynvml
import pytest
import torch

from harness.measurement.gpu_process import gpu_process_memory, nvml_bus_id
from harness.profiling import measure

# NVML's GPUs by bus id: the third (index 2) is the one torch sees as cuda:0
NVML_GPUS = {"00000000:1A:00.0": 0, "00000000:3B:00.0": 1, "00000000:5E:00.0": 2}


class FakeNvml:
    def __init__(self, pid: int, used_mb_by_gpu: dict[int, int]) -> None:
        self.pid, self.used = pid, used_mb_by_gpu
        self.by_index_calls: list[int] = []

    def nvmlDeviceGetHandleByPciBusId(self, bus_id: str) -> int:  # noqa: N802
        if bus_id not in NVML_GPUS:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_FOUND)
        return NVML_GPUS[bus_id]

    def nvmlDeviceGetHandleByIndex(self, index: int) -> int:  # noqa: N802
        self.by_index_calls.append(index)
        return index

    def nvmlDeviceGetComputeRunningProcesses(self, handle: int) -> list:  # noqa: N802
        return [SimpleNamespace(pid=self.pid, usedGpuMemory=self.used.get(handle, 0) * 2**20)]


@pytest.fixture
def visible_gpu_2(monkeypatch: pytest.MonkeyPatch) -> FakeNvml:
    """torch's cuda:0 is the GPU at bus 5E (NVML's index 2)."""
    nvml = FakeNvml(os.getpid(), {0: 111, 1: 222, 2: 333})
    for name in ("nvmlDeviceGetHandleByPciBusId", "nvmlDeviceGetHandleByIndex",
                 "nvmlDeviceGetComputeRunningProcesses"):  # fmt: skip
        monkeypatch.setattr(pynvml, name, getattr(nvml, name))
    monkeypatch.setattr(pynvml, "nvmlInit", lambda: None)
    monkeypatch.setattr(pynvml, "nvmlShutdown", lambda: None)
    properties = SimpleNamespace(pci_domain_id=0, pci_bus_id=0x5E, pci_device_id=0)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda index: properties)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    return nvml


def test_the_bus_id_is_spelled_as_nvml_spells_it() -> None:
    properties = SimpleNamespace(pci_domain_id=1, pci_bus_id=0x3B, pci_device_id=0x1F)
    assert nvml_bus_id(properties) == "00000001:3B:1F.0"


def test_torchs_cuda_0_is_read_on_the_gpu_with_its_bus_id(visible_gpu_2: FakeNvml) -> None:
    """Under CUDA_VISIBLE_DEVICES=2 the column is NVML's GPU 2's, not NVML's GPU 0's."""
    used, why = gpu_process_memory(torch.device("cuda", 0))
    assert (used, why) == (333.0, "")
    assert visible_gpu_2.by_index_calls == []


def test_an_nvml_error_leaves_the_column_empty_with_the_reason(
    visible_gpu_2: FakeNvml, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(handle: int) -> list:
        raise pynvml.NVMLError(pynvml.NVML_ERROR_FUNCTION_NOT_FOUND)

    monkeypatch.setattr(pynvml, "nvmlDeviceGetComputeRunningProcesses", broken)
    used, why = gpu_process_memory(torch.device("cuda", 0))
    assert used is None and "NVML could not read GPU 00000000:5E:00.0" in why


def test_nvml_that_does_not_start_leaves_the_column_empty_with_the_reason(
    visible_gpu_2: FakeNvml, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_driver() -> None:
        raise pynvml.NVMLError(pynvml.NVML_ERROR_DRIVER_NOT_LOADED)

    monkeypatch.setattr(pynvml, "nvmlInit", no_driver)
    used, why = gpu_process_memory(torch.device("cuda", 0))
    assert used is None and "NVML did not start" in why


def test_a_process_nvml_does_not_list_says_why(visible_gpu_2: FakeNvml) -> None:
    """In a container NVML lists the host's process ids: the column says so."""
    visible_gpu_2.pid = os.getpid() + 100_000
    used, why = gpu_process_memory(torch.device("cuda", 0))
    assert used is None and "host's process ids" in why


def test_an_nvml_shutdown_that_fails_keeps_the_value_read_and_notes_it(
    visible_gpu_2: FakeNvml, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 57 (outside tester): ``nvmlShutdown`` ran in a ``finally`` outside the ``try``, so its
    NVMLError reached ``point_metrics`` and the measured point became an error row; then its
    failure emptied a column already read (issue 57 breaker): the value stays, with a note."""

    def fails() -> None:
        raise pynvml.NVMLError(pynvml.NVML_ERROR_UNKNOWN)

    monkeypatch.setattr(pynvml, "nvmlShutdown", fails)
    used, why = gpu_process_memory(torch.device("cuda", 0))
    assert used == 333.0
    assert why.startswith("NVML column read, but NVML did not shut down (Unknown Error)"), why
    assert measure.nvml_columns(torch.device("cuda", 0)) == {
        "gpu_process_mem_mb": 333.0,
        "message": why,
    }
    visible_gpu_2.pid = os.getpid() + 100_000  # nothing read: the reason, then the note
    used, why = gpu_process_memory(torch.device("cuda", 0))
    assert used is None and "host's process ids" in why and "did not shut down" in why


NVML_CALLS = (
    "nvmlInit",
    "nvmlDeviceGetHandleByPciBusId",
    "nvmlDeviceGetComputeRunningProcesses",
)


@pytest.mark.parametrize("call", NVML_CALLS)
def test_an_nvml_error_at_any_call_leaves_the_column_empty(
    call: str, visible_gpu_2: FakeNvml, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fails(*args: object) -> None:
        raise pynvml.NVMLError(pynvml.NVML_ERROR_UNKNOWN)

    monkeypatch.setattr(pynvml, call, fails)
    used, why = gpu_process_memory(torch.device("cuda", 0))
    assert used is None and why.startswith("NVML column empty: ")


def test_a_process_listed_without_a_memory_value_says_so(
    visible_gpu_2: FakeNvml, monkeypatch: pytest.MonkeyPatch
) -> None:
    """NVML lists the process but gives no memory (``usedGpuMemory`` None: a MIG instance, no
    permission): the reason says that, not that the process ids are the host's."""
    no_value = [SimpleNamespace(pid=os.getpid(), usedGpuMemory=None)]
    monkeypatch.setattr(pynvml, "nvmlDeviceGetComputeRunningProcesses", lambda handle: no_value)
    used, why = gpu_process_memory(torch.device("cuda", 0))
    assert used is None and "gives no memory value" in why and "container" not in why


def test_a_cpu_point_has_no_nvml_column() -> None:
    assert gpu_process_memory(torch.device("cpu")) == (None, "")


def broken_nvml_module() -> ModuleType:
    """A pynvml whose every call fails as a driver older than the library makes it fail."""
    module = ModuleType("pynvml")

    class NVMLError(Exception):
        pass

    def fails(*args: object) -> None:
        raise NVMLError("Function Not Found")

    module.NVMLError = NVMLError  # type: ignore[attr-defined]
    calls = ("Init", "Shutdown", "DeviceGetHandleByPciBusId", "DeviceGetComputeRunningProcesses")
    for name in calls:
        setattr(module, f"nvml{name}", fails)
    return module


def test_an_nvml_error_does_not_turn_a_measured_point_into_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 57.2: ``point_metrics`` read NVML unguarded, so an NVMLError raised inside the
    point's step and the row became ``error``, its numbers lost. Now the NVML columns of a CUDA
    point are empty, with the reason in the row's message."""
    monkeypatch.setitem(sys.modules, "pynvml", broken_nvml_module())
    properties = SimpleNamespace(pci_domain_id=0, pci_bus_id=0x5E, pci_device_id=0)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda index: properties)
    columns = measure.nvml_columns(torch.device("cuda", 0))
    assert columns["gpu_process_mem_mb"] is None
    assert "NVML column empty: NVML did not start (Function Not Found)" in columns["message"]


def test_a_cpu_point_has_no_nvml_columns() -> None:
    assert measure.nvml_columns(torch.device("cpu")) == {"gpu_process_mem_mb": None}


def struct_size_error(*args: object) -> None:
    """What a pynvml newer than the driver's NVML raises where their structs' sizes differ."""
    raise TypeError("nvmlDeviceGetComputeRunningProcesses: struct c_nvmlProcessInfo_v3_t size")


@pytest.mark.parametrize("call", NVML_CALLS)
def test_a_struct_size_type_error_leaves_the_column_empty_as_an_nvml_error_does(
    call: str, visible_gpu_2: FakeNvml, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A TypeError from pynvml's ctypes structs (an old NVML under a new pynvml) was not caught
    where NVMLError is, and the measured point became an error row."""
    monkeypatch.setattr(pynvml, call, struct_size_error)
    used, why = gpu_process_memory(torch.device("cuda", 0))
    assert used is None and why.startswith("NVML column empty: ") and "struct" in why
