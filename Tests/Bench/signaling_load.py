#!/usr/bin/env python3
"""Signaling benchmark for `conftui serve`, against a small Python `websockets` relay in the same run.

Part 1, the SDP load: 200 WebSocket clients join 20 rooms of 10; every client then sends offers
(`--seconds` of sending a round at `--rate`, so 125 each at the default 5,000/s; `--offers` to set it), each an
`__offer` carrying a ~3 KB Chromium-style offer SDP, to peers of its room. The SDP's session id
(`o=- <id>`) is the sender's CLOCK_MONOTONIC in ns, zero-padded to a fixed width, so the receiver
measures the forward latency. The clients live in several Python processes (whole rooms per
process, so every message stays inside one process) and the sends are paced at a bounded total rate
(`--rate`; 0: unpaced), the same schedule for both servers. The load generator shares the CPUs with
the server, so it is kept cheap: each process is one epoll loop over raw non-blocking sockets; an
offer is a frame built once per (client, target) with the all-zero masking key (RFC 6455 §5.3: the
payload goes as it is) and only its timestamp patched in; received frames are split by a minimal
reader and an offer's latency is read at its timestamp (no JSON parse per message). The generator's
own CPU is printed, so a reader can see that it is not the bottleneck.
Both servers and their clients run at once, and the sending rounds (`--repeat`, on the same
connections) alternate between them, so both see the same neighbours on a shared machine; CPU per
message is the median round, latencies are pooled over all rounds.
Printed per server: CPU per forwarded message (the server's utime+stime from /proc/PID/stat over the
sending phase, divided by the messages forwarded), p50/p99 forward latency, peak RSS (VmHWM), messages,
the offers sent a second, the generator's CPU, and how long the server and the generator waited for
a CPU (run-queue time from /proc/PID/task/*/schedstat: a round disturbed by neighbours, or by the
generator and the server competing for the CPUs, shows there);
then the ratios conftui/relay.

Part 2, hostile cases, one at a time against a running server: (1) one ~1 MiB text message holding a JSON
object with 120,000 distinct keys, (2) 1 MiB of `[`, (3) one client sending 10,000 tiny `__ice_candidate`s
a second for 3 s. While each runs (and until the server has dealt with it: the attacker's next
message is answered, at most 30 s), a probe sends `GET /healthz` and a forwarded `__offer` between
two clients of another room every 20 ms; the worst latency of each is printed (a probe still
unanswered at the end counts with its time so far, marked `!`). The hostile clients write raw, pre-masked frames
(RFC 6455 §5.3 allows any masking key; all-zero keeps the payload as it is), so Python stays cheap.

Usage: signaling_load.py [CONFTUI_BIN] [--clients 200] [--rooms 20] [--rate 5000] [--seconds 5]
       [--offers N] [--workers 4] [--repeat 3] [--no-relay] [--no-hostile]
(binary path from argv or $CONFTUI_BIN; `make bench` runs it on the release build). Loopback only;
hard timeout 420 s.
"""
import argparse
import asyncio
import base64
import json
import multiprocessing
import os
import re
import resource
import select
import signal
import socket
import statistics
import subprocess
import sys
import time

HARD_TIMEOUT = 420


def raise_nofile():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def cpu_split(pid):
    """(utime, stime) of a process (all its threads) in seconds, from /proc/PID/stat (fields 14 and 15)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        tick = os.sysconf("SC_CLK_TCK")
        return int(fields[11]) / tick, int(fields[12]) / tick
    except OSError:
        return None


def cpu_seconds(pid):
    split = cpu_split(pid)
    return None if split is None else split[0] + split[1]


def runq_wait_s(pid):
    """Seconds the process's threads have spent runnable but waiting for a CPU (/proc/PID/task/*/schedstat,
    second field): how much a shared machine's neighbours held it back."""
    total = 0
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                    total += int(f.read().split()[1])
            except (OSError, IndexError, ValueError):
                pass
    except OSError:
        pass
    return total / 1e9


