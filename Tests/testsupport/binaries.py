"""Where the repository and the conftui binary under test are."""

from __future__ import annotations

import os
import pathlib

TESTS = pathlib.Path(__file__).resolve().parents[1]
REPO = TESTS.parent


def conftui_bin() -> str:
    """`$CONFTUI_BIN` (`make interop-test` sets it to the release build), as an absolute path."""
    path = os.environ.get("CONFTUI_BIN", "").strip()
    if not path:
        raise RuntimeError("set CONFTUI_BIN to the built conftui binary (make interop-test does)")
    return os.path.abspath(path)
