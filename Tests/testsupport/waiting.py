"""Polling with a deadline, for tests that wait on processes, files or screens (`pages.wait_until` waits on pages)."""

from __future__ import annotations

import time
from typing import Callable, Iterable


def wait_for(condition: Callable[[], bool], timeout: float, what: str, processes: Iterable = (),
             interval: float = 0.2) -> None:
    """Returns once `condition()` holds; an AssertionError naming `what` after `timeout` s, or at once when one of
    `processes` (anything with a `process` Popen and a `name` or `display`) has exited meanwhile."""
    deadline = time.monotonic() + timeout
    while True:
        for p in processes:
            label = getattr(p, "name", None) or getattr(p, "display", None) or "a participant"
            assert p.process.poll() is None, f"{label} exited while waiting until {what}"
        if condition():
            return
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        time.sleep(interval)


def eventually(condition: Callable[[], bool], timeout: float, interval: float = 0.1) -> bool:
    """Whether `condition()` came to hold within `timeout` s."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(interval)
    return True