def peak_rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def offer_sdp(ts_ns, index):
    """A Chromium-style offer (one Opus audio and one video m-line with VP8/VP9/H264, RTX, simulcast-free),
    about 3 KB of JSON. The session id is the send time, which the receiver reads back."""
    ufrag = f"{index:04x}Qk"
    lines = [
        "v=0",
        f"o=- {ts_ns} 2 IN IP4 127.0.0.1",
        "s=-",
        "t=0 0",
        "a=group:BUNDLE 0 1",
        "a=extmap-allow-mixed",
        "a=msid-semantic: WMS 3f1b4b4e-7c55-4a63-9a4f-1d2c3b4a5e6f",
        "m=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126",
        "c=IN IP4 0.0.0.0",
        "a=rtcp:9 IN IP4 0.0.0.0",
        f"a=ice-ufrag:{ufrag}",
        "a=ice-pwd:h6Vf3xX9yXrJp1wq9Xc0mZ2b",
        "a=ice-options:trickle",
        "a=fingerprint:sha-256 4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C:AB:3B:8D:2E:6A:3F:A1:0C:5E:12:77:42:0B",
        "a=setup:actpass",
        "a=mid:0",
        "a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level",
        "a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
        "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
        "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
        "a=sendrecv",
        "a=msid:3f1b4b4e-7c55-4a63-9a4f-1d2c3b4a5e6f 8c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f",
        "a=rtcp-mux",
        "a=rtpmap:111 opus/48000/2",
        "a=rtcp-fb:111 transport-cc",
        "a=fmtp:111 minptime=10;useinbandfec=1",
        "a=rtpmap:63 red/48000/2",
        "a=fmtp:63 111/111",
        "a=rtpmap:9 G722/8000",
        "a=rtpmap:0 PCMU/8000",
        "a=rtpmap:8 PCMA/8000",
        "a=rtpmap:13 CN/8000",
        "a=rtpmap:110 telephone-event/48000",
        "a=rtpmap:126 telephone-event/8000",
        f"a=ssrc:{1000 + index} cname:bench{index}",
        f"a=ssrc:{1000 + index} msid:3f1b4b4e-7c55-4a63-9a4f-1d2c3b4a5e6f 8c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f",
        "m=video 9 UDP/TLS/RTP/SAVPF 96 97 98 99 100 101",
        "c=IN IP4 0.0.0.0",
        "a=rtcp:9 IN IP4 0.0.0.0",
        f"a=ice-ufrag:{ufrag}",
        "a=ice-pwd:h6Vf3xX9yXrJp1wq9Xc0mZ2b",
        "a=ice-options:trickle",
        "a=fingerprint:sha-256 4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C:AB:3B:8D:2E:6A:3F:A1:0C:5E:12:77:42:0B",
        "a=setup:actpass",
        "a=mid:1",
        "a=extmap:14 urn:ietf:params:rtp-hdrext:toffset",
        "a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
        "a=extmap:13 urn:3gpp:video-orientation",
        "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
        "a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay",
        "a=extmap:6 http://www.webrtc.org/experiments/rtp-hdrext/video-content-type",
        "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
        "a=sendrecv",
        "a=msid:3f1b4b4e-7c55-4a63-9a4f-1d2c3b4a5e6f 5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9",
        "a=rtcp-mux",
        "a=rtcp-rsize",
        "a=rtpmap:96 VP8/90000",
        "a=rtcp-fb:96 goog-remb",
        "a=rtcp-fb:96 transport-cc",
        "a=rtcp-fb:96 ccm fir",
        "a=rtcp-fb:96 nack",
        "a=rtcp-fb:96 nack pli",
        "a=rtpmap:97 rtx/90000",
        "a=fmtp:97 apt=96",
        "a=rtpmap:98 VP9/90000",
        "a=rtcp-fb:98 goog-remb",
        "a=rtcp-fb:98 transport-cc",
        "a=rtcp-fb:98 ccm fir",
        "a=rtcp-fb:98 nack",
        "a=rtcp-fb:98 nack pli",
        "a=fmtp:98 profile-id=0",
        "a=rtpmap:99 rtx/90000",
        "a=fmtp:99 apt=98",
        "a=rtpmap:100 H264/90000",
        "a=rtcp-fb:100 goog-remb",
        "a=rtcp-fb:100 transport-cc",
        "a=rtcp-fb:100 ccm fir",
        "a=rtcp-fb:100 nack",
        "a=rtcp-fb:100 nack pli",
        "a=fmtp:100 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f",
        "a=rtpmap:101 rtx/90000",
        "a=fmtp:101 apt=100",
        f"a=ssrc-group:FID {2000 + index} {3000 + index}",
        f"a=ssrc:{2000 + index} cname:bench{index}",
        f"a=ssrc:{2000 + index} msid:3f1b4b4e-7c55-4a63-9a4f-1d2c3b4a5e6f 5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9",
        f"a=ssrc:{3000 + index} cname:bench{index}",
        f"a=ssrc:{3000 + index} msid:3f1b4b4e-7c55-4a63-9a4f-1d2c3b4a5e6f 5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9",
    ]
    return "\r\n".join(lines) + "\r\n"


def offer_text(target, ts_ns, index):
    return json.dumps({"eventName": "__offer", "data": {"socketId": target, "sdp": {"type": "offer", "sdp": offer_sdp(ts_ns, index)}}},
                      separators=(",", ":"))


# ---------------------------------------------------------------- the Python relay (the reference)

