#!/usr/bin/env python3
"""Rooms beyond the mesh, measured: N conftui bots (320x240 at 15 fps, a test card and a tone each) in a SkyRTC mesh
through `conftui serve`, then the same N bots in one Janus VideoRoom (`bot --sfu janus`), for N = 4, 6, 8, 10, in
the same run.

The bots talk in turn (a tone each, unmuted for 2 s in join order, round after round), as people in a meeting do.

Per N and per room kind, over --seconds once every bot decodes every other:
- CPU per participant (% of one core, each bot process, median and max) and Janus's own CPU;
- uplink and downlink per participant (kbit/s: the bot's `traffic` counters, every connection, both ways);
- decoded frames per second per subscription (min and median over the N x (N-1) of them);
- first-frame time: from starting a bot that joins the running room to its first decoded frame of each other.
The mesh is the baseline: the table gives the SFU's CPU and uplink as ratios of the mesh's. Janus is measured twice:
bots that take the full simulcast layer (as a browser does), and bots that show others at 160x120 (`--receive-size`,
what a terminal tile needs), which Janus sends the low layer: in the mesh every receiver decodes the full picture.

Everything runs in the public namespace of the emulated internet (Janus gathers no loopback address), so this needs
root. Usage: sfu_bench.py CONFTUI_BIN [--sizes 4,6,8,10] [--seconds S]
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))   # Tests/, for testsupport

from testsupport.bot import BotProcess  # noqa: E402
from testsupport.janus import JanusServer  # noqa: E402
from testsupport.netns import emulated_internet, PUBLIC_ADDRESS  # noqa: E402
from testsupport.serve import ServerProcess  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")
NAMES = ["Ada", "Bea", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kit", "Lu"]


def cpu_seconds(pid: int) -> float:
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def report(bot: BotProcess) -> dict:
    return bot.report_now() or {}


def fps_table(bots: list[BotProcess]) -> list[float]:
    """Every subscription's decoded frames per second (each bot's view of each other bot)."""
    values = []
    ids = {b.socket_id for b in bots}
    for b in bots:
        peers = report(b).get("peers") or {}
        for other in ids - {b.socket_id}:
            values.append(float(((peers.get(other) or {}).get("video") or {}).get("framesPerSecond", 0)))
    return values


def first_frame_delays(bot: BotProcess, others: set[str], started: float, timeout: float = 30) -> list[float]:
    """Seconds from starting `bot` to its first decoded frame of each of `others` (wall clock)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        r = report(bot)
        peers = r.get("peers") or {}
        firsts = [((peers.get(o) or {}).get("video") or {}).get("firstFrameAt") for o in others]
        if r and all(f is not None for f in firsts):
            return [r["callStartedAt"] + f - started for f in firsts]
        time.sleep(0.1)
    raise TimeoutError(f"{bot.name} did not decode everyone within {timeout} s:\n{bot.describe()}")


# Talking in turn, as people in a meeting do: each bot's microphone is open for TURN_SECONDS in join order, round
# after round, and muted otherwise (muted Opus is DTX: a receiver decodes nothing for it). A room where everyone
# talks at once all the time would make every participant decode N - 1 voices, which no meeting does.
TURN_SECONDS = 2.0


def speaking_turns(index: int, n: int, offset: float, duration: float = 600) -> list[str]:
    """`--unmute-at`/`--mute-at` options for bot `index` of `n` started `offset` s after the room's clock began."""
    options, start = ["--muted"], index * TURN_SECONDS
    while start < duration:
        if start - offset >= 0:
            options += ["--unmute-at", f"{start - offset:.2f}", "--mute-at", f"{start + TURN_SECONDS - offset:.2f}"]
        start += n * TURN_SECONDS
    return options


