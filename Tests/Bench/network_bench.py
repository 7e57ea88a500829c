#!/usr/bin/env python3
"""Congestion control side by side with Chromium, on the same emulated paths in the same run.

Each row is one call between a sender A behind a bottleneck (a site of the emulated internet, docs/emulated-network.md:
tbf at A's router on the uplink and the downlink, 300 ms of buffer) and a receiver B in the public namespace:

Every sender sends the same picture: the noisy talking head of the benchmark clips (`talkhead_noise.y4m`, camera-like
sensor noise, so an encoder can always use more bits), scaled once with ffmpeg to the bench's size (`--size`, 640x480
by default: libwebrtc caps a 320x240 VP8 stream at 600 kbit/s whatever its estimate, 640x480 at 1.7 Mbit/s): the bot
as `--camera file:... --size WxH`, Chromium as its fake camera (`--use-file-for-fake-video-capture`, the page asked
for the same `?size=`). The bots run with `--max-video-kbps 2500` (the estimator's own maximum) instead of their
default 300, so what they send is what congestion control decides.

- Chromium↔Chromium: the browser page on both sides
- conftui→Chromium: `conftui bot` sends, the page receives (our send-side estimator on Chromium's transport-cc feedback)
- Chromium→conftui: the page sends, a bot receives (Chromium's estimator on our feedback)
- conftui↔conftui: two bots

over three paths: (a) 500 kbit/s; (b) 1 Mbit/s with 2 % random loss; (c) the RFC 8867 §5.1 capacity schedule
1 → 2.5 → 0.6 → 1 Mbit/s, here with phases of 20, 10, 10 and 10 s (the RFC's 40/20/20/20 s halved, so the bench stays
short; the reaction times it measures are seconds).

Measured for the A → B direction over the measuring window (25 s after a 10 s start on the fixed paths):
- utilisation: bytes A's router sent on the bottleneck (tc's own counters) over what the link could carry;
- queue drops: packets tbf dropped because the 300 ms buffer was full, as a share of those offered (the path's random
  loss on (b) comes on top);
- fps and freezes at the receiver (the bot's report; the page's getStats: framesDecoded, freezeCount);
- latency p50/p95: the round-trip time of a 10 Hz UDP probe that crosses the same bottleneck both ways (a 64-byte
  echo from A's site to the public namespace): the queue the call keeps standing in the FIFO, measured the same way
  for every pair of peers, whoever's picture it is (there is no propagation delay in this rig, so it is all queue);
- on the schedule: for each capacity change, the seconds until A's sending rate (1 s windows on tc's counters) is
  within 15 % of the new capacity, and "—" when it never is within the phase.

With `--repeat N` every row runs N times, the rows of a path taking turns (so a slow spell of the machine falls on
all of them), and the table gives each figure's median over the runs with the p95's range beside it: a single run's
p95 scatters by 2-3 ×, Chromium's own rows included, which is larger than most differences worth measuring.

Usage: network_bench.py CONFTUI_BIN [--only ROW] [--paths a,b,c] [--repeat N]   (as root; skips with a note otherwise)
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import socket
import statistics
import struct
import sys
import tempfile
import threading
import time
import urllib.parse

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))   # Tests/, for testsupport

from testsupport.bot import BotProcess  # noqa: E402
from testsupport.chromium import Chromium  # noqa: E402
from testsupport.coturn import Coturn  # noqa: E402
from testsupport.netns import PUBLIC_ADDRESS, available, emulated_internet, run, udp_socket_in  # noqa: E402
from testsupport.pages import PAGE_READY, states_of  # noqa: E402
from testsupport.serve import ServerProcess  # noqa: E402

ROWS = ("Chromium↔Chromium", "conftui→Chromium", "Chromium→conftui", "conftui↔conftui")
SCHEDULE = ((1000, 20), (2500, 10), (600, 10), (1000, 10))   # kbit/s, seconds
PATHS = {"a": ("500 kbit/s", 500, 0), "b": ("1 Mbit/s + 2 % loss", 1000, 2), "c": ("RFC 8867 schedule", None, 0)}
PROBE_PORT = 7077


class Probe:
    """A 64-byte UDP echo every 100 ms from A's site to the public namespace: RTT samples across the bottleneck."""

    def __init__(self, net, site) -> None:
        self.server = udp_socket_in(net.public, (PUBLIC_ADDRESS, PROBE_PORT))
        self.client = udp_socket_in(site.client)
        self.client.settimeout(0.05)
        # (sent at, rtt, A → B, B → A in ms): namespaces share the machine's monotonic clock, so the echo's own
        # receive time splits the round trip into the queue of each direction.
        self.samples: list[tuple[float, float, float, float]] = []
        self.running = True
        threading.Thread(target=self._echo, daemon=True).start()
        threading.Thread(target=self._ping, daemon=True).start()

    def _echo(self) -> None:
        self.server.settimeout(0.2)
        while self.running:
            try:
                data, sender = self.server.recvfrom(100)
                self.server.sendto(data[:12] + struct.pack("!d", time.monotonic()), sender)
            except OSError:
                pass

    def _ping(self) -> None:
        seq = 0
        while self.running:
            seq += 1
            self.client.sendto(struct.pack("!Id", seq, time.monotonic()).ljust(64, b"\0"), (PUBLIC_ADDRESS, PROBE_PORT))
            end = time.monotonic() + 0.1
            while time.monotonic() < end:
                try:
                    data = self.client.recv(100)
                    _, sent, echoed = struct.unpack("!Idd", data[:20])
                    now = time.monotonic()
                    self.samples.append((sent, (now - sent) * 1000, (echoed - sent) * 1000, (now - echoed) * 1000))
                except OSError:
                    pass

    def between(self, start: float, end: float) -> list[float]:
        return [rtt for at, rtt, _, _ in self.samples if start <= at < end]

    def one_way_p95(self, start: float, end: float) -> tuple[float, float] | None:
        """The p95 of each direction's one-way delay (A → B, B → A) in ms."""
        window = [(up, down) for at, _, up, down in self.samples if start <= at < end]
        if not window:
            return None
        return tuple(p95(list(v)) for v in zip(*window))

    def close(self) -> None:
        self.running = False
        time.sleep(0.3)
        self.server.close()
        self.client.close()