async def relay_server(port):
    """A minimal SkyRTC relay: the original server's join/forward/remove semantics in Python, plus
    `GET /healthz` so the hostile-case probes can reach it."""
    import http
    import uuid
    import websockets
    sockets, rooms = {}, {}

    def process_request(connection, request):
        if request.path == "/healthz":
            return connection.respond(http.HTTPStatus.OK, "ok")
        return None

    async def handler(ws):
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
                    try:
                        await target.send(json.dumps({"eventName": "_" + ev[2:], "data": out}, separators=(",", ":")))
                    except websockets.ConnectionClosed:
                        pass
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

    async with websockets.serve(handler, "127.0.0.1", port, max_size=1 << 20, ping_interval=None,
                                process_request=process_request) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"relay: listening on http://127.0.0.1:{port}/ (ws://127.0.0.1:{port}/)", flush=True)
        await asyncio.Future()


# ---------------------------------------------------------------- SDP load: one worker process

TS_WIDTH = 19  # the send time in the SDP's session id: CLOCK_MONOTONIC ns, zero-padded to a fixed width
OFFER_PREFIX = b'{"eventName":"_offer"'
CLOSE_FRAME = b"\x88\x82\0\0\0\0\x03\xe8"  # close 1000, masked with the all-zero key


class LoadClient:
    """One raw WebSocket connection of the load generator: a non-blocking socket, its unread input
    and unsent output, its SkyRTC identity and peers, and its prebuilt offer frames (one per target)."""
    __slots__ = ("index", "room", "sock", "fd", "inbuf", "out", "you", "peers", "frames", "closed")

    def __init__(self, index, room):
        self.index, self.room = index, room
        self.inbuf, self.out = bytearray(), bytearray()
        self.you, self.peers, self.frames, self.closed = None, [], {}, False

    def offer_frame(self, target):
        """The client frame of an offer to `target`, built once (all-zero masking key: the payload is
        sent as it is), and the offset of its timestamp, patched in before each send."""
        entry = self.frames.get(target)
        if entry is None:
            frame = bytearray(ws_frame(1, offer_text(target, "0" * TS_WIDTH, self.index).encode()))
            entry = self.frames[target] = (frame, frame.index(b"o=- ") + 4)
        return entry


def open_load_client(host, port, c, timeout=30):
    """Connects and upgrades (blocking, with a timeout), then leaves the socket non-blocking."""
    sock = socket.create_connection((host, port), timeout=timeout)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET / HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            raise ConnectionError("closed during the upgrade")
        head += chunk
    head, rest = head.split(b"\r\n\r\n", 1)
    if not head.startswith(b"HTTP/1.1 101"):
        raise ConnectionError(f"no upgrade: {head[:40]!r}")
    sock.setblocking(False)
    c.sock, c.fd = sock, sock.fileno()
    c.inbuf += rest


