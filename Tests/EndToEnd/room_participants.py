"""The participants of the end-to-end room tests, each with what it received and a way to print its own evidence.

- `JoinInTmux`: `conftui join` on its curses screen in a tmux pane (keys in, screen out), with `--report` (rewritten
  every 2 s) and `--log`;
- `conftui bot` (testsupport.bot) and the aiortc peer in its own process (testsupport.aiortc_process) come from the
  shared test support;
- `BrowserInRoom`: a headless Chromium tab on the served page, with `room_probe.js` installed for per-peer audio
  analysis (WebAudio AnalyserNode on each received stream) and pictures (each tile's <video> read on a canvas).

Also the readers the checks share: reports, log lines with their UTC timestamps, the test card in a luma plane.
"""

from __future__ import annotations

import base64
import calendar
import json
import pathlib
import re
import time

import numpy

from testsupport.binaries import conftui_bin
from testsupport.chromium import CDPError, Chromium, Page
from testsupport.pages import PAGE_READY
from testsupport.processes import tail
from testsupport.reports import read_report
from testsupport.card_reader import read_test_card
from testsupport.tmux import TmuxSession

HERE = pathlib.Path(__file__).resolve().parent
PROBE_SCRIPT = (HERE / "room_probe.js").read_text()
LOG_STAMP = re.compile(r"^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.(\d{3})Z ")


def log_time(line: str) -> float | None:
    """The wall-clock time (seconds since the epoch) of a SignalingLog line."""
    m = LOG_STAMP.match(line)
    if not m:
        return None
    year, month, day, hour, minute, second, millis = (int(g) for g in m.groups())
    return calendar.timegm((year, month, day, hour, minute, second)) + millis / 1000


def logged_at(path: pathlib.Path, needle: str) -> float | None:
    """The time of the first line of the log at `path` that contains `needle`."""
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return None
    for line in lines:
        if needle in line:
            return log_time(line)
    return None


class JoinInTmux:
    """`conftui join` in a tmux pane of its own."""

    JOINED = re.compile(r"join: joined (\S+) as (\S+) with")

    def __init__(self, ws_url: str, name: str | None, tmp_path: pathlib.Path, *flags: str,
                 width: int = 100, height: int = 30) -> None:
        label = name or "anonymous"
        self.name = name
        self.log_path = tmp_path / f"join-{label}.log"
        self.report_path = tmp_path / f"join-{label}.json"
        parts = [conftui_bin(), "join", ws_url, "--report", str(self.report_path), "--log", str(self.log_path),
                 "--host-candidates", "loopback", *flags]
        if name:
            parts += ["--name", name]
        self.command = " ".join(parts)
        self.tmux = TmuxSession(self.command, width, height)
        self.socket_id: str | None = None
        self.last_screen = ""
        self.exit_status: int | None = None

    def wait_joined(self, timeout: float = 10.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in tail(self.log_path, 10**6).splitlines():
                m = self.JOINED.search(line)
                if m:
                    self.socket_id = m.group(2)
                    return self.socket_id
            time.sleep(0.05)
        raise AssertionError(f"{self.name}: no 'joined' line in its log within {timeout} s\n{self.describe()}")

    def screen(self) -> str:
        if self.exit_status is None:
            self.last_screen = self.tmux.capture()
        return self.last_screen

    def wait_screen(self, predicate, timeout: float, what: str) -> str:
        self.last_screen = self.tmux.wait_for(predicate, timeout, what)
        return self.last_screen

    def send(self, *keys: str) -> None:
        self.tmux.send(*keys)

    def report(self) -> dict | None:
        return read_report(self.report_path)

    def wait_exit(self, timeout: float = 10.0) -> int:
        self.last_screen = self.tmux.capture()
        self.exit_status = self.tmux.wait_exit(timeout)
        return self.exit_status

    def close(self) -> None:
        try:
            self.last_screen = self.tmux.capture() if self.exit_status is None else self.last_screen
        except Exception:   # the tmux server may already be gone
            pass
        self.tmux.close()

    def describe(self) -> str:
        return (f"===== join {self.name} ({self.socket_id}): {self.command} =====\n"
                f"exit status: {self.exit_status}\n----- last screen -----\n{self.last_screen}\n"
                f"----- log -----\n{tail(self.log_path)}\n----- report -----\n{tail(self.report_path)}")


class BrowserInRoom:
    """A tab of `browser` on the served page, with the probe installed once it has joined."""

    def __init__(self, browser: Chromium, url: str, name: str) -> None:
        self.browser = browser
        self.name = name
        self.page: Page = browser.new_page(url, name, PAGE_READY)
        self.socket_id: str | None = None
        self.cards_read: dict[str, list[int]] = {}   # per sender: the counters read on its <video>, in order

    def wait_joined(self, timeout: float = 10.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self.state()
            if state["you"] and state["media"]:
                self.socket_id = state["you"]
                self.page.evaluate(PROBE_SCRIPT)
                return self.socket_id
            time.sleep(0.1)
        raise AssertionError(f"the page did not join within {timeout} s: {self.state()}")

    def state(self) -> dict:
        return self.page.evaluate("conftui.state()")

    def probe(self, pictures: bool = False) -> dict:
        """{socketId: {audio: {rms, peakHz, peakDb} | None, video: {width, height, luma (numpy)} | None}}."""
        sample = self.page.evaluate(f"roomProbe.sample({'true' if pictures else 'false'})")
        assert sample["contextState"] == "running", f"the probe's AudioContext is {sample['contextState']}"
        for peer in sample["peers"].values():
            video = peer["video"]
            if video:
                video["luma"] = numpy.frombuffer(base64.b64decode(video["luma"]), dtype=numpy.uint8).reshape(
                    video["height"], video["width"])
        return sample["peers"]

    def card_of(self, sample: dict, socket_id: str) -> dict | None:
        video = sample.get(socket_id, {}).get("video")
        return read_test_card(video["luma"]) if video else None

    def tile_count(self) -> int:
        return self.page.evaluate("document.querySelectorAll('#grid .tile').length")

    def describe(self) -> str:
        out = [f"===== page {self.name} ({self.socket_id}) ====="]
        try:
            out.append("state: " + json.dumps(self.page.evaluate("conftui.state()", timeout=5), indent=1))
            out.append("conftui.log:\n  " + "\n  ".join(self.page.evaluate("conftui.log", timeout=5)))
            out.append("probe: " + json.dumps(self.page.evaluate(
                "window.roomProbe ? roomProbe.sample(false) : 'not installed'", timeout=5)))
        except CDPError as error:
            out.append(f"page hook unavailable: {error}")
        out.append("console:\n  " + "\n  ".join(self.page.console[-200:]))
        out.append(f"----- chromium output -----\n{self.browser.output_tail()}")
        return "\n".join(out)
