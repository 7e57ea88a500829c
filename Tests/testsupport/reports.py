"""JSON reports that a participant rewrites while it runs (`conftui join/bot --report`, the aiortc process): written
to a temporary file and renamed, so a reader never sees half a report."""

from __future__ import annotations

import json
import os
import pathlib


def write_report(path: str, value: dict) -> None:
    temporary = path + ".tmp"
    with open(temporary, "w") as f:
        json.dump(value, f, indent=1, default=float)
    os.replace(temporary, path)


def read_report(path: pathlib.Path) -> dict | None:
    """The report at `path`, or None before the first one."""
    try:
        return json.loads(pathlib.Path(path).read_text())
    except (OSError, ValueError):
        return None
