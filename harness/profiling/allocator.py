"""Choosing the host allocator for worker processes (glibc malloc or jemalloc via LD_PRELOAD).

glibc page-faults heavily on multi-GB tensors; jemalloc (Debian ``libjemalloc2``) reuses pages.
The choice is made by starting each worker with ``LD_PRELOAD`` set, so it needs no shell setup.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

JEMALLOC_NAME = "libjemalloc.so.2"
JEMALLOC_PATHS = (
    Path("/usr/lib/x86_64-linux-gnu") / JEMALLOC_NAME,
    Path("/usr/lib/aarch64-linux-gnu") / JEMALLOC_NAME,
    Path("/usr/lib64") / JEMALLOC_NAME,
    Path("/usr/lib") / JEMALLOC_NAME,
)
CHOICES = ("auto", "glibc", "jemalloc")


def find_jemalloc() -> str | None:
    """Path of libjemalloc.so.2 (known Debian/Ubuntu/RHEL paths, then ``ldconfig -p``)."""
    for path in JEMALLOC_PATHS:
        if path.exists():
            return str(path)
    try:
        listing = subprocess.run(
            ["ldconfig", "-p"], capture_output=True, text=True, timeout=10, check=False
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    for line in listing.splitlines():
        if JEMALLOC_NAME in line and "=>" in line:
            return line.split("=>")[-1].strip()
    return None


def resolve(choice: str) -> tuple[str, str | None]:
    """(allocator name, library to preload) for ``--allocator auto|glibc|jemalloc``."""
    if choice not in CHOICES:
        raise ValueError(f"--allocator {choice!r}: expected one of {', '.join(CHOICES)}")
    if choice == "glibc":
        return "glibc", None
    library = find_jemalloc()
    if library is None:
        if choice == "jemalloc":
            raise ValueError(
                f"--allocator jemalloc: {JEMALLOC_NAME} not found (looked in "
                f"{', '.join(str(p.parent) for p in JEMALLOC_PATHS)} and ldconfig); install it "
                "(Debian/Ubuntu: apt-get install libjemalloc2) or pass --allocator glibc"
            )
        return "glibc", None
    return "jemalloc", library


def preload_env(env: dict[str, str], library: str | None) -> dict[str, str]:
    """A copy of ``env`` whose LD_PRELOAD holds ``library`` and no other jemalloc."""
    kept = [p for p in env.get("LD_PRELOAD", "").split(":") if p and "jemalloc" not in p]
    preload = [library, *kept] if library else kept
    out = {k: v for k, v in env.items() if k != "LD_PRELOAD"}
    if preload:
        out["LD_PRELOAD"] = ":".join(preload)
    return out
