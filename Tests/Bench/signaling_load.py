#!/usr/bin/env python3
"""Load benchmark for `conftui serve` (SkyRTC signaling).

1,000 WebSocket clients (Python `websockets` asyncio) join 100 rooms of 10 on a server started as a
subprocess on 127.0.0.1:0; in 20 rounds every client sends one `__ice_candidate` to a peer of its
room (the candidate line carries a send timestamp), and each round ends when all forwarded
messages arrived; then everybody leaves. Prints clients, rooms, messages forwarded, messages/s,
p50/p99 forward latency and the server's peak RSS (VmHWM).

The same load is then run against a baseline: a minimal SkyRTC relay written with `websockets`
(`--baseline-server`, run by this script in its own process), and the ratio is printed.

Usage: signaling_load.py [CONFTUI_BIN] [--clients N] [--rooms N] [--rounds N] [--no-baseline]
(binary path from argv or $CONFTUI_BIN). Loopback only; hard timeout 120 s.
"""
import argparse
import asyncio
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time

HARD_TIMEOUT = 120.0


def raise_nofile():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def cpu_seconds(pid):
    """utime + stime of a process, from /proc/PID/stat (fields 14 and 15)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return None


def peak_rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


# ---------------------------------------------------------------- baseline relay (the reference)

async def baseline_server(port):
    """A minimal SkyRTC relay: the original server's join/forward/remove semantics in Python."""
    import websockets
    sockets, rooms = {}, {}

    async def handler(ws):
        import uuid
        me = str(uuid.uuid4())
        sockets[me] = ws
        room = None
        try:
            async for raw in ws:
                try:
                    msg = json.loads(raw)
                    ev, data = msg.get("eventName"), msg.get("data") or {}
                except Exception:
                    continue
                if ev == "__join":
                    room = data.get("room") or "__default"
                    members = rooms.setdefault(room, [])
                    for m in members:
                        await sockets[m].send(json.dumps({"eventName": "_new_peer", "data": {"socketId": me}}, separators=(",", ":")))
                    conns = list(members)
                    members.append(me)
                    await ws.send(json.dumps({"eventName": "_peers", "data": {"connections": conns, "you": me}}, separators=(",", ":")))
                elif ev in ("__offer", "__answer", "__ice_candidate"):
                    target = sockets.get(data.get("socketId"))
                    if target is None:
                        continue
                    if ev == "__ice_candidate":
                        out = {"label": data.get("label"), "candidate": data.get("candidate"), "socketId": me}
                    else:
                        out = {"sdp": data.get("sdp"), "socketId": me}
                    await target.send(json.dumps({"eventName": "_" + ev[2:], "data": out}, separators=(",", ":")))
        except websockets.ConnectionClosed:
            pass
        finally:
            sockets.pop(me, None)
            if room is not None and me in rooms.get(room, []):
                rooms[room].remove(me)
                for m in reversed(rooms[room]):
                    try:
                        await sockets[m].send(json.dumps({"eventName": "_remove_peer", "data": {"socketId": me}}))
                    except Exception:
                        pass
                if not rooms[room]:
                    del rooms[room]

    async with websockets.serve(handler, "127.0.0.1", port, max_size=1 << 20, ping_interval=None) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"baseline: listening on http://127.0.0.1:{port}/ (ws://127.0.0.1:{port}/)", flush=True)
        await asyncio.Future()


# ---------------------------------------------------------------- load generator

class Client:
    def __init__(self, index, room):
        self.index, self.room = index, room
        self.ws = None
        self.you = None
        self.peers = []
        self.received = 0


