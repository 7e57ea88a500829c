"""The signaling server of a test: `conftui serve` or the reference SkyRTC server, started on 127.0.0.1, its one
stdout line (`conftui serve: listening on http://HOST:PORT/ (ws://HOST:PORT/)`, which the reference server prints
too) parsed here and nowhere else.

Which server the interop tests use (printed in pytest's summary, never chosen silently), from the environment:
- `SIGNALING=reference`: Tests/Interop/skyrtc_reference_server.py (original SkyRTC semantics);
- `SIGNALING=conftui`: `$CONFTUI_BIN serve --port 0 --host 127.0.0.1`, failing if that binary has no `serve`;
- unset: `$CONFTUI_BIN serve` when CONFTUI_BIN is set and has a `serve` command, else the reference server.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import pathlib
import re
import subprocess
import sys

import pytest

from testsupport.binaries import TESTS, conftui_bin
from testsupport.processes import LineReader, stop_process, tail_lines

REFERENCE_SERVER = TESTS / "Interop" / "skyrtc_reference_server.py"
LISTENING_LINE = re.compile(r"^conftui serve: listening on (http://(\d+\.\d+\.\d+\.\d+:\d+)/) \((ws://\2/)\)$")
STARTUP_TIMEOUT = 15.0


def conftui_serve_command(*flags: str, port: int = 0, binary: str | None = None) -> tuple[str, ...]:
    return (binary or conftui_bin(), "serve", "--port", str(port), "--host", "127.0.0.1", *flags)


def reference_server_command(*flags: str) -> tuple[str, ...]:
    return (sys.executable, str(REFERENCE_SERVER), "--host", "127.0.0.1", "--port", "0", "--verbose", *flags)


class ServerProcess:
    """One signaling server process; `start()` again (after `stop()`) restarts the same command, on the same port
    when the command names one. Its stderr (the server's log) is appended to `log_path`."""

    def __init__(self, command: tuple[str, ...], description: str, log_path: pathlib.Path,
                 cwd: pathlib.Path | None = None) -> None:
        self.command, self.description, self.log_path, self.cwd = command, description, log_path, cwd
        self.process: subprocess.Popen | None = None
        self.stdout: LineReader | None = None
        self.http_url = self.ws_url = ""

    def start(self) -> ServerProcess:
        with open(self.log_path, "ab") as log_file:
            self.process = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                            stderr=log_file, text=True, cwd=self.cwd)
        self.stdout = LineReader(self.process.stdout)
        match = self.stdout.wait_for(LISTENING_LINE, STARTUP_TIMEOUT)
        if match is None or match.string != self.stdout.lines[0]:
            self.stop()
            pytest.fail(f"{self.description} did not print the 'listening on' line first within {STARTUP_TIMEOUT} s; "
                        f"got {self.stdout.lines[:3]!r}; log:\n{tail_lines(self.log_path, 200)}")
        self.http_url, self.ws_url = match.group(1), match.group(3)
        return self

    def stop(self) -> None:
        if self.process is not None:
            stop_process(self.process, timeout=5)
            self.stdout.join()
            self.process.stdout.close()

    @property
    def stdout_lines(self) -> list[str]:
        """The 'listening on' line, then anything else it printed (the contract says nothing)."""
        return self.stdout.lines if self.stdout else []

    def log_tail(self, lines: int = 60) -> str:
        text = tail_lines(self.log_path, lines)
        if len(self.stdout_lines) > 1:
            text += "\n(more stdout than the 'listening on' line:)\n" + "\n".join(self.stdout_lines[1:][-lines:])
        return text

    def describe(self) -> str:
        return f"===== signaling server ({self.description}) log =====\n{self.log_tail(150)}"


@contextlib.contextmanager
def running_server(command: tuple[str, ...], description: str, log_path: pathlib.Path,
                   cwd: pathlib.Path | None = None):
    """Starts `command`, waits for its 'listening on' line, yields the ServerProcess, and stops it."""
    server = ServerProcess(command, description, log_path, cwd)
    try:
        yield server.start()
    finally:
        server.stop()


@dataclasses.dataclass(frozen=True)
class ServerChoice:
    command: tuple[str, ...]
    description: str


def _has_serve_command(binary: str) -> bool:
    try:
        result = subprocess.run([binary, "serve", "--help"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return result.returncode == 0 and "serve" in result.stdout


def choose_server() -> ServerChoice:
    choice = os.environ.get("SIGNALING", "").strip().lower()
    binary = os.environ.get("CONFTUI_BIN", "").strip()
    reference = reference_server_command()
    if choice not in ("", "reference", "conftui"):
        raise pytest.UsageError(f"SIGNALING must be 'reference' or 'conftui', not {choice!r}")
    if choice == "reference":
        return ServerChoice(reference, "reference SkyRTC server (SIGNALING=reference)")
    if binary:
        if not os.access(binary, os.X_OK):
            raise pytest.UsageError(f"CONFTUI_BIN={binary} is not an executable file")
        if _has_serve_command(binary):
            return ServerChoice(conftui_serve_command(binary=binary), f"{binary} serve")
        if choice == "conftui":
            raise pytest.UsageError(f"SIGNALING=conftui but {binary} has no 'serve' command")
        return ServerChoice(reference, f"reference SkyRTC server ({binary} has no 'serve' command yet)")
    if choice == "conftui":
        raise pytest.UsageError("SIGNALING=conftui needs CONFTUI_BIN")
    return ServerChoice(reference, "reference SkyRTC server (CONFTUI_BIN not set)")


_CHOICE: ServerChoice | None = None


def server_choice() -> ServerChoice:
    """The server of this session (see the module doc), decided once."""
    global _CHOICE
    if _CHOICE is None:
        _CHOICE = choose_server()
    return _CHOICE


def chosen_so_far() -> ServerChoice | None:
    return _CHOICE
