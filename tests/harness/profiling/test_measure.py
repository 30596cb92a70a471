"""Which failures of a point ``measure`` counts as out-of-memory or as spoiling the device, in
each library's spelling (torch's, cuBLAS's, cuDNN's and Triton's, whose kernels the compiled
tiles are on CUDA)."""

from __future__ import annotations

import pytest

from harness.profiling.measure import is_oom, spoils_device


@pytest.mark.parametrize(
    "message",
    [
        "CUDA error: an illegal memory access was encountered",
        "Triton Error [CUDA]: an illegal memory access was encountered",
        "Triton Error [CUDA]: unspecified launch failure",
        "CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, ...)`",
    ],
)
def test_a_device_error_in_each_librarys_spelling_spoils_the_device(message: str) -> None:
    """Outside breaker of issue 57: Triton's ``Triton Error [CUDA]: ...`` (its driver's
    ``cuGetErrorString`` after its own prefix) was not counted, so the worker went on measuring
    on a device whose every later call fails."""
    assert spoils_device(RuntimeError(message))
    assert not is_oom(RuntimeError(message))


def test_tritons_out_of_memory_is_an_oom() -> None:
    """Triton's spelling of CUDA_ERROR_OUT_OF_MEMORY, raised outside torch's allocator."""
    assert is_oom(RuntimeError("Triton Error [CUDA]: out of memory"))


def test_an_ordinary_error_neither_spoils_the_device_nor_is_an_oom() -> None:
    error = RuntimeError("shape mismatch: [2, 3] against [3, 2]")
    assert not spoils_device(error) and not is_oom(error)