def p95(values: list[float]) -> float | None:
    """The 95th percentile (nearest rank below), None for no values."""
    return sorted(values)[int(0.95 * (len(values) - 1))] if values else None


def drop_share(start: dict, end: dict) -> float:
    """Packets a bottleneck dropped between two readings of its counters, as a share of those offered to it."""
    dropped = end["drops"] - start["drops"]
    return dropped / max(1, (end["packets"] - start["packets"]) + dropped)


def tc_counters(site, dev: str = "wan") -> dict:
    """A bottleneck's counters: "wan" carries A → B, "lan" B → A."""
    out = run("tc", "-s", "-j", "qdisc", "show", "dev", dev, ns=site.router).stdout
    q = json.loads(out)[0]
    return {"bytes": q["bytes"], "packets": q["packets"], "drops": q["drops"], "at": time.monotonic()}


def set_rate(site, kbit: int) -> None:
    for dev in ("wan", "lan"):
        run("tc", "qdisc", "change", "dev", dev, "root", "tbf", "rate", f"{kbit}kbit", "burst", "4kb", "latency", "300ms",
            ns=site.router)


class Party:
    """One side of the call: a bot or a page, with what the bench reads of it."""

    def __init__(self, kind: str, where: str, serve, coturn, room: str, name: str, workdir: pathlib.Path, clip: str,
                 size: str) -> None:
        self.kind, self.name = kind, name
        if kind == "bot":
            self.bot = BotProcess(serve.ws_url, room, name, workdir, "--stun", coturn.stun_uri, "--camera", f"file:{clip}",
                                  "--size", size, "--max-video-kbps", "2500",
                                  duration=600, host_candidates="all", netns=where)
            self.bot.wait_joined()
        else:
            # The served page is http on a non-loopback address: not a secure context, so no getUserMedia unless
            # Chromium is told to treat that origin as secure.
            origin = "/".join(serve.http_url.split("/")[:3])
            self.chromium = Chromium(netns=where, extra_flags=(f"--use-file-for-fake-video-capture={clip}",
                                                               f"--unsafely-treat-insecure-origin-as-secure={origin}"))
            query = urllib.parse.urlencode({"stun": coturn.stun_uri, "name": name, "size": size})
            self.page = self.chromium.new_page(f"{serve.http_url}?{query}#{room}", name, PAGE_READY)

    def received(self) -> dict:
        """frames decoded and freezes of what this party receives (one remote)."""
        if self.kind == "bot":
            report = json.loads(self.bot.report_path.read_text()) if self.bot.report_path.exists() else {"peers": {}}
            peers = [p for p in report["peers"].values() if p.get("video")]
            if not peers:
                return {"frames": 0, "freezes": 0}
            video = peers[0]["video"]
            return {"frames": video.get("framesDecoded", 0), "freezes": video.get("freezes", 0)}
        (state,) = states_of([self.page])
        peers = list(state["peers"].values())
        if not peers:
            return {"frames": 0, "freezes": 0}
        return {"frames": peers[0]["framesDecoded"], "freezes": peers[0]["freezeCount"]}

    def estimate(self) -> float | None:
        """The sender's own estimate of the path, bit/s (the bot's send-side estimate; Chromium's
        availableOutgoingBitrate)."""
        if self.kind == "bot":
            report = json.loads(self.bot.report_path.read_text()) if self.bot.report_path.exists() else {"peers": {}}
            values = [p["transport"].get("sendEstimateBitrate") for p in report["peers"].values()]
        else:
            (state,) = states_of([self.page])
            values = [p.get("availableOutgoingBitrate") for p in state["peers"].values()]
        values = [v for v in values if v]
        return values[0] if values else None

    def probes_sent(self) -> int | None:
        """Probes of the send-side estimate the bot sent (None for a page)."""
        if self.kind != "bot" or not self.bot.report_path.exists():
            return None
        report = json.loads(self.bot.report_path.read_text())
        return sum(p["transport"].get("probesSent", 0) for p in report["peers"].values())

    def diagnostics(self) -> str:
        """A bot's keyframes encoded and the PLIs/NACKs it sent (why a picture stalled); empty for a page."""
        if self.kind != "bot" or not self.bot.report_path.exists():
            return ""
        report = json.loads(self.bot.report_path.read_text())
        transports = [p["transport"] for p in report["peers"].values()]
        return (f"{self.name}: keyframes {report['local'].get('keyframesEncoded')} "
                f"PLIs sent {sum(t.get('plisSent', 0) for t in transports)} "
                f"NACKs sent {sum(t.get('nacksSent', 0) for t in transports)}")

    def media(self) -> str:
        if self.kind == "bot":
            return "test clip"
        (state,) = states_of([self.page])
        return state.get("mediaDescription") or "?"

    def connected(self) -> bool:
        return self.received()["frames"] > 0

    def close(self) -> None:
        if self.kind == "bot":
            self.bot.stop()
        else:
            self.chromium.close()


