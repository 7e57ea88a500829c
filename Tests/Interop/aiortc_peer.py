"""aiortc as a SkyRTC client (for the bot tests and the connect-time benchmark).

`AiortcPeer(ws_url, room)` joins the room, offers to the ids in `_peers`, answers `_offer`, applies `_answer` and
accepts trickled `_ice_candidate`s with `label`/`id` (or `sdpMLineIndex`/`sdpMid`). It sends a 1000 Hz tone and a
320x240 picture with a white top half and a dark bottom half, and records what it decodes from the one peer it
meets: test-card codes (bot_process.read_test_card), the picture's background colour, the audio samples.
Pin aioice's host gathering to 127.0.0.1 with `loopback_host_addresses` (docs/webrtc-interop.md §9: it never gathers
loopback by itself).
Create it inside the running asyncio loop (aiortc binds to the loop that exists at construction).
"""

from __future__ import annotations

import asyncio
import fractions
import io
import json
import logging
import time

import aioice.ice
import numpy
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack, VideoStreamTrack
from aiortc.sdp import candidate_from_sdp
from av import AudioFrame, VideoFrame
from websockets.asyncio.client import connect

from bot_process import card_background, read_test_card



def loopback_host_addresses(use_ipv4: bool, use_ipv6: bool) -> list[str]:
    """Replacement for `aioice.ice.get_host_addresses`: gather 127.0.0.1 only (tests never leave loopback).
    Install it for one test with `monkeypatch.setattr(aioice.ice, "get_host_addresses", loopback_host_addresses)`."""
    return ["127.0.0.1"]

AIORTC_TONE = 1000.0


class PacedTone(MediaStreamTrack):
    """A sine of `hz`, 20 ms mono s16 frames at 48 kHz, paced in real time (this client and the mesh peer)."""

    kind = "audio"

    def __init__(self, hz: float) -> None:
        super().__init__()
        self.hz = hz
        self.sent = 0
        self._start = 0.0

    async def recv(self) -> AudioFrame:
        if self.sent == 0:
            self._start = time.monotonic()
        wait = self._start + self.sent * 0.02 - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        t = (numpy.arange(960) + self.sent * 960) / 48000
        samples = (numpy.sin(2 * numpy.pi * self.hz * t) * 9000).astype(numpy.int16)
        frame = AudioFrame.from_ndarray(samples.reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate = 48000
        frame.pts = self.sent * 960
        frame.time_base = fractions.Fraction(1, 48000)
        self.sent += 1
        return frame


async def run_skyrtc(ws_url: str, room: str, handle, stop: asyncio.Event) -> None:
    """Joins `room` and hands every server message to `handle(ws, eventName, data)` until `stop` is set."""
    async with connect(ws_url) as ws:
        await ws.send(json.dumps({"eventName": "__join", "data": {"room": room}}))
        while not stop.is_set():
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), 0.2))
            except asyncio.TimeoutError:
                continue
            await handle(ws, message["eventName"], message.get("data") or {})


