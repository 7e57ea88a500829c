#!/usr/bin/env python3
"""Chat round trips and file throughput over data channels, conftui beside Chromium, in one run.

Every measurement is one fresh room of two parties through one `conftui serve`: `conftui bot`s (a real call: test
card and tone flow too) and pages of headless Chromium (fake camera and microphone), each pair in the pairings
conftui↔conftui, conftui↔Chromium (both roles) and Chromium↔Chromium, the last being the bar.

1. Chat round trip, loopback: the pinger sends "ping N" and waits for "pong N" before the next, WARMUP + PINGS times;
   the first WARMUP are dropped, p50/p95 of the other PINGS. The bot pings with `--ping` (send time on its loop
   thread, arrival on the call's event thread) and echoes with `--echo` (answered on the event thread); the page
   pings with `conftuiPing` (performance.now around the send and the reply's handler) and echoes with `?echo=1`.
2. File throughput, loopback: a file of FILE_MB MB (50 MB instead when 20 MB took under 2 s) sent once; MB/s
   (10^6 bytes) over the receiver's time from accepting the offer to the last byte received (bot report
   `files[].offeredAtMs` → `receivedAtMs`: a bot with `--accept-files` accepts on arrival; the page's
   `fileTimes[].acceptedAtMs` → `endedAtMs`); the received sha256 must equal the sender's.
3. File throughput on the emulated internet (root only; skipped with a note otherwise): the sender in a site behind
   a 1 Mbit/s bottleneck (tbf both ways, 300 ms buffer, docs/emulated-network.md), the receiver in the public
   namespace, STUN through coturn, media flowing both ways; a 1 MB file, kbit/s over the same window and its share
   of the 1,000 kbit/s link, and the link's whole use (media + data, tc's byte counters) over that window.
   Where conftui's send-side estimate has found a bottleneck (below 90 % of the estimator's 2.5 Mbit/s maximum), its
   SCTP may use only a quarter of it, reached over 2 s (data yields to media, docs/chat-and-files.md); Chromium's
   SCTP does not yield, so the two shares measure different policies.

The table states the Done-when comparisons as ratios from this run: conftui p95 / Chromium↔Chromium p95 (✓ when
≤ 1) and conftui MB/s / Chromium↔Chromium MB/s (✓ when ≥ 1).

Usage: chat_bench.py CONFTUI_BIN [--pings N] [--warmup N] [--file-mb N] [--no-netns] [--only rtt,file,netns]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import pathlib
import statistics
import sys
import tempfile
import time
import urllib.parse

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))   # Tests/, for testsupport

from testsupport.bot import BotProcess  # noqa: E402
from testsupport.chromium import Chromium  # noqa: E402
from testsupport.pages import PAGE_READY, states_of  # noqa: E402
from testsupport.serve import ServerProcess  # noqa: E402

PAIRS = ("conftui↔conftui", "conftui→Chromium", "Chromium→conftui", "Chromium↔Chromium")
BAR = "Chromium↔Chromium"
LINK_KBIT = 1000
ESTIMATOR_MAXIMUM = 2_500_000   # bit/s: SendController.maximumBitrate; data shares only below 90 % of it


def p95(values: list[float]) -> float:
    """The 95th percentile, nearest rank below (as network_bench.py)."""
    return sorted(values)[int(0.95 * (len(values) - 1))]


def kinds(pair: str) -> tuple[str, str]:
    """(first party, second party): the sender/pinger first."""
    first, second = pair.replace("↔", "→").split("→")
    return ("page" if first == "Chromium" else "bot"), ("page" if second == "Chromium" else "bot")


def wait(condition, timeout: float, what: str, step: float = 0.1):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.0f} s waiting until {what}")
        time.sleep(step)


def report_of(bot: BotProcess) -> dict:
    """The bot's report as last written (refreshed every 2 s), {} before the first."""
    try:
        return json.loads(bot.report_path.read_text())
    except (OSError, ValueError):
        return {}


