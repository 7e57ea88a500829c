"""`conftui bot` as a child process: started with a report and a log, joined (its one stdout line
`conftui bot: joined ROOM as SOCKETID`), stopped with a signal, its JSON report loaded; `describe()` is its evidence
for a failure message (command, stdout, log, report)."""

from __future__ import annotations

import json
import os
import pathlib
import re
import signal
import subprocess
import time

import pytest

from testsupport.binaries import REPO
from testsupport.processes import LineReader, stop_process, tail
from testsupport.reports import read_report

JOINED_LINE = re.compile(r"^conftui bot: joined (\S+) as (\S+)$")


def bot_binary() -> str:
    """`$CONFTUI_BIN` (else the debug build); the test is skipped when there is no binary with a `bot` command
    (the interop tests also run against the reference server alone)."""
    binary = os.environ.get("CONFTUI_BIN", "").strip() or str(REPO / ".build" / "debug" / "conftui")
    if not os.access(binary, os.X_OK):
        pytest.skip(f"no conftui binary at {binary} (make build, or set CONFTUI_BIN)")
    if subprocess.run([binary, "bot", "--help"], capture_output=True, timeout=10).returncode != 0:
        pytest.skip(f"{binary} has no 'bot' command")
    return binary


def bot_participant(name: str) -> int:
    """The test-card participant number `--name NAME` gives (CallOptionsParsing: the name's code points mod 256)."""
    return sum(ord(c) for c in name) % 256


class BotProcess:
    def __init__(self, ws_url: str, room: str, name: str, tmp_path: pathlib.Path, *extra: str,
                 duration: float = 45.0, host_candidates: str = "loopback", netns: str | None = None,
                 env: dict[str, str] | None = None) -> None:
        """`netns`: run inside that network namespace (testsupport.netns); `host_candidates` is the bot's option;
        `env`: variables added to its environment."""
        self.name = name
        self.log_path = tmp_path / f"bot-{name}.log"
        self.report_path = tmp_path / f"bot-{name}.json"
        self.command = [*(["ip", "netns", "exec", netns] if netns else []),
                        bot_binary(), "bot", ws_url, "--room", room, "--name", name, "--duration", str(duration),
                        "--report", str(self.report_path), "--host-candidates", host_candidates, "--log", str(self.log_path),
                        *extra]
        self.started = time.monotonic()
        self.process = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True, env={**os.environ, **(env or {})})
        self.stdout = LineReader(self.process.stdout)
        self.socket_id: str | None = None
        self.report: dict | None = None

    @property
    def lines(self) -> list[str]:
        return self.stdout.lines

    def wait_joined(self, timeout: float = 15.0) -> str:
        match = self.stdout.wait_for(JOINED_LINE, timeout)
        assert match, f"bot {self.name} did not join within {timeout} s; stdout {self.lines}\n{self.describe()}"
        self.socket_id = match.group(2)
        return self.socket_id

    def report_now(self) -> dict | None:
        """The report as the bot last rewrote it (every 2 s), or None before the first."""
        return read_report(self.report_path)

    def wait_for_report(self, condition, timeout: float, what: str) -> dict:
        """The report the bot rewrites every 2 s, once `condition(report)` holds (an AssertionError with the last
        one after `timeout` s, or at once if the bot has exited)."""
        deadline = time.monotonic() + timeout
        while True:
            report = read_report(self.report_path)
            if report is not None and condition(report):
                return report
            exited = self.process.poll()
            if exited is not None or time.monotonic() > deadline:
                why = f"the bot exited with {exited}" if exited is not None else f"timed out after {timeout} s"
                raise AssertionError(f"{why} waiting until {what}; last report: "
                                     f"{json.dumps(report, indent=1, ensure_ascii=False)[:6000]}")
            time.sleep(0.2)

    def stop(self, sig: int = signal.SIGTERM) -> dict:
        """SIGTERM (or `sig`), wait, and load the report."""
        stop_process(self.process, sig)
        self.stdout.join()
        assert self.process.returncode == 0, f"bot exited with {self.process.returncode}\n{self.describe()}"
        self.report = json.loads(self.report_path.read_text())
        return self.report

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(5)

    def describe(self) -> str:
        return (f"===== bot {self.name}: {' '.join(self.command)} =====\nstdout: {self.lines}\n"
                f"----- log -----\n{tail(self.log_path)}\n----- report -----\n{tail(self.report_path)}")
