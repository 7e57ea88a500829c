"""`conftui bot` as a subprocess for the interop tests, and a reader for the test card it sends.

`BotProcess` starts `$CONFTUI_BIN bot <ws-url> --host-candidates loopback ...`, waits for its one stdout line
(`conftui bot: joined ROOM as SOCKETID`), stops it with SIGTERM and loads its JSON report. `describe()` gives the
bot's log and report for failure messages.

`read_test_card(y)` is the Python twin of `TestCard.decode` (Sources/Engine/Media/TestCardSource.swift): a strip
along the bottom eighth of the picture, 40 columns x 2 rows of black/white blocks holding the frame counter, the
capture time and the participant with a checksum.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import signal
import subprocess
import threading
import time

import numpy
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
JOINED_LINE = re.compile(r"^conftui bot: joined (\S+) as (\S+)$")


def conftui_binary() -> str:
    binary = os.environ.get("CONFTUI_BIN", "").strip() or str(REPO / ".build" / "debug" / "conftui")
    if not os.access(binary, os.X_OK):
        pytest.skip(f"no conftui binary at {binary} (make build, or set CONFTUI_BIN)")
    if subprocess.run([binary, "bot", "--help"], capture_output=True, timeout=10).returncode != 0:
        pytest.skip(f"{binary} has no 'bot' command")
    return binary


def bot_participant(name: str) -> int:
    """The test-card participant number `conftui bot --name NAME` uses (sum of the name's code points mod 256)."""
    return sum(ord(c) for c in name) % 256


# TestCard.colour(for:) in Y'CbCr, indexed by participant % 7.
CARD_COLOURS = [(81, 90, 240), (145, 54, 34), (110, 200, 60), (90, 180, 200), (140, 70, 180), (120, 170, 150),
                (100, 110, 90)]


class BotProcess:
    def __init__(self, ws_url: str, room: str, name: str, tmp_path: pathlib.Path, *extra: str,
                 duration: float = 45.0) -> None:
        self.name = name
        self.log_path = tmp_path / f"bot-{name}.log"
        self.report_path = tmp_path / f"bot-{name}.json"
        self.command = [conftui_binary(), "bot", ws_url, "--room", room, "--name", name, "--duration", str(duration),
                        "--report", str(self.report_path), "--host-candidates", "loopback", "--log", str(self.log_path),
                        *extra]
        self.started = time.monotonic()
        self.process = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
        self.lines: list[str] = []
        self.socket_id: str | None = None
        self._joined = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.report: dict | None = None

    def _read(self) -> None:
        for line in self.process.stdout:
            line = line.rstrip("\n")
            self.lines.append(line)
            match = JOINED_LINE.match(line)
            if match:
                self.socket_id = match.group(2)
                self._joined.set()
        self._joined.set()

    def wait_joined(self, timeout: float = 15.0) -> str:
        self._joined.wait(timeout)
        assert self.socket_id, f"bot {self.name} did not join within {timeout} s; stdout {self.lines}\n{self.describe()}"
        return self.socket_id

    def stop(self, sig: int = signal.SIGTERM) -> dict:
        """SIGTERM (or `sig`), wait, and load the report."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)
        self._reader.join(5)
        assert self.process.returncode == 0, f"bot exited with {self.process.returncode}\n{self.describe()}"
        self.report = json.loads(self.report_path.read_text())
        return self.report

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(5)

    def describe(self) -> str:
        log = self.log_path.read_text(errors="replace") if self.log_path.exists() else "(no log)"
        report = self.report_path.read_text(errors="replace") if self.report_path.exists() else "(no report)"
        return (f"===== bot {self.name}: {' '.join(self.command)} =====\nstdout: {self.lines}\n"
                f"----- log -----\n{log[-12000:]}\n----- report -----\n{report[-12000:]}")


def _checksum(counter: int, millis: int, participant: int) -> int:
    m = 0xFFFFFFFF
    x = (counter ^ ((millis * 0x9E3779B9) & m) ^ ((participant * 0x85EBCA6B) & m)) & m
    x ^= x >> 16
    x = (x * 0x7FEB352D) & m
    x ^= x >> 15
    return x & 0xFF


def card_band_top(height: int) -> int:
    return height - (height // 20) * 2 - height // 40


def read_test_card(y: numpy.ndarray) -> dict | None:
    """{counter, capture_millis, participant} from a luma plane, or None when there is no valid code band."""
    height, width = y.shape
    bw, bh = width // 40, height // 20
    if bw < 2 or bh < 2:
        return None
    top, left = card_band_top(height), (width - bw * 40) // 2
    words = [0] * 5
    for i in range(80):
        x0 = left + (i % 40) * bw + bw // 4
        y0 = top + (i // 40) * bh + bh // 4
        mean = int(y[y0:y0 + max(1, bh // 2), x0:x0 + max(1, bw // 2)].mean())
        if 90 < mean < 160:
            return None
        if mean >= 126:
            words[i // 16] |= 1 << (15 - i % 16)
    if not any(words):
        return None   # the all-black band passes the checksum (0, 0, 0 -> 0): a dark picture, not a card
    counter = words[0] << 16 | words[1]
    millis = words[2] << 16 | words[3]
    participant = words[4] >> 8
    if _checksum(counter, millis, participant) != words[4] & 0xFF:
        return None
    return {"counter": counter, "capture_millis": millis, "participant": participant}


def card_background(yuv: tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]) -> tuple[int, int, int]:
    """The median Y'CbCr above the code band: the participant colour (the bar and digits are a minority)."""
    y, u, v = yuv
    top = card_band_top(y.shape[0])
    return (int(numpy.median(y[:top])), int(numpy.median(u[:top // 2])), int(numpy.median(v[:top // 2])))


def dominant_frequency(samples: numpy.ndarray, rate: int = 48000) -> float:
    spectrum = numpy.abs(numpy.fft.rfft(samples * numpy.hanning(len(samples))))
    return float(numpy.fft.rfftfreq(len(samples), 1 / rate)[int(numpy.argmax(spectrum[1:])) + 1])