def run_row(row: str, path: str, binary: str, clip: str, size: str, workdir: pathlib.Path) -> dict:
    label, rate, loss = PATHS[path]
    sender_kind = "page" if row.startswith("Chromium") else "bot"
    receiver_kind = "page" if row.endswith("Chromium") else "bot"
    with emulated_internet() as net:
        site = net.add_site("restricted", loss_percent=loss, rate_kbit=rate or SCHEDULE[0][0])
        coturn = Coturn(PUBLIC_ADDRESS, workdir, net.public)
        serve = ServerProcess(("ip", "netns", "exec", net.public, binary, "serve", "--port", "0", "--host", PUBLIC_ADDRESS),
                              "conftui serve", workdir / "serve.log").start()
        probe = Probe(net, site)
        parties: list[Party] = []
        try:
            receiver = Party(receiver_kind, net.public, serve, coturn, "bench", "Bea", workdir, clip, size)
            parties.append(receiver)
            sender = Party(sender_kind, site.client, serve, coturn, "bench", "Al", workdir, clip, size)
            parties.append(sender)
            deadline = time.monotonic() + 20
            while not (receiver.connected() and sender.connected()):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{row} on {label}: no media within 20 s")
                time.sleep(0.2)
            result = {"row": row, "path": label, "media": sender.media()}
            if rate:
                time.sleep(10)   # a fixed path is measured once settled; the schedule starts as media flows
            start, before, back = tc_counters(site), receiver.received(), tc_counters(site, "lan")
            if rate:
                samples = []
                for _ in range(25):
                    time.sleep(1)
                    samples.append(tc_counters(site))
                end, after = samples[-1], receiver.received()
                seconds = end["at"] - start["at"]
                sent_bits = (end["bytes"] - start["bytes"]) * 8
                result.update(utilisation=sent_bits / (rate * 1000 * seconds),
                              drops=drop_share(start, end),
                              fps=(after["frames"] - before["frames"]) / seconds,
                              freezes=after["freezes"] - before["freezes"])
            else:
                # The schedule: 1 s windows of A's sending rate; time to within 15 % of each new capacity.
                reach, series = [], []
                previous = start
                for i, (kbit, seconds) in enumerate(SCHEDULE):
                    if i:
                        set_rate(site, kbit)
                    changed = time.monotonic()
                    reached = None
                    for _ in range(seconds):
                        time.sleep(1)
                        now = tc_counters(site)
                        kbps = (now["bytes"] - previous["bytes"]) * 8 / (now["at"] - previous["at"]) / 1000
                        series.append(round(kbps))
                        previous = now
                        if reached is None and abs(kbps - kbit) <= 0.15 * kbit:
                            reached = now["at"] - changed
                    if i:
                        reach.append(reached)
                end, after = previous, receiver.received()
                total = sum(seconds for _, seconds in SCHEDULE)
                capacity_bits = sum(kbit * 1000 * seconds for kbit, seconds in SCHEDULE)
                result.update(utilisation=(end["bytes"] - start["bytes"]) * 8 / capacity_bits,
                              drops=drop_share(start, end),
                              fps=(after["frames"] - before["frames"]) / total,
                              freezes=after["freezes"] - before["freezes"], reach=reach, series=series)
            rtts = probe.between(start["at"], end["at"])
            result["back_drops"] = drop_share(back, tc_counters(site, "lan"))
            result["one_way_p95"] = probe.one_way_p95(start["at"], end["at"])
            result["estimate"] = sender.estimate()
            result["sender_probes"] = sender.probes_sent()
            result["notes"] = "; ".join(x for x in (sender.diagnostics(), receiver.diagnostics()) if x)
            result["p50"] = statistics.median(rtts) if rtts else None
            result["p95"] = p95(rtts)
            result["probes"] = len(rtts)
            return result
        finally:
            probe.close()
            for party in parties:
                try:
                    party.close()
                except Exception as error:   # a party that died is reported by the row's numbers
                    print(f"  note: closing {party.name}: {error}", file=sys.stderr)
            serve.stop()
            coturn.close()


