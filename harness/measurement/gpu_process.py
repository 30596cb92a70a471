"""What NVML says of torch's GPUs: the memory it attributes to this process, the GPUs on which it
lists a process, a GPU's UUID; torch's device found in NVML by PCI bus id.

torch numbers the GPUs it sees (after ``CUDA_VISIBLE_DEVICES`` and ``CUDA_DEVICE_ORDER``); NVML
numbers every GPU of the machine in its own order, so under SLURM with
``CUDA_VISIBLE_DEVICES=2`` torch's ``cuda:0`` is NVML's GPU 2. The PCI bus id names the same GPU
in both. Every NVML failure (no driver, a driver older than the library, a missing symbol, structs
of another size than the driver's) leaves the column empty with the reason, and never costs the
point its measured numbers.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import torch

from harness.measurement.tensor_memory import MB

T = TypeVar("T")


def nvml_bus_id(properties: Any) -> str:
    """NVML's spelling of a device's PCI bus id, ``DDDDDDDD:BB:DD.0``, from
    ``torch.cuda.get_device_properties``' ``pci_domain_id``, ``pci_bus_id``, ``pci_device_id``."""
    domain, bus, device = properties.pci_domain_id, properties.pci_bus_id, properties.pci_device_id
    return f"{domain:08X}:{bus:02X}:{device:02X}.0"


def nvml_failures(nvml: Any) -> tuple[type[Exception], ...]:
    """What a call of the pynvml module ``nvml`` raises when NVML fails: its ``NVMLError``, and
    ``TypeError`` where pynvml's ctypes structs are not the size of the driver's (a pynvml newer
    than the driver's NVML)."""
    return (nvml.NVMLError, TypeError)


def nvml_module() -> Any | None:
    """The pynvml module, or None when it is not installed."""
    try:
        import pynvml
    except ImportError:
        return None
    return pynvml


def read_with_nvml(nvml: Any, read: Callable[[], T]) -> tuple[T | None, str, str]:
    """(what ``read`` returned between NVML's start and shut down, or None; the error of a failed
    start or read, or ""; the error of a failed shut down, or ""). A failure at any call is
    :func:`nvml_failures`; a failed shut down keeps what was read (as ``gpu_process_memory``
    does)."""
    try:
        nvml.nvmlInit()
    except nvml_failures(nvml) as error:
        return None, str(error) or type(error).__name__, ""
    try:
        value, failed = read(), ""
    except nvml_failures(nvml) as error:
        value, failed = None, str(error) or type(error).__name__
    try:
        nvml.nvmlShutdown()
    except nvml_failures(nvml) as error:
        return value, failed, f"NVML did not shut down ({error})"
    return value, failed, ""


def nvml_uuid(nvml: Any, properties: Any) -> Any:
    """NVML's UUID of torch's device ``properties``, found by its PCI bus id (NVML started)."""
    return nvml.nvmlDeviceGetUUID(nvml.nvmlDeviceGetHandleByPciBusId(nvml_bus_id(properties)))


def gpus_listing(pid: int, nvml: Any, properties: Sequence[Any]) -> list[int]:
    """torch's indices of the GPUs on which NVML lists process ``pid`` (NVML started)."""
    listed = []
    for index, device in enumerate(properties):
        handle = nvml.nvmlDeviceGetHandleByPciBusId(nvml_bus_id(device))
        if any(p.pid == pid for p in nvml.nvmlDeviceGetComputeRunningProcesses(handle)):
            listed.append(index)
    return listed


def gpu_process_memory(device: torch.device) -> tuple[float | None, str]:
    """(MB NVML attributes to this process on ``device``, context and caching allocator's reserve
    included; why it is empty when it is). CPU devices: (None, ""). A failure at start, lookup
    or listing (:func:`nvml_failures`) empties the column with its reason; a failed shut down
    keeps the value read and notes the failure beside it; it never raises."""
    if device.type != "cuda":
        return None, ""
    pynvml = nvml_module()
    if pynvml is None:
        return None, "NVML column empty: pynvml is not installed"
    index = device.index if device.index is not None else torch.cuda.current_device()
    bus_id = nvml_bus_id(torch.cuda.get_device_properties(index))
    try:
        pynvml.nvmlInit()
    except nvml_failures(pynvml) as error:
        return None, f"NVML column empty: NVML did not start ({error})"
    try:
        handle = pynvml.nvmlDeviceGetHandleByPciBusId(bus_id)
        processes = pynvml.nvmlDeviceGetComputeRunningProcesses(handle)
    except nvml_failures(pynvml) as error:
        read_error = f"NVML column empty: NVML could not read GPU {bus_id} ({error})"
    else:
        read_error = ""
    try:
        pynvml.nvmlShutdown()
    except nvml_failures(pynvml) as error:
        unfinished = f"NVML did not shut down ({error})"
    else:
        unfinished = ""
    used, why = (None, read_error) if read_error else process_memory(processes, os.getpid(), bus_id)
    if unfinished:  # what was read stays: the failure is noted beside it
        note = f"NVML column read, but {unfinished}" if used is not None else unfinished
        why = "; ".join(part for part in (why, note) if part)
    return used, why


def process_memory(processes: Any, pid: int, bus_id: str) -> tuple[float | None, str]:
    """(MB of process ``pid`` in NVML's listing of GPU ``bus_id``; why it is empty when it is)."""
    mine = next((process for process in processes if process.pid == pid), None)
    if mine is None:
        return None, (
            f"NVML column empty: NVML lists no process {pid} on GPU {bus_id} "
            "(in a container NVML reports the host's process ids)"
        )
    if mine.usedGpuMemory is None:
        return None, (
            f"NVML column empty: NVML lists process {pid} on GPU {bus_id} but gives no memory "
            "value for it (a MIG instance, or no permission to read other processes' use)"
        )
    return mine.usedGpuMemory / MB, ""


def reserved_bytes(device: torch.device) -> int:
    """Bytes torch's caching allocator holds on ``device`` (``torch.cuda.memory_reserved``)."""
    return torch.cuda.memory_reserved(device)


def total_bytes(device: torch.device) -> int:
    """The GPU's memory in bytes (``torch.cuda.get_device_properties``' ``total_memory``): the
    GPU's twin of ``machine_memory.physical_bytes``."""
    return torch.cuda.get_device_properties(device).total_memory
