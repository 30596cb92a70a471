"""The profile flow reads down (issue 55.8): ``harness.profiling`` runs the sweep and imports
the prediction and the measurement; neither imports anything of ``harness.profiling`` (the step
they share is ``harness.measurement.profiled_step``'s)."""

from __future__ import annotations

import pytest

from tests.test_architecture import imported, ours, product_modules


@pytest.mark.parametrize("package", ["harness.memory_prediction", "harness.measurement"])
def test_prediction_and_measurement_import_nothing_of_profiling(package: str) -> None:
    modules = product_modules()
    upward = sorted(
        f"{module} -> {target}"
        for module, path in modules.items()
        if module.startswith(f"{package}.")
        for target in {ours(name, modules) for name in imported(module, path)} - {None}
        if target.startswith("harness.profiling")
    )
    assert not upward, upward


def test_profiled_step_imports_no_torch() -> None:
    """``profile``'s options (``harness.profiling.grid``) are checked before torch loads."""
    import subprocess
    import sys

    code = "import sys, harness.profiling.grid; print('torch' in sys.modules)"
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "False"
