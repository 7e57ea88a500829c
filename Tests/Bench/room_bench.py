#!/usr/bin/env python3
"""The call, measured: a 4-party room on loopback (one `conftui join` on a pseudo-terminal, two `conftui bot`s,
one headless Chromium page) through one `conftui serve`, all in the same run.

Reports:
- join-to-first-remote-frame: from starting the participant (spawning `conftui join`; navigating Chromium's page) to
  its first decoded frame of a remote, into a room where two bots already send; median of --runs each.
  conftui: `callStartedAt + firstFrameAt` from its report; Chromium: `framesDecoded > 0` in getStats, polled every
  20 ms (so up to 20 ms late).
- glass-to-glass: the bots' test cards carry their capture time (wall clock, ms); `join --latency-log` records, for
  every remote frame whose bytes reached the terminal, paint time − capture time: p50/p95/max.
- CPU over --seconds of the 4-party room at 320x240@15 fps: the join process (decoding 3 streams, encoding 1,
  drawing), each bot (the same engine without a screen), and Chromium (all its processes: decoding, page rendering).
  As % of one core (this machine has few cores: the figures include contention).
- terminal bytes per second written by the join (what an SSH link must carry), read from the pty's master, for
  truecolor and 256 colours, 120x40.

Usage: room_bench.py [CONFTUI_BIN] [--runs N] [--seconds S]   (binary from argv or $CONFTUI_BIN). Loopback only.
"""
from __future__ import annotations

import argparse
import fcntl
import json
import os
import pathlib
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))   # Tests/, for testsupport

from testsupport.bot import BotProcess  # noqa: E402
from testsupport.chromium import Chromium  # noqa: E402
from testsupport.pages import PAGE_READY  # noqa: E402
from testsupport.serve import ServerProcess, conftui_serve_command  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def group_cpu_seconds(pgid: int) -> float:
    total = 0.0
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == pgid:
                total += (int(fields[11]) + int(fields[12])) / TICKS
        except (OSError, ValueError, IndexError):
            continue
    return total


