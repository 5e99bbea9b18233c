"""The user's cache folder for what cpsc computes once and reuses: the compiled C runtime, the
parser's tables."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    path = Path(base) / "cpsc"
    path.mkdir(parents=True, exist_ok=True)
    return path