def clip_of_size(clip: str, size: str) -> str:
    """The clip scaled to `size` (made once next to it with ffmpeg), or the clip itself when it has that size."""
    with open(clip, "rb") as f:
        header = f.readline().decode(errors="replace").split()
    width = next((t[1:] for t in header if t.startswith("W")), "")
    height = next((t[1:] for t in header if t.startswith("H")), "")
    if f"{width}x{height}" == size:
        return clip
    scaled = pathlib.Path(clip).with_name(f"{pathlib.Path(clip).stem}_{size}.y4m")
    if not scaled.exists() or scaled.stat().st_size == 0:
        w, h = size.split("x")
        run("ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-i", clip, "-vf", f"scale={w}:{h}:flags=bicubic",
            "-pix_fmt", "yuv420p", str(scaled))
    return str(scaled)


def fmt(value, pattern: str) -> str:
    return "—" if value is None else pattern.format(value)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary", nargs="?", default=os.environ.get("CONFTUI_BIN"))
    parser.add_argument("--only", choices=ROWS, action="append")
    parser.add_argument("--paths", default="a,b,c")
    parser.add_argument("--size", default="640x480", help="picture size every sender sends (WxH)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each row; the table gives medians")
    parser.add_argument("--clip", default=str(pathlib.Path(os.environ.get("CONFTUI_CLIPS", HERE.parent.parent / ".build" / "clips"))
                                              / "talkhead_noise.y4m"))
    args = parser.parse_args()
    if args.binary:
        os.environ["CONFTUI_BIN"] = args.binary
    missing = available()
    if missing:
        print(f"network bench skipped: {missing}")
        return 0
    if not os.path.exists(args.clip):
        print(f"network bench skipped: no clip at {args.clip} (make bench converts the benchmark clips into .build/clips)")
        return 0
    clip = clip_of_size(os.path.abspath(args.clip), args.size)
    print(f"network bench: {args.size} from {clip}")
    results = []
    with tempfile.TemporaryDirectory(prefix="conftui-netbench-") as tmp:
        for path in args.paths.split(","):
            for attempt in range(max(1, args.repeat)):
                for row in args.only or ROWS:
                    workdir = pathlib.Path(tmp) / f"{path}-{ROWS.index(row)}-{attempt}"
                    workdir.mkdir()
                    try:
                        results.append(run_row(row, path, args.binary, clip, args.size, workdir))
                    except Exception as error:
                        results.append({"row": row, "path": PATHS[path][0], "error": str(error)[:200]})
                    print_run(results[-1])
    print()
    print_table(median_rows(results), args.repeat)
    return 0