class Rig:
    """Where parties are started: loopback (netns None) or the emulated internet (sender in the site)."""

    def __init__(self, serve: ServerProcess, workdir: pathlib.Path, stun: str | None = None,
                 sender_ns: str | None = None, receiver_ns: str | None = None) -> None:
        self.serve, self.workdir, self.stun = serve, workdir, stun
        self.sender_ns, self.receiver_ns = sender_ns, receiver_ns
        self.closers: list = []
        self.count = 0

    def bot(self, room: str, name: str, *extra: str, sender: bool) -> BotProcess:
        """A bot named NAME-ROOM: each has its own report and log in the work directory."""
        name = f"{name}-{room}"
        netns = self.sender_ns if sender else self.receiver_ns
        stun = ("--stun", self.stun) if self.stun else ()
        bot = BotProcess(self.serve.ws_url, room, name, self.workdir, *stun, *extra, duration=600,
                         host_candidates="all" if netns else "loopback", netns=netns)
        self.closers.append(bot.stop)
        bot.wait_joined()
        return bot

    def page(self, room: str, name: str, sender: bool, **query: str):
        netns = self.sender_ns if sender else self.receiver_ns
        flags = ()
        if netns:
            # The served page is http on a non-loopback address: secure only when Chromium is told so (getUserMedia,
            # crypto.subtle for the sha256).
            origin = "/".join(self.serve.http_url.split("/")[:3])
            flags = (f"--unsafely-treat-insecure-origin-as-secure={origin}",)
        chromium = Chromium(netns=netns, extra_flags=flags)
        self.closers.append(chromium.close)
        if self.stun:
            query["stun"] = self.stun
        url = f"{self.serve.http_url}?{urllib.parse.urlencode(dict(name=name, **query))}#{room}"
        page = chromium.new_page(url, name, PAGE_READY)
        wait(lambda: states_of([page])[0]["you"] is not None, 10, f"page {name} joins")
        return page

    def room(self, what: str) -> str:
        self.count += 1
        return f"{what}{self.count}"

    def close(self) -> None:
        for close in reversed(self.closers):
            try:
                close()
            except Exception as error:   # a party that died is reported by its row
                print(f"  note: closing a party: {str(error)[:200]}", file=sys.stderr)
        self.closers = []


def send_estimate(party) -> float | None:
    """The sender's own send-side estimate now, bit/s: the bot's `sendEstimateBitrate`, the page's
    `availableOutgoingBitrate` (Chromium's)."""
    if isinstance(party, BotProcess):
        values = [p.get("transport", {}).get("sendEstimateBitrate") for p in report_of(party).get("peers", {}).values()]
    else:
        values = [p.get("availableOutgoingBitrate") for p in states_of([party])[0]["peers"].values()]
    values = [v for v in values if v]
    return values[0] if values else None


def page_open_channels(page) -> int:
    return sum(1 for v in states_of([page])[0]["channels"].values() if v == "open")


# 1. Round trips.

def round_trips(rig: Rig, pair: str, total: int) -> list[float]:
    """`total` round trips pinged by the pair's first party at an echoing second party, in order (None: lost)."""
    pinger, echoer = kinds(pair)
    room = rig.room("rtt")
    try:
        if echoer == "bot":
            rig.bot(room, "echo", "--echo", sender=False)
        else:
            rig.page(room, "echo", sender=False, echo="1")
        if pinger == "bot":
            bot = rig.bot(room, "pinger", "--ping", str(total), sender=True)
            report = wait(lambda: (r := report_of(bot)) and r.get("roundTripsMs")
                          and len(next(iter(r["roundTripsMs"].values()))) >= total and r,
                          60 + total * 0.1, f"{total} round trips of {pair}", 0.5)
            return next(iter(report["roundTripsMs"].values()))[:total]
        page = rig.page(room, "pinger", sender=True)
        wait(lambda: page_open_channels(page) >= 1, 20, "the channel opens")
        results = page.evaluate(f"conftuiPing({total})", timeout=60 + total * 5.5)
        return next(iter(results.values()))
    finally:
        rig.close()


# 2 and 3. Files.