class PtyJoin:
    """`conftui join` on a pseudo-terminal of 120x40; counts every byte it writes to the terminal."""

    def __init__(self, binary: str, ws: str, room: str, tmp: pathlib.Path, color: str, tag: str) -> None:
        self.report = tmp / f"join-{tag}.json"
        self.latency = tmp / f"join-{tag}.latency"
        self.log = tmp / f"join-{tag}.log"
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        env = dict(os.environ, TERM="xterm-256color", COLORTERM="truecolor" if color == "truecolor" else "")
        self.started = time.time()
        self.process = subprocess.Popen(
            [binary, "join", ws, "--room", room, "--name", f"Term-{tag}", "--tone", "660", "--camera", "card",
             "--host-candidates", "loopback", "--color", color, "--report", str(self.report),
             "--latency-log", str(self.latency), "--log", str(self.log)],
            stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True)
        os.close(slave)
        self.master = master
        self.bytes = 0
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            with self._lock:
                self.bytes += len(chunk)

    def written(self) -> int:
        with self._lock:
            return self.bytes

    def load_report(self) -> dict | None:
        try:
            return json.loads(self.report.read_text())
        except (OSError, ValueError):
            return None

    def first_frame_delay(self, timeout: float = 20) -> float:
        deadline = time.time() + timeout
        while time.time() < deadline:
            report = self.load_report()
            if report:
                firsts = [p["video"].get("firstFrameAt") for p in report["peers"].values()]
                firsts = [f for f in firsts if f is not None]
                if firsts:
                    return report["callStartedAt"] + min(firsts) - self.started
            time.sleep(0.1)
        raise TimeoutError(f"join saw no remote frame; log:\n{self.log.read_text(errors='replace')[-2000:]}")

    def quit(self) -> None:
        try:
            os.write(self.master, b"q")
            self.process.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait(5)
        self._reader.join(2)
        os.close(self.master)

    def latencies(self) -> list[float]:
        try:
            lines = self.latency.read_text().splitlines()
        except OSError:
            return []
        return [float(line.split()[-1]) for line in lines if line.strip()]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary", nargs="?", default=os.environ.get("CONFTUI_BIN", ""))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    if not args.binary:
        sys.exit("usage: room_bench.py CONFTUI_BIN")
    os.environ["CONFTUI_BIN"] = args.binary   # the bots run the same (release) binary as the join
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="conftui-room-bench-"))
    server = ServerProcess(conftui_serve_command(binary=args.binary), "conftui serve", tmp / "serve.log").start()
    ws, http = server.ws_url, server.http_url
    room = "bench"
    bots = [BotProcess(ws, room, name, tmp, "--tone", str(hz), duration=600) for name, hz in (("Ada", 440), ("Grace", 550))]
    chromium = Chromium()
    try:
        for bot in bots:
            bot.wait_joined()
        time.sleep(2)   # the bots are connected to each other and sending

        # Join-to-first-remote-frame, alternating conftui and Chromium, each into the room of the two bots.
        conftui_delays, chromium_delays = [], []
        for run in range(args.runs):
            join = PtyJoin(args.binary, ws, room, tmp, "truecolor", f"first{run}")
            try:
                conftui_delays.append(join.first_frame_delay())
            finally:
                join.quit()
            time.sleep(1)
            page = chromium.new_page(None, f"first{run}")
            started = time.time()
            page.navigate(f"{http}?name=Chromium{run}#{room}", PAGE_READY)
            while True:
                state = page.evaluate("window.conftui.state()")
                if any(p.get("framesDecoded", 0) > 0 for p in state["peers"].values()):
                    chromium_delays.append(time.time() - started)
                    break
                if time.time() - started > 20:
                    raise TimeoutError(f"Chromium saw no remote frame: {state}")
                time.sleep(0.02)
            page.navigate("about:blank")   # leaves the room
            time.sleep(1)

        # The 4-party room: two bots, one Chromium page, one join; CPU and terminal bytes over --seconds.
        page = chromium.new_page(f"{http}?name=Chromium#{room}", "room", PAGE_READY)
        rows = []
        latencies: list[float] = []
        for color in ("truecolor", "256"):
            join = PtyJoin(args.binary, ws, room, tmp, color, f"room-{color}")
            try:
                join.first_frame_delay()
                time.sleep(3)   # everyone connected to everyone, past the first keyframes
                report = join.load_report() or {}
                connected = sum(1 for p in report.get("peers", {}).values() if p["transport"]["state"] == "connected")
                c0 = {"join": cpu_seconds(join.process.pid), **{b.name: cpu_seconds(b.process.pid) for b in bots},
                      "chromium": group_cpu_seconds(chromium.process.pid)}
                b0, t0 = join.written(), time.monotonic()
                open(join.latency, "w").close()   # only the steady state counts
                time.sleep(args.seconds)
                elapsed = time.monotonic() - t0
                c1 = {"join": cpu_seconds(join.process.pid), **{b.name: cpu_seconds(b.process.pid) for b in bots},
                      "chromium": group_cpu_seconds(chromium.process.pid)}
                rate = (join.written() - b0) / elapsed
                latencies += join.latencies()
                rows.append((color, connected, {k: 100 * (c1[k] - c0[k]) / elapsed for k in c0}, rate))
            finally:
                join.quit()
            time.sleep(1)

        print()
        print("Join to first remote frame (into a room where two bots send 320x240@15), loopback, "
              f"median of {args.runs} [min-max]")
        print(f"{'participant':<28}{'median ms':>12}{'range ms':>18}")
        for label, values in (("conftui join", conftui_delays), ("Chromium (served page)", chromium_delays)):
            ms = [1000 * v for v in values]
            print(f"{label:<28}{statistics.median(ms):>12.0f}{f'{min(ms):.0f}-{max(ms):.0f}':>18}")
        print(f"ratio conftui / Chromium: {statistics.median(conftui_delays) / statistics.median(chromium_delays):.2f}")
        print()
        if latencies:
            print(f"Glass-to-glass (bot test card capture -> bytes written to the join's terminal), {len(latencies)} frames")
            print(f"  p50 {percentile(latencies, 0.5):.0f} ms   p95 {percentile(latencies, 0.95):.0f} ms   "
                  f"max {max(latencies):.0f} ms")
            print()
        print(f"4-party room (join + 2 bots + Chromium), 320x240@15 fps, {args.seconds:.0f} s, CPU % of one core, "
              "terminal 120x40")
        print(f"{'join colours':<14}{'peers up':>9}{'join':>8}{'bot Ada':>9}{'bot Grace':>11}{'Chromium':>10}{'TUI bytes/s':>13}")
        for color, connected, cpu, rate in rows:
            print(f"{color:<14}{connected:>9}{cpu['join']:>8.1f}{cpu['Ada']:>9.1f}{cpu['Grace']:>11.1f}"
                  f"{cpu['chromium']:>10.1f}{rate:>13,.0f}")
        print("(Chromium's figure is every Chromium process: it decodes three streams and renders the page.)")
    finally:
        chromium.close()
        for bot in bots:
            bot.kill()
        server.stop()


if __name__ == "__main__":
    main()
