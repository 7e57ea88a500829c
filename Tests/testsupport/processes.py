"""Child processes of the tests: reading their output line by line, waiting for a line, stopping them, free ports."""

from __future__ import annotations

import pathlib
import re
import signal
import socket
import subprocess
import threading
import time


class LineReader:
    """Reads a child's text stdout to its end on a thread (so a chatty child never blocks on a full pipe), keeping
    every line; `wait_for` returns the first line matching a pattern."""

    def __init__(self, stream) -> None:
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self._ended = False
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream) -> None:
        for line in stream:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self._ended = True
            self._changed.notify_all()

    def wait_for(self, pattern: re.Pattern, timeout: float) -> re.Match | None:
        """The match of the first line matching `pattern`, or None if the output ends or `timeout` passes first."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for line in self.lines:
                    match = pattern.match(line)
                    if match:
                        return match
                remaining = deadline - time.monotonic()
                if self._ended or remaining <= 0:
                    return None
                self._changed.wait(remaining)

    def join(self, timeout: float = 5.0) -> None:
        self._thread.join(timeout)


def stop_process(process: subprocess.Popen, sig: int = signal.SIGTERM, timeout: float = 15.0) -> int:
    """Sends `sig` if it still runs, waits `timeout` s for it to exit, then kills it; returns its exit status."""
    if process.poll() is None:
        process.send_signal(sig)
    try:
        return process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        return process.wait(5)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on now (for a server that must come back on the same port)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tail(path: pathlib.Path, chars: int = 12000) -> str:
    """The end of a log or report file, or "(none)" when it does not exist (yet)."""
    try:
        return pathlib.Path(path).read_text(errors="replace")[-chars:]
    except OSError:
        return "(none)"


def tail_lines(path: pathlib.Path, lines: int = 60) -> str:
    """The last `lines` lines of a file, or "(none)"."""
    try:
        return "\n".join(pathlib.Path(path).read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(none)"