def file_transfer(rig: Rig, pair: str, size: int, on_transfer=None) -> dict:
    """One file of `size` bytes from the pair's first party to its second: seconds (accept → last byte), whether
    the sha256 matched, and the receiver's window in Unix ms."""
    sender, receiver = kinds(pair)
    room = rig.room("file")
    try:
        downloads = rig.workdir / f"downloads-{room}"
        downloads.mkdir()
        if receiver == "bot":
            rx = rig.bot(room, "receiver", "--accept-files", str(downloads), sender=False)
        else:
            rx = rig.page(room, "receiver", sender=False, acceptFiles="1")
        expected = None
        if sender == "bot":
            path = rig.workdir / f"send-{size}.bin"
            if not path.exists():
                path.write_bytes(os.urandom(size))
            expected = hashlib.sha256(path.read_bytes()).hexdigest()
            tx = rig.bot(room, "sender", "--send-file", str(path), sender=True)
        else:
            tx = rig.page(room, "sender", sender=True)
            wait(lambda: page_open_channels(tx) >= 1, 20, "the channel opens")
            record = tx.evaluate(f"conftuiSendFile('bench-{size}.bin', {size})", timeout=60)
            expected = record["sha256"]
        started = time.time()
        timeout = 60 + size * 8 / 100_000    # up to 100 kbit/s
        if on_transfer:
            on_transfer(started)
        if receiver == "bot":
            report = wait(lambda: (r := report_of(rx)) and r.get("files") and r["files"][0]["state"] in
                          ("received", "failed", "refused") and r, timeout, f"{pair} file arrives", 0.25)
            f = report["files"][0]
            if f["state"] != "received":
                raise RuntimeError(f"file {f['state']}: {f.get('reason')}")
            window = (f["offeredAtMs"], f["receivedAtMs"])
            sha = f["sha256"]
        else:
            state = wait(lambda: (s := states_of([rx])[0]) and s["files"] and (s["files"][0]["state"] != "received"
                         or s["files"][0]["sha256"]) and s, timeout, f"{pair} file arrives", 0.25)
            if state["files"][0]["state"] != "received":
                raise RuntimeError(f"file {state['files'][0]['state']}")
            t = state["fileTimes"][0]
            window = (t["acceptedAtMs"], t["endedAtMs"])
            sha = state["files"][0]["sha256"]
        seconds = (window[1] - window[0]) / 1000
        return {"seconds": seconds, "size": size, "sha_ok": sha == expected and sha is not None, "window": window,
                "estimate": send_estimate(tx)}
    finally:
        rig.close()


def fmt(value, pattern: str) -> str:
    return "—" if value is None else pattern.format(value)


def run_rtts(binary: str, workdir: pathlib.Path, pings: int, warmup: int) -> dict:
    rows = {}
    serve = ServerProcess((binary, "serve", "--port", "0", "--host", "127.0.0.1"), "conftui serve",
                          workdir / "serve-rtt.log").start()
    try:
        rig = Rig(serve, workdir)
        for pair in PAIRS:
            try:
                samples = round_trips(rig, pair, warmup + pings)
                kept = samples[warmup:]
                ok = [s for s in kept if s is not None]
                rows[pair] = {"n": len(ok), "lost": len(kept) - len(ok), "p50": statistics.median(ok), "p95": p95(ok),
                              "max": max(ok)}
                r = rows[pair]
                print(f"  round trips {pair:<18} n {r['n']} lost {r['lost']} p50 {r['p50']:.2f} p95 {r['p95']:.2f} "
                      f"max {r['max']:.2f} ms", flush=True)
            except Exception as error:
                rows[pair] = {"error": str(error)[:200]}
                print(f"  round trips {pair:<18} failed: {rows[pair]['error']}", flush=True)
    finally:
        serve.stop()
    return rows


def run_files(binary: str, workdir: pathlib.Path, file_mb: int) -> dict:
    rows = {}
    serve = ServerProcess((binary, "serve", "--port", "0", "--host", "127.0.0.1"), "conftui serve",
                          workdir / "serve-file.log").start()
    try:
        rig = Rig(serve, workdir)
        for pair in PAIRS:
            try:
                result = file_transfer(rig, pair, file_mb * 1_000_000)
                print(f"  file {pair:<18} {result['size'] / 1e6:.0f} MB in {result['seconds']:.2f} s "
                      f"sha256 {'ok' if result['sha_ok'] else 'MISMATCH'}", flush=True)
                if result["seconds"] < 2 and file_mb < 50:
                    result = file_transfer(rig, pair, 50_000_000)
                    print(f"  file {pair:<18} {result['size'] / 1e6:.0f} MB in {result['seconds']:.2f} s "
                          f"sha256 {'ok' if result['sha_ok'] else 'MISMATCH'}", flush=True)
                result["mbps"] = result["size"] / 1e6 / result["seconds"]
                rows[pair] = result
            except Exception as error:
                rows[pair] = {"error": str(error)[:200]}
                print(f"  file {pair:<18} failed: {rows[pair]['error']}", flush=True)
    finally:
        serve.stop()
    return rows