def measure_room(kind: str, url: str, room: str, n: int, tmp: pathlib.Path, netns: str, seconds: float,
                 janus: JanusServer | None) -> dict:
    extra = {"mesh": [], "janus": ["--sfu", "janus"],
             "janus-tiles": ["--sfu", "janus", "--receive-size", "160x120"]}[kind]
    bots: list[BotProcess] = []
    clock = time.time()
    try:
        for i in range(n - 1):
            bots.append(BotProcess(url, room, NAMES[i], tmp, *extra, "--tone", str(300 + 40 * i),
                                   *speaking_turns(i, n, time.time() - clock), duration=600,
                                   host_candidates="all", netns=netns))
            bots[-1].wait_joined()
        # The last one joins a running room: its first frames are the first-frame figure.
        time.sleep(2)
        started = time.time()
        last = BotProcess(url, room, NAMES[n - 1], tmp, *extra, "--tone", str(300 + 40 * (n - 1)),
                          *speaking_turns(n - 1, n, time.time() - clock), duration=600, host_candidates="all", netns=netns)
        bots.append(last)
        last.wait_joined()
        first = first_frame_delays(last, {b.socket_id for b in bots[:-1]}, started)
        # Everyone decodes everyone at 10 fps or more before the window opens.
        deadline = time.time() + 30
        while min(fps_table(bots)) < 10 and time.time() < deadline:
            time.sleep(0.5)
        time.sleep(2)
        cpu0 = {b.name: cpu_seconds(b.process.pid) for b in bots}
        janus0 = cpu_seconds(janus.process.pid) if janus else 0.0
        traffic0 = {b.name: dict(report(b).get("traffic") or {}) for b in bots}
        t0 = time.time()
        time.sleep(seconds)
        elapsed = time.time() - t0
        cpu = [100 * (cpu_seconds(b.process.pid) - cpu0[b.name]) / elapsed for b in bots]
        janus_cpu = 100 * (cpu_seconds(janus.process.pid) - janus0) / elapsed if janus else None
        # The report is rewritten every 2 s: rates from the two reports' own clocks.
        up, down = [], []
        for b in bots:
            r = report(b)
            t1, tr0 = r.get("traffic") or {}, traffic0[b.name]
            span = max(1.0, elapsed)
            up.append(8 * (t1.get("bytesSent", 0) - tr0.get("bytesSent", 0)) / span / 1000)
            down.append(8 * (t1.get("bytesReceived", 0) - tr0.get("bytesReceived", 0)) / span / 1000)
        fps = fps_table(bots)
        return {"kind": kind, "n": n, "cpuMedian": statistics.median(cpu), "cpuMax": max(cpu), "janusCpu": janus_cpu,
                "upMedian": statistics.median(up), "downMedian": statistics.median(down),
                "fpsMin": min(fps), "fpsMedian": statistics.median(fps), "subscriptions": len(fps),
                "firstFrameMedian": statistics.median(first), "firstFrameMax": max(first)}
    finally:
        for b in bots:
            try:
                b.stop()
            except Exception:
                b.kill()
        time.sleep(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary", nargs="?", default=os.environ.get("CONFTUI_BIN", ""))
    parser.add_argument("--sizes", default="4,6,8,10")
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    if not args.binary:
        sys.exit("usage: sfu_bench.py CONFTUI_BIN")
    os.environ["CONFTUI_BIN"] = args.binary
    sizes = [int(s) for s in args.sizes.split(",")]
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="conftui-sfu-bench-"))
    rows = []
    with emulated_internet() as net, JanusServer(net, tmp) as janus:
        command = ("ip", "netns", "exec", net.public, args.binary, "serve", "--port", "0", "--host", PUBLIC_ADDRESS)
        server = ServerProcess(command, "conftui serve (public namespace)", tmp / "serve.log").start()
        try:
            for n in sizes:
                mesh = measure_room("mesh", server.ws_url, f"mesh{n}", n, tmp, net.public, args.seconds, None)
                sfu = measure_room("janus", janus.url, str(1000 + n), n, tmp, net.public, args.seconds, janus)
                tiles = measure_room("janus-tiles", janus.url, str(2000 + n), n, tmp, net.public, args.seconds, janus)
                rows.append((mesh, sfu, tiles))
                print(json.dumps({"mesh": mesh, "janus": sfu, "janus-tiles": tiles}), file=sys.stderr, flush=True)
        finally:
            server.stop()

    print(f"{len(sizes)} room sizes, each a mesh through `conftui serve` then a Janus 1.1.2 VideoRoom, {args.seconds:g} s "
          "windows once everyone decodes everyone; bots at 320x240, 15 fps, talking in turn (2 s each), in the emulated "
          "internet's public namespace.")
    print()
    print("| N | room | CPU per bot, median (max) | SFU/mesh CPU | uplink kbit/s | SFU/mesh uplink | downlink kbit/s "
          "| fps per subscription, min (median) | first frame, median (max) | Janus CPU |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    label = {"mesh": "mesh", "janus": "Janus, full layer", "janus-tiles": "Janus, tile layer"}
    for mesh, *sfus in rows:
        for r in (mesh, *sfus):
            ratio_cpu = f"{r['cpuMedian'] / mesh['cpuMedian']:.2f}" if r is not mesh else "1"
            ratio_up = f"{r['upMedian'] / mesh['upMedian']:.2f}" if r is not mesh else "1"
            janus_cpu = f"{r['janusCpu']:.1f} %" if r["janusCpu"] is not None else "-"
            print(f"| {r['n']} | {label[r['kind']]} | {r['cpuMedian']:.1f} % ({r['cpuMax']:.1f} %) | {ratio_cpu} "
                  f"| {r['upMedian']:.0f} | {ratio_up} | {r['downMedian']:.0f} | {r['fpsMin']:.0f} ({r['fpsMedian']:.0f}) "
                  f"over {r['subscriptions']} | {r['firstFrameMedian']:.2f} s ({r['firstFrameMax']:.2f} s) | {janus_cpu} |")


if __name__ == "__main__":
    main()
