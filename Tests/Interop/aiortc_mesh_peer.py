"""aiortc as one participant of a SkyRTC mesh (the room tests): one RTCPeerConnection per remote socketId.

`AiortcMeshPeer(ws_url, room, tone_hz)` joins the room (`__join`, no name: the original clients send none), offers to
every id in `_peers`, answers every `_offer`, applies `_answer`s, accepts trickled `_ice_candidate`s (`label` and, if
the server forwards it, `id`) and closes the connection of a `_remove_peer`, noting the wall-clock time it arrived.
To every peer it sends its own tone (`tone_hz`) and a 320x240 picture at 10 frames/s: white top half, dark bottom
half, a grey bar moving across. From every peer it records, separately (`RemoteSeen`): the test cards it reads
(bot_process.read_test_card) per participant number with arrival times, the card's background colour, the luma of
the last frame (mean, spread, top and bottom halves), the frame count and size, and the last second of audio.

Run as a program it is a participant of its own, in its own process (so that a test polling screens, pages and
files never starves its media or ICE of the GIL), writing what it saw as JSON every 0.5 s and at the end (SIGTERM),
the way `conftui bot --report` does:
    aiortc_mesh_peer.py WS_URL --room ROOM --tone HZ --report FILE --log FILE
`AiortcMeshProcess` starts it and reads that report. Its host candidates are pinned to 127.0.0.1
(aiortc_peer.loopback_host_addresses: aioice never gathers loopback by itself).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import fractions
import io
import json
import logging
import os
import pathlib
import signal
import subprocess
import sys
import time

import numpy
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack
from aiortc.sdp import candidate_from_sdp
from av import VideoFrame

from aiortc_peer import PacedTone, run_skyrtc
from bot_process import card_background, dominant_frequency, read_test_card

SAMPLE_RATE = 48000


class HalfWhite10(MediaStreamTrack):
    """320x240 at 10 frames/s (one Python process encodes it for every peer, on two cores shared with everyone else):
    white top half, dark bottom half, a grey bar moving across so that frames differ."""

    kind = "video"
    FPS = 10

    def __init__(self) -> None:
        super().__init__()
        self.sent = 0
        self._start = 0.0

    async def recv(self) -> VideoFrame:
        if self.sent == 0:
            self._start = time.monotonic()
        wait = self._start + self.sent / self.FPS - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        image = numpy.full((240, 320, 3), 30, dtype=numpy.uint8)
        image[:120] = 220
        column = (self.sent * 4) % 300
        image[100:140, column:column + 20] = 128
        frame = VideoFrame.from_ndarray(image, format="bgr24")
        frame.pts = self.sent * (90000 // self.FPS)
        frame.time_base = fractions.Fraction(1, 90000)
        self.sent += 1
        return frame


@dataclasses.dataclass
class RemoteSeen:
    """What arrived from one remote socketId."""

    socket_id: str
    role: str
    cards: dict[int, dict] = dataclasses.field(default_factory=dict)   # participant -> count, first, last, at
    background: tuple[int, int, int] | None = None
    video_frames: int = 0
    video_size: tuple[int, int] = (0, 0)
    last_video_at: float = 0.0
    luma: dict = dataclasses.field(default_factory=dict)   # mean, std, top, bottom of the last frame
    audio_frames: int = 0
    audio: numpy.ndarray = dataclasses.field(default_factory=lambda: numpy.zeros(0, dtype=numpy.float64))
    audio_arrivals: list[tuple[float, int]] = dataclasses.field(default_factory=list)  # (monotonic, samples)
    candidates: list[dict] = dataclasses.field(default_factory=list)
    connection_state: str = "new"
    connected_at: float | None = None
    removed_at: float | None = None   # wall clock (time.time()) of its `_remove_peer`

    def recent_audio(self, seconds: float) -> numpy.ndarray:
        """The samples that arrived in the last `seconds` (empty if none did: the sender stopped sending)."""
        cutoff = time.monotonic() - seconds
        count = sum(n for at, n in self.audio_arrivals if at >= cutoff)
        return self.audio[-count:] if count else numpy.zeros(0)

    def level(self, seconds: float = 0.3) -> float:
        """RMS 0...1 of the audio that arrived in the last `seconds`."""
        samples = self.recent_audio(seconds)
        return float(numpy.sqrt(numpy.mean(samples ** 2)) / 32768) if len(samples) else 0.0

    def frequency(self, seconds: float = 1.0) -> float | None:
        """The strongest frequency of the audio that arrived in the last `seconds` (at least half a second of it)."""
        samples = self.recent_audio(seconds)
        return dominant_frequency(samples) if len(samples) >= SAMPLE_RATE // 2 else None

    def peak_level(self, seconds: float) -> float:
        """The loudest 20 ms (RMS 0...1) of the audio that arrived in the last `seconds`: catches a beep."""
        samples = self.recent_audio(seconds)
        slots = [samples[i:i + 960] for i in range(0, len(samples) - 959, 960)]
        return max((float(numpy.sqrt(numpy.mean(slot ** 2)) / 32768) for slot in slots), default=0.0)

    def add_card(self, card: dict) -> None:
        entry = self.cards.setdefault(card["participant"], {"count": 0, "first": card["counter"],
                                                            "last": card["counter"], "regressions": 0, "at": 0.0})
        if card["counter"] < entry["last"]:
            entry["regressions"] += 1
        entry["count"] += 1
        entry["last"] = card["counter"]
        entry["at"] = time.time()

    def to_json(self) -> dict:
        return {"socketId": self.socket_id, "role": self.role, "state": self.connection_state,
                "videoFrames": self.video_frames, "videoSize": list(self.video_size), "luma": self.luma,
                "cards": {str(p): c for p, c in self.cards.items()},
                "background": list(self.background) if self.background else None,
                "audioFrames": self.audio_frames, "level": self.level(), "frequency": self.frequency(),
                "peakLevel": self.peak_level(1.5), "candidates": self.candidates, "removedAt": self.removed_at}

    def summary(self) -> str:
        return (f"{self.socket_id[:8]} role={self.role} state={self.connection_state} video={self.video_frames} "
                f"{self.video_size} luma={ {k: round(v) for k, v in self.luma.items()} } cards={self.cards} "
                f"background={self.background} audio_frames={self.audio_frames} "
                f"level={self.level():.3f} freq={self.frequency()} candidates={len(self.candidates)} "
                f"removed_at={self.removed_at}")


class AiortcMeshPeer:
    def __init__(self, ws_url: str, room: str, tone_hz: float) -> None:
        self.ws_url, self.room, self.tone_hz = ws_url, room, tone_hz
        self.you: str | None = None
        self.joined_with: list[str] = []
        self.names: dict = {}
        self.pcs: dict[str, RTCPeerConnection] = {}
        self.seen: dict[str, RemoteSeen] = {}
        self.events: list[str] = []
        self._tasks: list[asyncio.Task] = []
        self.log = io.StringIO()
        self._handler = logging.StreamHandler(self.log)
        self._handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
        for name in ("aiortc", "aioice"):
            logger = logging.getLogger(name)
            logger.setLevel(logging.WARNING)
            logger.addHandler(self._handler)

    def _note(self, text: str) -> None:
        print(f"{time.strftime('%H:%M:%S')}.{int(time.time() * 1000) % 1000:03d} aiortc: {text}", file=self.log)

    def _connection(self, socket_id: str, role: str) -> RTCPeerConnection:
        if socket_id in self.pcs:
            return self.pcs[socket_id]
        pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        pc.addTrack(PacedTone(self.tone_hz))
        pc.addTrack(HalfWhite10())
        seen = RemoteSeen(socket_id, role)
        self.pcs[socket_id], self.seen[socket_id] = pc, seen
        pc.on("track", lambda track: self._tasks.append(asyncio.ensure_future(self._consume(seen, track))))

        @pc.on("connectionstatechange")
        def _state() -> None:
            seen.connection_state = pc.connectionState
            self._note(f"{socket_id[:8]} connection {pc.connectionState}")
            if pc.connectionState == "connected" and seen.connected_at is None:
                seen.connected_at = time.monotonic()
        return pc

    async def _consume(self, seen: RemoteSeen, track) -> None:
        try:
            while True:
                frame = await track.recv()
                now = time.monotonic()
                if track.kind == "video":
                    seen.video_frames += 1
                    seen.last_video_at = now
                    h, w = frame.height, frame.width
                    seen.video_size = (w, h)
                    planes = frame.to_ndarray(format="yuv420p")
                    y = planes[:h]
                    seen.luma = {"mean": float(y.mean()), "std": float(y.std()),
                                 "top": float(y[:h // 2].mean()), "bottom": float(y[h // 2:].mean())}
                    card = read_test_card(y)
                    if card is not None:
                        u = planes[h:h + h // 4].reshape(h // 2, w // 2)
                        v = planes[h + h // 4:].reshape(h // 2, w // 2)
                        seen.add_card(card)
                        seen.background = card_background((y, u, v))
                else:
                    seen.audio_frames += 1
                    samples = frame.to_ndarray().reshape(-1)
                    if len(frame.layout.channels) == 2:
                        samples = samples[0::2]
                    seen.audio = numpy.concatenate([seen.audio, samples.astype(numpy.float64)])[-SAMPLE_RATE:]
                    seen.audio_arrivals.append((now, len(samples)))
                    seen.audio_arrivals = seen.audio_arrivals[-100:]
        except MediaStreamError:
            pass

    def to_json(self) -> dict:
        return {"you": self.you, "joinedWith": self.joined_with, "names": self.names, "toneHz": self.tone_hz,
                "peers": {socket_id: seen.to_json() for socket_id, seen in self.seen.items()}}

    async def run(self, stop: asyncio.Event) -> None:
        try:
            await run_skyrtc(self.ws_url, self.room, self._handle, stop)
        finally:
            for pc in self.pcs.values():
                await pc.close()
            for task in self._tasks:
                task.cancel()
            for name in ("aiortc", "aioice"):
                logging.getLogger(name).removeHandler(self._handler)

    async def _handle(self, ws, event: str, data: dict) -> None:
        if event != "_ice_candidate":
            self._note(f"<- {event} {json.dumps(data)[:120]}")
        self.events.append(event)
        if event == "_peers":
            self.you = data["you"]
            self.joined_with = list(data["connections"])
            self.names = data.get("names") or {}
            for socket_id in self.joined_with:
                pc = self._connection(socket_id, "offerer")
                await pc.setLocalDescription(await pc.createOffer())
                await ws.send(json.dumps({"eventName": "__offer", "data": {
                    "socketId": socket_id, "sdp": {"type": "offer", "sdp": pc.localDescription.sdp}}}))
        elif event == "_new_peer":
            if data.get("name"):
                self.names[data["socketId"]] = data["name"]
        elif event == "_offer":
            socket_id = data["socketId"]
            pc = self._connection(socket_id, "answerer")
            await pc.setRemoteDescription(RTCSessionDescription(data["sdp"]["sdp"], data["sdp"]["type"]))
            await pc.setLocalDescription(await pc.createAnswer())
            await ws.send(json.dumps({"eventName": "__answer", "data": {
                "socketId": socket_id, "sdp": {"type": "answer", "sdp": pc.localDescription.sdp}}}))
        elif event == "_answer":
            pc = self.pcs.get(data["socketId"])
            if pc is not None:
                await pc.setRemoteDescription(RTCSessionDescription(data["sdp"]["sdp"], data["sdp"]["type"]))
        elif event == "_ice_candidate":
            pc, seen = self.pcs.get(data["socketId"]), self.seen.get(data["socketId"])
            if pc is None:
                self._note(f"candidate from unknown {data['socketId'][:8]} dropped")
                return
            seen.candidates.append(data)
            candidate = candidate_from_sdp(data["candidate"].split(":", 1)[1])
            candidate.sdpMid = data.get("id", data.get("sdpMid"))
            candidate.sdpMLineIndex = data.get("label", data.get("sdpMLineIndex"))
            await pc.addIceCandidate(candidate)
        elif event == "_remove_peer":
            socket_id = data["socketId"]
            seen = self.seen.get(socket_id)
            if seen is not None and seen.removed_at is None:
                seen.removed_at = time.time()
            pc = self.pcs.pop(socket_id, None)
            if pc is not None:
                await pc.close()

    def summary(self) -> str:
        return (f"aiortc mesh peer you={self.you} joined with {self.joined_with} names={self.names}\n  "
                + "\n  ".join(seen.summary() for seen in self.seen.values()))

    async def stats_text(self) -> str:
        parts = []
        for socket_id, pc in list(self.pcs.items()):
            try:
                report = await pc.getStats()
                parts.append(f"--- {socket_id[:8]} ---\n" + "\n".join(
                    f"  {key}: {vars(value)}" for key, value in report.items()))
            except Exception as error:   # diagnostics only
                parts.append(f"--- {socket_id[:8]}: getStats failed: {error}")
        return "\n".join(parts)



def write_json(path: str, value: dict) -> None:
    """Written to a temporary file and renamed, so a reader never sees half a report."""
    temporary = path + ".tmp"
    with open(temporary, "w") as f:
        json.dump(value, f, indent=1, default=float)
    os.replace(temporary, path)


async def serve_as_participant(ws_url: str, room: str, tone_hz: float, report: str, log_path: str) -> None:
    import aioice.ice
    from aiortc_peer import loopback_host_addresses
    aioice.ice.get_host_addresses = loopback_host_addresses
    stop = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(signum, stop.set)
    peer = AiortcMeshPeer(ws_url, room, tone_hz)
    client = asyncio.ensure_future(peer.run(stop))
    try:
        while not stop.is_set() and not client.done():
            write_json(report, peer.to_json())
            with open(log_path, "w") as f:
                f.write(peer.log.getvalue())
            await asyncio.sleep(0.5)
        final = peer.to_json()
        final["stats"] = await peer.stats_text()
        write_json(report, final)
    finally:
        stop.set()
        await asyncio.wait_for(client, 10)
        with open(log_path, "w") as f:
            f.write(peer.log.getvalue())


class AiortcMeshProcess:
    """The mesh peer as a subprocess (see the module doc); `report()` is its latest JSON report."""

    def __init__(self, ws_url: str, room: str, tone_hz: float, tmp_path: pathlib.Path) -> None:
        self.report_path = tmp_path / "aiortc.json"
        self.log_path = tmp_path / "aiortc.log"
        self.output_path = tmp_path / "aiortc.out"
        self.command = [sys.executable, str(pathlib.Path(__file__).resolve()), ws_url, "--room", room,
                        "--tone", str(tone_hz), "--report", str(self.report_path), "--log", str(self.log_path)]
        with open(self.output_path, "wb") as output:
            self.process = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=output,
                                            stderr=subprocess.STDOUT, preexec_fn=self._raise_priority)
        self.socket_id: str | None = None

    @staticmethod
    def _raise_priority() -> None:
        """Every other participant spreads its media work over threads in C (both cores); this one runs its event
        loop, RTP, SRTP and its codecs' glue in one Python thread, and needs about a third of a core for four peers.
        When the machine is busy (load 15 and more here, other test suites running) that thread falls seconds behind:
        its peers see ICE consent expire and stop sending, its video decoder then waits for a keyframe. So it gets a
        larger share of the CPU when it can (root: nice -10), as a browser gives its media threads real-time priority;
        it only takes what it needs, the participants under test keep the rest."""
        try:
            os.nice(-10)
        except OSError:
            pass

    def report(self) -> dict | None:
        try:
            return json.loads(self.report_path.read_text())
        except (OSError, ValueError):
            return None

    def wait_joined(self, timeout: float = 15.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"the aiortc peer exited\n{self.describe()}"
            report = self.report()
            if report and report["you"]:
                self.socket_id = report["you"]
                return self.socket_id
            time.sleep(0.05)
        raise AssertionError(f"the aiortc peer did not join within {timeout} s\n{self.describe()}")

    def stop(self) -> dict | None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        return self.report()

    def describe(self) -> str:
        def text(path: pathlib.Path) -> str:
            try:
                return path.read_text(errors="replace")[-12000:]
            except OSError:
                return "(none)"
        report = self.report() or {}
        peers = "\n  ".join(json.dumps({k: v for k, v in p.items() if k != "candidates"})
                            for p in report.get("peers", {}).values())
        return (f"===== aiortc mesh peer ({self.socket_id}): {' '.join(self.command)} =====\n"
                f"exit status: {self.process.poll()}; names {report.get('names')}; joined with "
                f"{report.get('joinedWith')}\n  {peers}\n----- output -----\n{text(self.output_path)}\n"
                f"----- log -----\n{text(self.log_path)}\n----- getStats (at its end) -----\n"
                f"{str(report.get('stats', '(not stopped yet)'))[-12000:]}")


def main() -> None:
    parser = argparse.ArgumentParser(description="aiortc as one participant of a SkyRTC mesh")
    parser.add_argument("ws_url")
    parser.add_argument("--room", default="")
    parser.add_argument("--tone", type=float, default=880.0)
    parser.add_argument("--report", required=True)
    parser.add_argument("--log", required=True)
    args = parser.parse_args()
    asyncio.run(serve_as_participant(args.ws_url, args.room, args.tone, args.report, args.log))


if __name__ == "__main__":
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    main()