def run_netns(binary: str, workdir: pathlib.Path) -> dict | str:
    from testsupport.coturn import Coturn
    from testsupport.netns import PUBLIC_ADDRESS, available, emulated_internet, run

    missing = available()
    if missing:
        return missing
    rows = {}
    for pair in PAIRS:
        samples: list[tuple[float, int]] = []   # (Unix s, bytes A's router sent on its wan: A → B)
        try:
            with emulated_internet() as net:
                site = net.add_site("restricted", rate_kbit=LINK_KBIT)
                pairdir = workdir / f"netns-{PAIRS.index(pair)}"
                pairdir.mkdir()
                coturn = Coturn(PUBLIC_ADDRESS, pairdir, net.public)
                serve = ServerProcess(("ip", "netns", "exec", net.public, binary, "serve", "--port", "0", "--host",
                                       PUBLIC_ADDRESS), "conftui serve", pairdir / "serve.log").start()
                sampling = {"on": True}

                def sample_link(_started: float) -> None:
                    import threading

                    def loop() -> None:
                        while sampling["on"]:
                            out = run("tc", "-s", "-j", "qdisc", "show", "dev", "wan", ns=site.router).stdout
                            samples.append((time.time(), json.loads(out)[0]["bytes"]))
                            time.sleep(0.5)
                    threading.Thread(target=loop, daemon=True).start()

                try:
                    rig = Rig(serve, pairdir, stun=coturn.stun_uri, sender_ns=site.client, receiver_ns=net.public)
                    result = file_transfer(rig, pair, 1_000_000, on_transfer=sample_link)
                finally:
                    sampling["on"] = False
                    serve.stop()
                    coturn.close()
            start, end = result["window"][0] / 1000, result["window"][1] / 1000
            inside = [s for s in samples if start <= s[0] <= end]
            result["kbps"] = result["size"] * 8 / result["seconds"] / 1000
            result["link_use"] = ((inside[-1][1] - inside[0][1]) * 8 / (inside[-1][0] - inside[0][0]) / 1000 / LINK_KBIT
                                  if len(inside) >= 2 else None)
            rows[pair] = result
            print(f"  1 Mbit/s {pair:<18} 1 MB in {result['seconds']:.1f} s = {result['kbps']:.0f} kbit/s; "
                  f"link use {fmt(result['link_use'], '{:.0%}')} sha256 {'ok' if result['sha_ok'] else 'MISMATCH'}",
                  flush=True)
        except Exception as error:
            rows[pair] = {"error": str(error)[:200]}
            print(f"  1 Mbit/s {pair:<18} failed: {rows[pair]['error']}", flush=True)
    return rows


def kbit(bits: float | None) -> str:
    return "—" if not bits else f"{bits / 1000:,.0f} kbit/s"


def verdict(ok: bool) -> str:
    return "✓" if ok else "✗"