async def run_load(url, clients_n, rooms_n, rounds):
    import websockets
    clients = [Client(i, f"room{i % rooms_n}") for i in range(clients_n)]
    per_room = clients_n // rooms_n
    latencies = []
    round_done = asyncio.Event()
    state = {"expected": 0, "got": 0}
    joined_full = asyncio.Event()
    full = {"n": 0}

    async def reader(c):
        async for raw in c.ws:
            now = time.perf_counter_ns()
            msg = json.loads(raw)
            ev, data = msg["eventName"], msg.get("data") or {}
            if ev == "_peers":
                c.you = data["you"]
                c.peers = list(data["connections"])
            elif ev == "_new_peer":
                c.peers.append(data["socketId"])
            elif ev == "_remove_peer":
                if data["socketId"] in c.peers:
                    c.peers.remove(data["socketId"])
                continue
            elif ev == "_ice_candidate":
                m = re.search(r" ts (\d+)", data["candidate"])
                latencies.append((now - int(m.group(1))) / 1e6)
                c.received += 1
                state["got"] += 1
                if state["got"] >= state["expected"]:
                    round_done.set()
                continue
            if ev in ("_peers", "_new_peer") and len(c.peers) == per_room - 1 and c.you:
                full["n"] += 1
                if full["n"] == clients_n:
                    joined_full.set()

    connect_sem = asyncio.Semaphore(100)

    async def connect(c):
        async with connect_sem:
            c.ws = await websockets.connect(url, max_size=1 << 20, ping_interval=None, open_timeout=30)
            asyncio.get_running_loop().create_task(reader(c))
            await c.ws.send(json.dumps({"eventName": "__join", "data": {"room": c.room}}))

    t0 = time.perf_counter()
    await asyncio.gather(*(connect(c) for c in clients))
    await asyncio.wait_for(joined_full.wait(), timeout=60)
    join_s = time.perf_counter() - t0

    t1 = time.perf_counter()
    for r in range(rounds):
        state["expected"] += clients_n
        round_done.clear()
        sends = []
        for c in clients:
            target = c.peers[(c.index + r) % len(c.peers)]
            cand = f"candidate:{c.index} 1 udp 2122260223 127.0.0.1 {9000 + r} typ host ts {time.perf_counter_ns()}"
            sends.append(c.ws.send(json.dumps({"eventName": "__ice_candidate",
                                               "data": {"id": "0", "label": 0, "candidate": cand, "socketId": target}})))
        await asyncio.gather(*sends)
        await asyncio.wait_for(round_done.wait(), timeout=30)
    forward_s = time.perf_counter() - t1

    await asyncio.gather(*(c.ws.close() for c in clients))
    latencies.sort()
    return {
        "clients": clients_n, "rooms": rooms_n, "forwarded": len(latencies), "join_s": join_s,
        "forward_s": forward_s, "msgs_per_s": len(latencies) / forward_s,
        "p50_ms": statistics.median(latencies), "p99_ms": latencies[int(len(latencies) * 0.99) - 1],
    }


def start_server(cmd):
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    m = re.search(r"listening on https?://127\.0\.0\.1:(\d+)/ \((wss?://127\.0\.0\.1:\d+/)\)", line)
    if not m:
        proc.kill()
        raise SystemExit(f"server did not start: {line!r}")
    return proc, m.group(2)


def measure(name, cmd, args, deadline):
    proc, url = start_server(cmd)
    try:
        remaining = max(1.0, deadline - time.monotonic())
        result = asyncio.run(asyncio.wait_for(run_load(url, args.clients, args.rooms, args.rounds), timeout=remaining))
        time.sleep(0.2)
        result["rss_kib"] = peak_rss_kib(proc.pid)
        result["cpu_s"] = cpu_seconds(proc.pid)
        result["name"] = name
        return result
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary", nargs="?", default=os.environ.get("CONFTUI_BIN"))
    ap.add_argument("--clients", type=int, default=1000)
    ap.add_argument("--rooms", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--baseline-server", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = ap.parse_args()
    raise_nofile()
    if args.baseline_server is not None:
        asyncio.run(baseline_server(args.baseline_server))
        return
    if not args.binary:
        raise SystemExit("usage: signaling_load.py CONFTUI_BIN (or set CONFTUI_BIN)")
    deadline = time.monotonic() + HARD_TIMEOUT
    # Every client comes from 127.0.0.1: lift the per-address connection cap (64 by default) for the load.
    serve = [args.binary, "serve", "--port", "0", "--log", "/dev/null", "--max-per-ip", str(args.clients + 16)]
    results = [measure("conftui serve", serve, args, deadline)]
    if not args.no_baseline and time.monotonic() < deadline - 30:
        results.append(measure("python websockets relay", [sys.executable, os.path.abspath(__file__), "--baseline-server", "0"], args, deadline))

    header = f"{'server':<26}{'clients':>8}{'rooms':>7}{'forwarded':>11}{'msgs/s':>10}{'p50 ms':>9}{'p99 ms':>9}{'join s':>8}{'peak RSS':>11}{'srv CPU s':>10}"
    print("signaling load (loopback, one Python asyncio client process; srv CPU = server user+system time for the whole run)")
    print(header)
    print("-" * len(header))
    for r in results:
        rss = f"{r['rss_kib'] / 1024:.1f} MiB" if r["rss_kib"] else "n/a"
        print(f"{r['name']:<26}{r['clients']:>8}{r['rooms']:>7}{r['forwarded']:>11}{r['msgs_per_s']:>10.0f}"
              f"{r['p50_ms']:>9.2f}{r['p99_ms']:>9.2f}{r['join_s']:>8.2f}{rss:>11}{r['cpu_s'] or 0:>10.2f}")
    if len(results) == 2:
        a, b = results
        print(f"ratio conftui/baseline: throughput x{a['msgs_per_s'] / b['msgs_per_s']:.2f}, "
              f"p50 latency x{a['p50_ms'] / b['p50_ms']:.2f}, peak RSS x{(a['rss_kib'] or 0) / (b['rss_kib'] or 1):.2f}, "
              f"server CPU x{(a['cpu_s'] or 0) / (b['cpu_s'] or 1):.2f}")
        print("(throughput and latency are bounded by the single Python client process; server CPU is the server's own cost)")
    expected = args.clients * args.rounds
    if any(r["forwarded"] != expected for r in results):
        raise SystemExit(f"lost messages: expected {expected} per server")


if __name__ == "__main__":
    main()
