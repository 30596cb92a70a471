"""Settings of every test: the compiled kernels of the commands the tests run stay out of the
user's ``~/.cache/sanbench`` (the commands put them there, docs/training.md)."""

from __future__ import annotations

import getpass
import os
import tempfile
from pathlib import Path

# inductor's own default folder, shared by test sessions as by any torch program of this user:
# a test session compiles the attention tiles once per machine, not once per session
os.environ.setdefault(
    "TORCHINDUCTOR_CACHE_DIR",
    str(Path(tempfile.gettempdir()) / f"torchinductor_{getpass.getuser()}"),
)