def worker_main(url, specs, per_room, offers, rate, repeats, pipe):
    """Connects `specs` [(index, room)] and joins them; then `repeats` times: waits for "go", sends
    `offers` offers per client at `rate` messages/s (this process's share; 0: unpaced), and reports the
    latencies of the offers its clients received. One epoll loop over raw non-blocking sockets: an
    offer is a prebuilt frame with its timestamp patched in, and a received offer's latency is read
    at the timestamp's place (no JSON per message); only the join replies are parsed."""
    m = re.match(r"wss?://([^:/]+):(\d+)/", url)
    host, port = m.group(1), int(m.group(2))
    clients = [LoadClient(i, room) for i, room in specs]
    for c in clients:
        open_load_client(host, port, c)
    by_fd = {c.fd: c for c in clients}
    ep = select.epoll()
    for c in clients:
        ep.register(c.fd, select.EPOLLIN)
    latencies = []
    monotonic_ns = time.monotonic_ns

    def control(c, text):
        msg = json.loads(text)
        ev, data = msg.get("eventName"), msg.get("data") or {}
        if ev == "_peers":
            c.you = data["you"]
            c.peers = list(data["connections"])
        elif ev == "_new_peer":
            c.peers.append(data["socketId"])

    def readable(c):
        try:
            data = c.sock.recv(1 << 18)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            c.closed = True
            ep.unregister(c.fd)
            return
        now = monotonic_ns()
        buf = c.inbuf
        buf += data
        parse(c, buf, now)

    def parse(c, buf, now):
        pos, n = 0, len(buf)
        while n - pos >= 2:
            b0, ln, h = buf[pos], buf[pos + 1] & 0x7F, 2  # server frames are not masked
            if ln == 126:
                if n - pos < 4:
                    break
                ln, h = (buf[pos + 2] << 8) | buf[pos + 3], 4
            elif ln == 127:
                if n - pos < 10:
                    break
                ln, h = int.from_bytes(buf[pos + 2:pos + 10], "big"), 10
            start, end = pos + h, pos + h + ln
            if end > n:
                break
            op = b0 & 0x0F
            if op == 1:
                if buf.startswith(OFFER_PREFIX, start):
                    i = buf.find(b"o=- ", start, end) + 4
                    latencies.append(now - int(buf[i:i + TS_WIDTH]))
                else:
                    control(c, buf[start:end])
            elif op == 9:
                send(c, ws_frame(10, bytes(buf[start:end])))
            elif op == 8:
                c.closed = True
            pos = end
        if pos:
            del buf[:pos]

    def send(c, frame):
        if c.out:
            c.out += frame
            return
        try:
            sent = c.sock.send(frame)
        except BlockingIOError:
            sent = 0
        if sent < len(frame):
            c.out += frame[sent:]
            ep.modify(c.fd, select.EPOLLIN | select.EPOLLOUT)

    def writable(c):
        try:
            sent = c.sock.send(c.out)
        except BlockingIOError:
            return
        del c.out[:sent]
        if not c.out:
            ep.modify(c.fd, select.EPOLLIN)

    def poll(timeout):
        for fd, ev in ep.poll(timeout):
            c = by_fd[fd]
            if ev & select.EPOLLOUT:
                writable(c)
            if ev & (select.EPOLLIN | select.EPOLLERR | select.EPOLLHUP):
                readable(c)

    for c in clients:
        if c.inbuf:
            parse(c, c.inbuf, monotonic_ns())
        send(c, ws_frame(1, json.dumps({"eventName": "__join", "data": {"room": c.room}}).encode()))
    deadline = time.monotonic() + 60
    while not all(c.you and len(c.peers) == per_room - 1 for c in clients):
        if time.monotonic() > deadline:
            raise RuntimeError("clients not joined within 60 s")
        poll(0.05)

    expected = len(clients) * offers
    interval_ns = int(1e9 / rate) if rate > 0 else 0
    n = len(clients)
    for _ in range(repeats):
        pipe.send("ready")
        pipe.recv()  # "go"
        latencies.clear()
        start = monotonic_ns()
        k = 0
        while k < expected:
            now = monotonic_ns()
            due = start + k * interval_ns
            if due > now:
                poll((due - now) / 1e9)
                continue
            # Everything due (at most 16 at once, then the input is read again).
            for _ in range(16):
                c = clients[k % n]
                frame, at = c.offer_frame(c.peers[(k // n + c.index) % len(c.peers)])
                frame[at:at + TS_WIDTH] = b"%019d" % monotonic_ns()
                send(c, frame)
                k += 1
                if k >= expected or start + k * interval_ns > now:
                    break
            poll(0)
        sending_s = (monotonic_ns() - start) / 1e9
        deadline = time.monotonic() + 60
        while len(latencies) < expected and time.monotonic() < deadline:
            poll(0.05)
        pipe.send({"latencies": [x / 1e6 for x in latencies], "expected": expected, "sending_s": sending_s})
    for c in clients:
        try:
            c.sock.send(CLOSE_FRAME)
        except OSError:
            pass
        c.sock.close()


def worker_entry(url, specs, per_room, offers, rate, repeats, pipe):
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    try:
        worker_main(url, specs, per_room, offers, rate, repeats, pipe)
    except Exception as e:  # reported to the parent, which fails the run
        pipe.send({"error": repr(e)})


class SDPLoad:
    """One server's clients (in `--workers` processes) and what its rounds measured."""

    def __init__(self, name, pid, url, args):
        self.name, self.pid, self.args = name, pid, args
        rooms = [[] for _ in range(args.rooms)]
        for i in range(args.clients):
            rooms[i % args.rooms].append(i)
        per_room = args.clients // args.rooms
        self.workers = []
        for w in range(args.workers):
            specs = [(i, f"room{r}") for r in range(w, args.rooms, args.workers) for i in rooms[r]]
            share = args.rate * len(specs) / args.clients
            parent, child = multiprocessing.Pipe()
            p = multiprocessing.Process(target=worker_entry, args=(url, specs, per_room, args.offers_each, share, args.repeat, child),
                                        daemon=True)
            p.start()
            self.workers.append((p, parent))
        self.rounds = []  # (cpu seconds, system seconds, wall seconds, messages forwarded)
        self.gen = []  # per round: (generator CPU in cores, the busiest worker's share of a core, sending seconds)
        self.latencies, self.expected = [], 0

    def round(self):
        for p, pipe in self.workers:
            if not pipe.poll(90):
                raise SystemExit(f"{self.name}: a load worker did not get its clients ready in 90 s")
            msg = pipe.recv()
            if msg != "ready":
                raise SystemExit(f"{self.name}: load worker failed: {msg}")
        g0 = [cpu_seconds(p.pid) or 0 for p, _ in self.workers]
        q0 = [runq_wait_s(p.pid) for p, _ in self.workers] + [runq_wait_s(self.pid)]
        (u0, s0), t0 = cpu_split(self.pid), time.monotonic()
        for _, pipe in self.workers:
            pipe.send("go")
        results = []
        for p, pipe in self.workers:
            if not pipe.poll(120):
                raise SystemExit(f"{self.name}: a load worker did not finish in 120 s")
            results.append(pipe.recv())
        (u1, s1), wall = cpu_split(self.pid), time.monotonic() - t0
        g = [(cpu_seconds(p.pid) or 0) - c for (p, _), c in zip(self.workers, g0)]
        q = [runq_wait_s(pid) - w for pid, w in zip([p.pid for p, _ in self.workers] + [self.pid], q0)]
        errors = [x["error"] for x in results if "error" in x]
        if errors:
            raise SystemExit(f"{self.name}: load worker failed: {errors[0]}")
        got = [x for res in results for x in res["latencies"]]
        self.latencies += got
        self.expected += sum(res["expected"] for res in results)
        self.rounds.append((u1 - u0 + s1 - s0, s1 - s0, wall, len(got)))
        self.gen.append((sum(g) / wall, max(g) / wall, max(res["sending_s"] for res in results), max(q[:-1]) / wall, q[-1] / wall))

    def close(self):
        for p, _ in self.workers:
            p.join(timeout=10)
            if p.is_alive():
                p.kill()

    def result(self):
        latencies = sorted(self.latencies)
        cpu = sum(r[0] for r in self.rounds)
        # The median round: the machine is shared, and one round disturbed by a neighbour should not decide.
        per_round = sorted(c / max(1, n) * 1e6 for c, _, _, n in self.rounds)
        return {
            "name": self.name, "forwarded": len(latencies), "expected": self.expected,
            "wall_s": sum(r[2] for r in self.rounds), "cpu_s": cpu,
            "us_per_msg": statistics.median(per_round), "us_rounds": per_round,
            "system_share": sum(r[1] for r in self.rounds) / cpu if cpu else 0,
            "p50_ms": statistics.median(latencies) if latencies else float("nan"),
            "p99_ms": latencies[max(0, int(len(latencies) * 0.99) - 1)] if latencies else float("nan"),
            "gen_cores": statistics.median(x[0] for x in self.gen),
            "gen_worker_max": max(x[1] for x in self.gen),
            "sent_rate": statistics.median(self.expected / len(self.rounds) / x[2] for x in self.gen),
            "gen_wait": max(x[3] for x in self.gen), "srv_wait": max(x[4] for x in self.gen),
        }


# ---------------------------------------------------------------- hostile cases (raw frames) and probes

def ws_frame(opcode, payload):
    """A client frame with an all-zero masking key (so the payload bytes need no transform)."""
    n = len(payload)
    if n <= 125:
        head = bytes([0x80 | opcode, 0x80 | n])
    elif n <= 0xFFFF:
        head = bytes([0x80 | opcode, 0x80 | 126]) + n.to_bytes(2, "big")
    else:
        head = bytes([0x80 | opcode, 0x80 | 127]) + n.to_bytes(8, "big")
    return head + b"\0\0\0\0" + payload


class RawWS:
    """A raw WebSocket client over asyncio streams: handshake, then frames as bytes."""

    async def open(self, host, port):
        self.r, self.w = await asyncio.open_connection(host, port)
        key = base64.b64encode(os.urandom(16)).decode()
        self.w.write((f"GET / HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = await self.r.readuntil(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 101"):
            raise RuntimeError(f"no upgrade: {head[:40]!r}")
        return self

    async def next(self):
        """(opcode, payload) of the next frame (servers do not mask)."""
        b0, b1 = await self.r.readexactly(2)
        n = b1 & 0x7F
        if n == 126:
            n = int.from_bytes(await self.r.readexactly(2), "big")
        elif n == 127:
            n = int.from_bytes(await self.r.readexactly(8), "big")
        return b0 & 0x0F, await self.r.readexactly(n)

    async def next_text(self):
        while True:
            op, payload = await self.next()
            if op == 1:
                return payload.decode()
            if op == 8:
                raise ConnectionError(f"closed {int.from_bytes(payload[:2], 'big') if len(payload) >= 2 else ''}")

    async def join(self, room):
        self.w.write(ws_frame(1, json.dumps({"eventName": "__join", "data": {"room": room}}).encode()))
        while True:
            msg = json.loads(await self.next_text())
            if msg["eventName"] == "_peers":
                self.you = msg["data"]["you"]
                return msg["data"]["connections"]

    def close(self):
        try:
            self.w.close()
        except Exception:
            pass


class Probes:
    """Every 20 ms: `GET /healthz` on a fresh connection, and an `__offer` from one client of room
    `probe` to the other. Each answer's latency is kept; unanswered ones count with their age at stop."""

    def __init__(self, port):
        self.port = port

    async def setup(self):
        self.a = await RawWS().open("127.0.0.1", self.port)
        self.b = await RawWS().open("127.0.0.1", self.port)
        await self.a.join("probe")
        await self.b.join("probe")
        self.pending = {}  # seq -> send time
        self.offer_lat = []
        self.reader = asyncio.create_task(self.read_offers())

    async def read_offers(self):
        try:
            while True:
                text = await self.b.next_text()
                m = re.search(r'"probe (\d+)"', text)
                if m and int(m.group(1)) in self.pending:
                    self.offer_lat.append(time.monotonic() - self.pending.pop(int(m.group(1))))
        except (asyncio.IncompleteReadError, ConnectionError):
            pass

    async def healthz(self):
        t = time.monotonic()
        try:
            r, w = await asyncio.open_connection("127.0.0.1", self.port)
            w.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            data = await r.read(4096)
            w.close()
            ok = data.startswith(b"HTTP/1.1 200")
        except OSError:
            ok = False
        self.health_lat.append((time.monotonic() - t, ok))

    async def run(self, seconds, done=None, longest=30.0):
        """Probes for `seconds`, and on until `done` is set (at most `longest` seconds in all)."""
        self.health_lat = []
        self.offer_lat = []
        self.pending.clear()
        tasks, seq, start = [], 0, time.monotonic()
        while time.monotonic() - start < longest and (time.monotonic() - start < seconds or (done is not None and not done.is_set())):
            seq += 1
            tasks.append(asyncio.create_task(self.healthz()))
            self.pending[seq] = time.monotonic()
            body = json.dumps({"eventName": "__offer", "data": {"socketId": self.b.you, "sdp": {"type": "offer", "sdp": f"probe {seq}"}}})
            self.a.w.write(ws_frame(1, body.encode()))
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.1)
        stop = time.monotonic()
        for t in tasks:
            if not t.done():
                t.cancel()
                self.health_lat.append((stop - start, False))
        await asyncio.gather(*tasks, return_exceptions=True)
        unanswered = len(self.pending)
        worst_offer = max(self.offer_lat + [stop - t for t in self.pending.values()], default=0)
        worst_health = max((lat for lat, _ in self.health_lat), default=0)
        failed = sum(1 for _, ok in self.health_lat if not ok)
        return {"health_ms": worst_health * 1000, "health_failed": failed, "offer_ms": worst_offer * 1000,
                "offer_unanswered": unanswered, "probes": seq}


def keys_object(n=120_000, size=1 << 20):
    """`{"aaa":0,...}` with `n` distinct 3-character keys, padded with JSON whitespace to `size` bytes."""
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
    keys = (alphabet[i // 4096] + alphabet[(i // 64) % 64] + alphabet[i % 64] for i in range(n))
    body = "{" + ",".join(f'"{k}":0' for k in keys)
    return (body + " " * (size - len(body) - 1) + "}").encode()


async def hostile_case(name, port, pid, attack_seconds):
    probes = Probes(port)
    await probes.setup()
    note = ""
    cpu0 = cpu_seconds(pid)
    attacker = await RawWS().open("127.0.0.1", port)
    handled = asyncio.Event()
    probe_task = asyncio.create_task(probes.run(attack_seconds + 1.0, handled))
    await asyncio.sleep(0.2)
    t0 = time.monotonic()
    try:
        if name == "flood":
            sink = await RawWS().open("127.0.0.1", port)
            await attacker.join("flood")
            await sink.join("flood")
            cand = {"eventName": "__ice_candidate", "data": {"label": 0, "candidate": "candidate:1 1 udp 1 127.0.0.1 9 typ host", "socketId": sink.you}}
            frame = ws_frame(1, json.dumps(cand, separators=(",", ":")).encode())
            received, replies = {"n": 0}, []

            async def drain():
                marker, tail = b'"_ice_candidate"', b""
                try:
                    while True:
                        chunk = await sink.r.read(1 << 16)
                        if not chunk:
                            return
                        data = tail + chunk
                        received["n"] += data.count(marker)
                        # Keep a partial marker for the next chunk, never a whole one (counted already).
                        tail = data[-(len(marker) - 1):]
                except OSError:
                    pass

            async def watch():
                try:
                    while True:
                        op, payload = await attacker.next()
                        if op == 8:
                            code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else None
                            replies.append(f"close {code}")
                            return
                        if op == 1 and len(replies) < 3:
                            msg = json.loads(payload)
                            if msg["eventName"] == "_error":
                                replies.append(f"_error {msg['data'].get('code', '?')}")
                except (asyncio.IncompleteReadError, ConnectionError, OSError):
                    replies.append("EOF")

            drainer, watcher = asyncio.create_task(drain()), asyncio.create_task(watch())
            sent, start = 0, time.monotonic()
            per_tick = 100  # 100 frames every 10 ms = 10,000 a second
            try:
                while time.monotonic() - start < attack_seconds and not watcher.done():
                    attacker.w.write(frame * per_tick)
                    sent += per_tick
                    await attacker.w.drain()
                    await asyncio.sleep(max(0, start + sent / 10_000 - time.monotonic()))
            except (ConnectionError, OSError):
                pass
            await asyncio.sleep(0.5)
            note = f"sent {sent}, {received['n']} forwarded; attacker saw: {', '.join(dict.fromkeys(replies)) or 'nothing'}"
            drainer.cancel()
            watcher.cancel()
            sink.close()
        else:
            # The attack, then a `__join`: both servers handle one connection's messages in order, so
            # the `_peers` reply says the attack has been dealt with (conftui answers it with `_error`
            # first; the relay drops bad input silently).
            payload = keys_object() if name == "keys" else b"[" * (1 << 20)
            attacker.w.write(ws_frame(1, payload) + ws_frame(1, b'{"eventName":"__join","data":{"room":"after-attack"}}'))
            await attacker.w.drain()
            errors = []

            async def until_peers():
                while True:
                    msg = json.loads(await attacker.next_text())
                    if msg["eventName"] == "_error":
                        errors.append(msg["data"].get("code", "?"))
                    if msg["eventName"] == "_peers":
                        return
            try:
                await asyncio.wait_for(until_peers(), timeout=30)
                note = f"handled in {(time.monotonic() - t0) * 1000:.0f} ms" + (f" (_error {', '.join(errors)})" if errors else "")
            except asyncio.TimeoutError:
                note = "not handled within 30 s"
            except (asyncio.IncompleteReadError, ConnectionError) as e:
                note = f"connection ended: {e}"
    finally:
        handled.set()
        attacker.close()
    result = await probe_task
    result["cpu_s"] = (cpu_seconds(pid) or 0) - (cpu0 or 0)
    result["note"] = note
    probes.reader.cancel()
    probes.a.close()
    probes.b.close()
    return result


def run_hostile(pid, port):
    cases = [("keys", "1 MiB object, 120,000 keys", 1.0), ("nest", "1 MiB of '['", 1.0), ("flood", "10,000 msgs/s for 3 s", 3.0)]
    out = []
    for key, label, seconds in cases:
        try:
            r = asyncio.run(asyncio.wait_for(hostile_case(key, port, pid, seconds), timeout=90))
        except asyncio.TimeoutError:
            r = {"health_ms": float("nan"), "health_failed": 1, "offer_ms": float("nan"), "offer_unanswered": 1,
                 "probes": 0, "cpu_s": float("nan"), "note": "the case did not finish within 90 s"}
        r["case"] = label
        out.append(r)
    return out


# ---------------------------------------------------------------- driver

def start_server(cmd):
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    m = re.search(r"listening on https?://127\.0\.0\.1:(\d+)/ \((wss?://127\.0\.0\.1:\d+/)\)", line)
    if not m:
        proc.kill()
        raise SystemExit(f"server did not start: {line!r}")
    return proc, int(m.group(1)), m.group(2)


def measure(servers, args):
    """Starts every server and its clients, then runs the SDP rounds alternately (server A, server B,
    A, B, ...), so both see the same neighbours on this shared machine; then the hostile cases."""
    running, loads, results = [], [], []
    try:
        for name, cmd in servers:
            proc, port, url = start_server(cmd)
            running.append((name, proc, port))
            loads.append(SDPLoad(name, proc.pid, url, args))
        for _ in range(args.repeat):
            for load in loads:
                load.round()
        for (name, proc, port), load in zip(running, loads):
            load.close()
            result = load.result()
            result["rss_kib"] = peak_rss_kib(proc.pid)
            results.append(result)
        for (name, proc, port), result in zip(running, results):
            result["hostile"] = [] if args.no_hostile else run_hostile(proc.pid, port)
        return results
    finally:
        for load in loads:
            load.close()
        for _, proc, _ in running:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary", nargs="?", default=os.environ.get("CONFTUI_BIN"))
    ap.add_argument("--clients", type=int, default=200)
    ap.add_argument("--rooms", type=int, default=20)
    ap.add_argument("--offers", type=int, help="offers each client sends per round (default: --seconds of sending"
                    " at --rate; 150 when unpaced)")
    ap.add_argument("--seconds", type=float, default=5, help="seconds of sending per round (sets --offers)")
    # 5,000/s: the highest rate tried at which the generator is plainly not what is measured: each of its
    # processes near a tenth of a core and all of them about a third of one, and the relay's median
    # latency near what it is at 2,000/s. At 10,000/s the generator takes 0.5-0.7 of the machine's 2
    # cores next to the relay's ~0.8, and the relay's median rises 10-fold or more (docs/bench-methods.md).
    ap.add_argument("--rate", type=float, default=5000, help="total offers per second, all clients together; 0: unpaced")
    ap.add_argument("--workers", type=int, default=4, help="client processes (whole rooms each)")
    ap.add_argument("--repeat", type=int, default=3, help="sending rounds on the same connections; CPU/msg is the median round")
    ap.add_argument("--no-relay", action="store_true")
    ap.add_argument("--no-hostile", action="store_true")
    ap.add_argument("--relay-server", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = ap.parse_args()
    raise_nofile()
    if args.relay_server is not None:
        asyncio.run(relay_server(args.relay_server))
        return
    if not args.binary:
        raise SystemExit("usage: signaling_load.py CONFTUI_BIN (or set CONFTUI_BIN)")
    if args.clients % args.rooms or args.rooms % args.workers:
        raise SystemExit("--clients must be a multiple of --rooms, and --rooms of --workers")
    args.offers_each = args.offers or (max(1, round(args.rate * args.seconds / args.clients)) if args.rate > 0 else 150)

    def timeout(*_):
        raise SystemExit(f"hard timeout ({HARD_TIMEOUT} s)")
    signal.signal(signal.SIGALRM, timeout)
    signal.alarm(HARD_TIMEOUT)

    # Every client comes from 127.0.0.1: lift the per-address connection cap (64 by default) for the load.
    # Each client's share of the schedule must stay within conftui's per-connection message rate (50/s,
    # bursts of 200 by default): past 10,000 offers/s in all it is lifted to twice the share, which
    # still leaves the hostile flood (10,000 a second from one client) far over it.
    serve = [args.binary, "serve", "--port", "0", "--log", "/dev/null", "--max-per-ip", str(args.clients + 64)]
    per_client = args.rate / args.clients
    if per_client * 2 > 50:
        serve += ["--max-rate", str(int(per_client * 2) + 1)]
    servers = [("conftui serve", serve)]
    if not args.no_relay:
        servers.append(("python websockets relay", [sys.executable, os.path.abspath(__file__), "--relay-server", "0"]))
    results = measure(servers, args)

    size = len(offer_text("x" * 36, time.monotonic_ns(), 0))
    pace = f"paced at {args.rate:.0f} offers/s total" if args.rate > 0 else "unpaced"
    print(f"\nsignaling SDP load: {args.clients} clients in {args.rooms} rooms, each sends {args.offers_each} __offer "
          f"({size} B message) to a peer of its room per round, {pace}, from {args.workers} client processes;"
          f" {args.repeat} rounds (CPU/msg: median round, latency: all rounds)")
    header = (f"{'server':<26}{'CPU/msg':>10}{'p50 ms':>9}{'p99 ms':>9}{'peak RSS':>11}{'forwarded':>11}{'srv CPU s':>10}"
              f"{'kernel':>8}{'wall s':>8}{'sent/s':>8}{'gen CPU':>9}{'gen max':>9}{'waits':>12}")
    print(header)
    print("-" * len(header))
    for r in results:
        rss = f"{r['rss_kib'] / 1024:.1f} MiB" if r["rss_kib"] else "n/a"
        print(f"{r['name']:<26}{r['us_per_msg']:>8.1f}µs{r['p50_ms']:>9.2f}{r['p99_ms']:>9.2f}{rss:>11}"
              f"{r['forwarded']:>11}{r['cpu_s']:>10.2f}{r['system_share'] * 100:>7.0f}%{r['wall_s']:>8.2f}"
              f"{r['sent_rate']:>8.0f}{r['gen_cores'] * 100:>8.0f}%{r['gen_worker_max'] * 100:>8.0f}%"
              f"{r['srv_wait'] * 100:>6.0f}%/{r['gen_wait'] * 100:.0f}%"
              f"  rounds: {', '.join(f'{x:.1f}' for x in r['us_rounds'])} µs")
    print("sent/s: offers sent a second (median round); gen CPU: the load generator's CPU over a round (all"
          f" {args.workers} processes, % of one core, median round); gen max: its busiest process in any round (% of a core);"
          " waits: time the server / the busiest generator process spent runnable but waiting for a CPU (worst round, % of"
          " the round; high = other processes held it back: neighbours on the machine, or at high rates the generator and"
          " server competing for the 2 cores)")
    if len(results) == 2:
        a, b = results
        print(f"ratio conftui/relay: CPU per message x{a['us_per_msg'] / b['us_per_msg']:.2f}, "
              f"p50 x{a['p50_ms'] / b['p50_ms']:.2f}, p99 x{a['p99_ms'] / b['p99_ms']:.2f}, "
              f"peak RSS x{(a['rss_kib'] or 0) / (b['rss_kib'] or 1):.2f}")
    if not args.no_hostile:
        print("\nhostile cases (one at a time; probes every 20 ms: GET /healthz and an __offer in another room; worst latency,"
              " '!' = some probe unanswered)")
        header = f"{'server':<26}{'case':<28}{'healthz ms':>11}{'offer ms':>10}{'srv CPU s':>10}  note"
        print(header)
        print("-" * len(header))
        for r in results:
            for h in r["hostile"]:
                hz = f"{h['health_ms']:.1f}" + ("!" if h["health_failed"] else "")
                of = f"{h['offer_ms']:.1f}" + ("!" if h["offer_unanswered"] else "")
                print(f"{r['name']:<26}{h['case']:<28}{hz:>11}{of:>10}{h['cpu_s']:>10.2f}  {h['note']}")
    lost = [r["name"] for r in results if r["forwarded"] != r["expected"]]
    if lost:
        raise SystemExit(f"lost messages on: {', '.join(lost)}")


if __name__ == "__main__":
    main()
