"""Fixtures for the interop tests: a SkyRTC signaling server on a free loopback port, and headless Chromium.

Which signaling server runs (printed in pytest's header, never chosen silently):
- `SIGNALING=reference`: Tests/Interop/skyrtc_reference_server.py (original SkyRTC semantics);
- `SIGNALING=conftui`: `$CONFTUI_BIN serve --port 0 --host 127.0.0.1`, failing if that binary has no `serve`;
- unset: `$CONFTUI_BIN serve` when CONFTUI_BIN is set and has a `serve` command, else the reference server.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import os
import pathlib
import re
import subprocess
import sys
import threading

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from chromium import Chromium  # noqa: E402

REFERENCE_SERVER = HERE / "skyrtc_reference_server.py"
LISTENING_LINE = re.compile(r"^conftui serve: listening on (http://(127\.0\.0\.1:\d+)/) \((ws://\2/)\)$")
STARTUP_TIMEOUT = 15.0


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
    reference = (sys.executable, str(REFERENCE_SERVER), "--host", "127.0.0.1", "--port", "0", "--verbose")
    if choice not in ("", "reference", "conftui"):
        raise pytest.UsageError(f"SIGNALING must be 'reference' or 'conftui', not {choice!r}")
    if choice == "reference":
        return ServerChoice(reference, "reference SkyRTC server (SIGNALING=reference)")
    if binary:
        if not os.access(binary, os.X_OK):
            raise pytest.UsageError(f"CONFTUI_BIN={binary} is not an executable file")
        if _has_serve_command(binary):
            return ServerChoice((binary, "serve", "--port", "0", "--host", "127.0.0.1"), f"{binary} serve")
        if choice == "conftui":
            raise pytest.UsageError(f"SIGNALING=conftui but {binary} has no 'serve' command")
        return ServerChoice(reference, f"reference SkyRTC server ({binary} has no 'serve' command yet)")
    if choice == "conftui":
        raise pytest.UsageError("SIGNALING=conftui needs CONFTUI_BIN")
    return ServerChoice(reference, "reference SkyRTC server (CONFTUI_BIN not set)")


_CHOICE: ServerChoice | None = None


def server_choice() -> ServerChoice:
    global _CHOICE
    if _CHOICE is None:
        _CHOICE = choose_server()
    return _CHOICE


def pytest_report_header(config: pytest.Config) -> str:
    return f"signaling server: {server_choice().description}"


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    # Also under -q (which hides the header): which server the browsers talked to is part of the result.
    if _CHOICE is not None:
        terminalreporter.write_line(f"interop tests used the {_CHOICE.description}")


@dataclasses.dataclass
class RunningServer:
    description: str
    http_url: str       # e.g. http://127.0.0.1:40123/
    ws_url: str         # e.g. ws://127.0.0.1:40123/
    process: subprocess.Popen
    log_path: pathlib.Path
    stdout_lines: list[str]   # the 'listening on' line, then anything else it printed

    def log_tail(self, lines: int = 60) -> str:
        try:
            text = "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            text = ""
        if len(self.stdout_lines) > 1:
            text += "\n(more stdout than the 'listening on' line:)\n" + "\n".join(self.stdout_lines[1:][-lines:])
        return text


class StdoutReader:
    """Reads a server's stdout to the end (so a chatty server never blocks on a full pipe); the first line is
    the 'listening on' line, any later ones are kept for diagnostics (the contract says there are none)."""

    def __init__(self, process: subprocess.Popen) -> None:
        self.lines: list[str] = []
        self._first = threading.Event()
        self._thread = threading.Thread(target=self._read, args=(process.stdout,), daemon=True)
        self._thread.start()

    def _read(self, stream) -> None:
        for line in stream:
            self.lines.append(line.rstrip("\n"))
            self._first.set()
        self._first.set()

    def first_line(self, timeout: float) -> str:
        self._first.wait(timeout)
        return self.lines[0] if self.lines else ""

    def join(self) -> None:
        self._thread.join(5)


@contextlib.contextmanager
def running_server(command: tuple[str, ...], description: str, log_path: pathlib.Path):
    """Starts `command`, waits for its 'listening on' line, yields a RunningServer, and stops it."""
    with open(log_path, "wb") as log_file:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=log_file, text=True)
    stdout = StdoutReader(process)
    try:
        line = stdout.first_line(STARTUP_TIMEOUT)
        match = LISTENING_LINE.match(line)
        if match is None:
            process.kill()
            process.wait(5)
            pytest.fail(f"{description} did not print the 'listening on' line within {STARTUP_TIMEOUT} s; "
                        f"got {line!r}; log:\n{log_path.read_text(errors='replace')}")
        yield RunningServer(description, match.group(1), match.group(3), process, log_path, stdout.lines)
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        stdout.join()
        process.stdout.close()


@pytest.fixture
def signaling_server(tmp_path: pathlib.Path):
    """The chosen signaling server (see the module doc) on 127.0.0.1, a free port; stopped after the test."""
    choice = server_choice()
    with running_server(choice.command, choice.description, tmp_path / "signaling.log") as server:
        print(f"signaling: {choice.description} at {server.http_url}")
        yield server


@pytest.fixture
def reference_server_with(tmp_path: pathlib.Path):
    """Starts the reference SkyRTC server with extra flags: `reference_server_with("--patched")`."""
    started = itertools.count(1)
    with contextlib.ExitStack() as stack:
        def start(*flags: str) -> RunningServer:
            command = (sys.executable, str(REFERENCE_SERVER), "--host", "127.0.0.1", "--port", "0", "--verbose",
                       *flags)
            log_path = tmp_path / f"reference-{next(started)}.log"
            return stack.enter_context(running_server(command, "reference SkyRTC server", log_path))
        yield start


@pytest.fixture
def chromium():
    """One headless Chromium (fake camera and microphone, loopback only); closed after the test."""
    browser = Chromium()
    try:
        yield browser
    finally:
        browser.close()