class HalfWhite(VideoStreamTrack):
    """320x240: white top half, dark bottom half, a grey bar moving across (so frames differ)."""

    async def recv(self) -> VideoFrame:
        pts, time_base = await self.next_timestamp()
        image = numpy.full((240, 320, 3), 30, dtype=numpy.uint8)
        image[:120] = 220
        column = (pts // 3000) % 300
        image[100:140, column:column + 20] = 128
        frame = VideoFrame.from_ndarray(image, format="bgr24")
        frame.pts, frame.time_base = pts, time_base
        return frame


class AiortcPeer:
    """aiortc as a SkyRTC client; records what it decodes from the one peer it meets."""

    def __init__(self, ws_url: str, room: str) -> None:
        self.ws_url, self.room = ws_url, room
        self.pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        self.pc.addTrack(PacedTone(AIORTC_TONE))
        self.pc.addTrack(HalfWhite())
        self.pc.on("track", self._on_track)
        self.you: str | None = None
        self.peer: str | None = None
        self.role: str | None = None
        self.cards: list[dict] = []
        self.video_frames = 0
        self.video_size = (0, 0)
        self.background: tuple[int, int, int] | None = None
        self.audio = numpy.zeros(0, dtype=numpy.int16)
        self.audio_frames = 0
        self.candidates_received: list[dict] = []
        self.last_stats = "(not taken)"
        self.connected_after: float | None = None
        self.created = time.monotonic()
        self._tasks: list[asyncio.Task] = []
        self.log = io.StringIO()
        handler = logging.StreamHandler(self.log)
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
        self._handler = handler
        for name in ("aiortc", "aioice"):
            logger = logging.getLogger(name)
            logger.setLevel(logging.INFO)
            logger.addHandler(handler)

        @self.pc.on("connectionstatechange")
        def _state() -> None:
            print(f"aiortc: connection state {self.pc.connectionState}", file=self.log)
            if self.pc.connectionState == "connected" and self.connected_after is None:
                self.connected_after = time.monotonic() - self.created

    def _on_track(self, track) -> None:
        self._tasks.append(asyncio.ensure_future(self._consume(track)))

    async def _consume(self, track) -> None:
        try:
            while True:
                frame = await track.recv()
                if track.kind == "video":
                    self.video_frames += 1
                    self.video_size = (frame.width, frame.height)
                    planes = frame.to_ndarray(format="yuv420p")
                    h, w = frame.height, frame.width
                    y = planes[:h]
                    u = planes[h:h + h // 4].reshape(h // 2, w // 2)
                    v = planes[h + h // 4:].reshape(h // 2, w // 2)
                    card = read_test_card(y)
                    if card is not None:
                        self.cards.append(card)
                        self.background = card_background((y, u, v))
                else:
                    self.audio_frames += 1
                    samples = frame.to_ndarray().reshape(-1)
                    if len(frame.layout.channels) == 2:
                        samples = samples[0::2]
                    self.audio = numpy.concatenate([self.audio, samples])[-48000:]
        except MediaStreamError:
            pass

    async def run(self, stop: asyncio.Event) -> None:
        try:
            await run_skyrtc(self.ws_url, self.room, self._handle, stop)
        finally:
            await self.pc.close()
            for task in self._tasks:
                task.cancel()
            for name in ("aiortc", "aioice"):
                logging.getLogger(name).removeHandler(self._handler)

    async def _handle(self, ws, event: str, data: dict) -> None:
        print(f"aiortc: <- {event} {json.dumps(data)[:160]}", file=self.log)
        if event == "_peers":
            self.you = data["you"]
            if data["connections"]:
                (self.peer,) = data["connections"]
                self.role = "offerer"
                self.created = time.monotonic()
                await self.pc.setLocalDescription(await self.pc.createOffer())
                await ws.send(json.dumps({"eventName": "__offer", "data": {
                    "socketId": self.peer, "sdp": {"type": "offer", "sdp": self.pc.localDescription.sdp}}}))
        elif event == "_new_peer":
            self.peer = data["socketId"]
        elif event == "_offer":
            self.role = "answerer"
            self.created = time.monotonic()
            await self.pc.setRemoteDescription(RTCSessionDescription(data["sdp"]["sdp"], data["sdp"]["type"]))
            await self.pc.setLocalDescription(await self.pc.createAnswer())
            await ws.send(json.dumps({"eventName": "__answer", "data": {
                "socketId": data["socketId"], "sdp": {"type": "answer", "sdp": self.pc.localDescription.sdp}}}))
        elif event == "_answer":
            await self.pc.setRemoteDescription(RTCSessionDescription(data["sdp"]["sdp"], data["sdp"]["type"]))
        elif event == "_ice_candidate":
            self.candidates_received.append(data)
            candidate = candidate_from_sdp(data["candidate"].split(":", 1)[1])
            candidate.sdpMid = data.get("id", data.get("sdpMid"))
            candidate.sdpMLineIndex = data.get("label", data.get("sdpMLineIndex"))
            await self.pc.addIceCandidate(candidate)

    def dtls_state(self) -> str:
        transceiver = self.pc.getTransceivers()[0]
        return transceiver.receiver.transport.state

    def summary(self) -> str:
        return (f"aiortc role={self.role} state={self.pc.connectionState} video={self.video_frames} {self.video_size} "
                f"cards={len(self.cards)} last={self.cards[-1:] } background={self.background} "
                f"audio_frames={self.audio_frames} candidates={len(self.candidates_received)}")


async def stats_text(peer: AiortcPeer) -> str:
    try:
        report = await peer.pc.getStats()
        return "\n".join(f"  {key}: {vars(value)}" for key, value in report.items())
    except Exception as error:  # diagnostics only
        return f"getStats failed: {error}"