def print_run(r: dict) -> None:
    print(f"  {r['path']:<20} {r['row']:<18} " + (r["error"] if "error" in r else
          f"util {r['utilisation']:.0%} drops {r['drops']:.1%} fps {r['fps']:.1f} freezes {r['freezes']} "
          f"rtt p50 {fmt(r['p50'], '{:.0f}')} p95 {fmt(r['p95'], '{:.0f}')} ms "
          f"estimate {fmt(r['estimate'], '{:.0f}')} probes {fmt(r['sender_probes'], '{}')} media {r['media']}"
          + (f" one-way p95 A→B {r['one_way_p95'][0]:.0f} B→A {r['one_way_p95'][1]:.0f} ms" if r.get("one_way_p95") else "")
          + f" B→A drops {r['back_drops']:.1%}"
          + (f" reach {r['reach']} series {r['series']}" if "reach" in r else "")
          + (f" ({r['notes']})" if r.get("notes") else "")), flush=True)


def median_or_none(values: list):
    """The median of the values; a reach time never met (None) counts as longer than any that was, and a median
    that falls on one is None too."""
    if not values:
        return None
    ordered = sorted(values, key=lambda v: (v is None, v or 0))
    middle = ordered[(len(ordered) - 1) // 2:len(ordered) // 2 + 1]
    return None if None in middle else sum(middle) / len(middle)


def median_rows(results: list[dict]) -> list[dict]:
    """One row per (path, peers) in first-run order: the median of each figure over its runs that did not fail, the
    p95's range over them, and how many failed."""
    groups: dict[tuple, list[dict]] = {}
    for r in results:
        groups.setdefault((r["path"], r["row"]), []).append(r)
    rows = []
    for (path, row), runs in groups.items():
        ok = [r for r in runs if "error" not in r]
        if not ok:
            rows.append(runs[0])
            continue
        merged = {"path": path, "row": row, "runs": len(ok), "failed": len(runs) - len(ok)}
        for key in ("utilisation", "drops", "fps", "freezes", "p50", "p95"):
            merged[key] = median_or_none([r[key] for r in ok if r[key] is not None])
        p95s = [r["p95"] for r in ok if r["p95"] is not None]
        merged["p95_range"] = (min(p95s), max(p95s)) if p95s else None
        if "reach" in ok[0]:
            merged["reach"] = [median_or_none([r["reach"][i] for r in ok]) for i in range(len(ok[0]["reach"]))]
        rows.append(merged)
    return rows


def print_table(rows: list[dict], repeat: int) -> None:
    if repeat > 1:
        print(f"Medians over {repeat} runs of each row (p95's range over the runs in brackets).")
    print("| path | peers (A → B) | utilisation | queue drops | fps at B | freezes | probe RTT p50 / p95 | within 15 % of 2.5 / 0.6 / 1 Mbit/s after |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "error" in r:
            print(f"| {r['path']} | {r['row']} | failed: {r['error']} | | | | | |")
            continue
        reach = " / ".join(fmt(x, "{:.0f} s") for x in r["reach"]) if "reach" in r else ""
        spread = f" ({r['p95_range'][0]:.0f}-{r['p95_range'][1]:.0f})" if repeat > 1 and r.get("p95_range") else ""
        failed = f" ({r['failed']} of {r['runs'] + r['failed']} runs failed)" if r.get("failed") else ""
        print(f"| {r['path']} | {r['row']}{failed} | {r['utilisation']:.0%} | {r['drops']:.1%} | {r['fps']:.1f} | "
              f"{r['freezes']} | {fmt(r['p50'], '{:.0f}')} / {fmt(r['p95'], '{:.0f}')}{spread} ms | {reach} |")


if __name__ == "__main__":
    sys.exit(main())