def print_tables(rtts: dict, files: dict, netns, pings: int, warmup: int) -> bool:
    """Prints the tables; False when a row failed."""
    failed = False
    if rtts:
        bar = rtts.get(BAR, {}).get("p95")
        print()
        print(f"Chat round trips on loopback: {pings} after {warmup} warm-up, one in flight (pinger → echoer).")
        print()
        print("| pair (pinger → echoer) | p50 | p95 | max | lost | p95 / Chromium↔Chromium p95 | conftui p95 ≤ Chromium↔Chromium p95 |")
        print("|---|---|---|---|---|---|---|")
        for pair in PAIRS:
            r = rtts.get(pair, {"error": "not run"})
            if "error" in r:
                failed = True
                print(f"| {pair} | failed: {r['error']} | | | | | |")
                continue
            ratio = r["p95"] / bar if bar else None
            check = "(the bar)" if pair == BAR else (verdict(ratio <= 1) if ratio is not None else "—")
            print(f"| {pair} | {r['p50']:.2f} ms | {r['p95']:.2f} ms | {r['max']:.2f} ms | {r['lost']} | "
                  f"{fmt(ratio, '{:.2f}')} | {check} |")
    if files:
        bar = files.get(BAR, {}).get("mbps")
        print()
        print("File throughput on loopback: accept → last byte at the receiver, MB = 10^6 bytes, sha256 checked.")
        print()
        print("| pair (sender → receiver) | file | seconds | MB/s | sha256 | sender's send estimate at the end | MB/s / Chromium↔Chromium | conftui ≥ Chromium↔Chromium |")
        print("|---|---|---|---|---|---|---|---|")
        for pair in PAIRS:
            r = files.get(pair, {"error": "not run"})
            if "error" in r:
                failed = True
                print(f"| {pair} | failed: {r['error']} | | | | | | |")
                continue
            failed |= not r["sha_ok"]
            ratio = r["mbps"] / bar if bar else None
            check = "(the bar)" if pair == BAR else (verdict(ratio >= 1) if ratio is not None else "—")
            print(f"| {pair} | {r['size'] / 1e6:.0f} MB | {r['seconds']:.2f} | {r['mbps']:.2f} | "
                  f"{'ok' if r['sha_ok'] else 'MISMATCH'} | {kbit(r['estimate'])} | {fmt(ratio, '{:.3f}')} | {check} |")
        notes = []
        for pair in PAIRS:
            r = files.get(pair, {})
            if kinds(pair)[0] == "bot" and r.get("estimate") and "mbps" in r:
                if r["estimate"] >= 0.9 * ESTIMATOR_MAXIMUM:
                    notes.append(f"{pair}: the sender's estimate is {r['estimate'] / 1000:,.0f} kbit/s, at the "
                                 "estimator's maximum (no bottleneck found): no share, SCTP's own congestion control "
                                 "sets the pace.")
                else:
                    cap = r["estimate"] / 4 / 8 / 1e6   # MB/s of SCTP payload: a quarter of the estimate
                    notes.append(f"{pair}: the sender's estimate is {r['estimate'] / 1000:,.0f} kbit/s, below the "
                                 f"maximum: data is held to a quarter, {cap:.3f} MB/s of SCTP payload, {cap * 3 / 4:.3f} "
                                 f"MB/s of file bytes after base64; measured {r['mbps']:.3f} MB/s.")
        if notes:
            print()
            print("A conftui sender's data yields to media only where its send-side estimate found a bottleneck "
                  "(below 90 % of the estimator's 2.5 Mbit/s maximum; docs/chat-and-files.md); SkyRTC sends files as "
                  "base64, 4 characters per 3 bytes:")
            for note in notes:
                print(f"- {note}")
    if isinstance(netns, str):
        print()
        print(f"File throughput on the 1 Mbit/s path skipped: {netns}.")
    elif netns:
        print()
        print("File throughput on the emulated internet: sender behind a 1 Mbit/s site (media flowing both ways), "
              "1 MB file, accept → last byte at the receiver.")
        print()
        print("| pair (sender → receiver) | seconds | data kbit/s | data share of 1 Mbit/s | link use (media + data) | sender's send estimate at the end | sha256 |")
        print("|---|---|---|---|---|---|---|")
        for pair in PAIRS:
            r = netns.get(pair, {"error": "not run"})
            if "error" in r:
                failed = True
                print(f"| {pair} | failed: {r['error']} | | | | | |")
                continue
            failed |= not r["sha_ok"]
            print(f"| {pair} | {r['seconds']:.1f} | {r['kbps']:.0f} | {r['kbps'] / LINK_KBIT:.0%} | "
                  f"{fmt(r['link_use'], '{:.0%}')} | {kbit(r['estimate'])} | {'ok' if r['sha_ok'] else 'MISMATCH'} |")
        print()
        print("Behind the bottleneck conftui's estimate stays below the estimator's maximum, so its SCTP may use a "
              "quarter of the estimate (reached over 2 s; data yields to media, docs/chat-and-files.md) and the "
              "video leaves that quarter free: a conftui sender's file gets at most about a quarter of the link by "
              "design, and base64 makes a file byte cost 4/3 on the wire. Chromium's SCTP does not yield to its "
              "media (its media estimate falls instead), so its share measures a different policy, not a faster "
              "transport. Link use counts every byte A's router sent towards B in the window.")
    return not failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary", nargs="?", default=os.environ.get("CONFTUI_BIN"))
    parser.add_argument("--pings", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--file-mb", type=int, default=20)
    parser.add_argument("--only", default="rtt,file,netns")
    args = parser.parse_args()
    if not args.binary:
        parser.error("the conftui binary is needed (argument or CONFTUI_BIN)")
    os.environ["CONFTUI_BIN"] = args.binary
    parts = set(args.only.split(","))
    with tempfile.TemporaryDirectory(prefix="conftui-chatbench-") as tmp:
        workdir = pathlib.Path(tmp)
        rtts = run_rtts(args.binary, workdir, args.pings, args.warmup) if "rtt" in parts else {}
        files = run_files(args.binary, workdir, args.file_mb) if "file" in parts else {}
        netns = run_netns(args.binary, workdir) if "netns" in parts else {}
    return 0 if print_tables(rtts, files, netns, args.pings, args.warmup) else 1


if __name__ == "__main__":
    sys.exit(main())
