"""aiortc as a SkyRTC participant: the one aiortc peer of the tests (in the test's own process, or in a process of
its own through `aiortc_process`).

`AiortcPeer(ws_url, room)` joins the room (`__join`, no name: the original clients send none), offers to every id in
`_peers`, answers every `_offer`, applies `_answer`s, accepts trickled `_ice_candidate`s (`label`/`id`, or
`sdpMLineIndex`/`sdpMid`) and closes the connection of a `_remove_peer`, noting when it arrived. To every peer it
sends its own tone and a half-white picture (`aiortc_media`; `tracks=` for others, one section each); from every
peer it records, separately (`RemoteSeen`), the test cards it reads (per participant number, and the recent ones in
order), the card's background colour, the luma of the last frame, the frame count and size, and the last second of
audio. `remote()` is the one peer of a two-party test.

With `data_channel=True` it also speaks SkyRTC's chat and files (`aiortc_datachannel.SkyRTCChannel`): as the offerer
it makes the channel, labelled "undefined" as the original client's was, before its offer; as the answerer it takes the
channel the peer opens (`on("datachannel")`). Each peer's channel is in `channels`; `say` and `send_files` go to each
once it opens. `advertise` adds candidates to what it signals (and trickles them): a member whose candidates
include addresses no unicast peer has. `close_on_remove=False` leaves a connection open on `_remove_peer`, so whatever ends it afterwards
came from the peer itself (its DTLS close or SCTP abort), not from us.

Pin aioice's host gathering to 127.0.0.1 with `loopback_host_addresses` (docs/webrtc-interop.md §9: it never
gathers loopback by itself). Create the peer inside the running asyncio loop (aiortc binds to the loop that exists).
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import logging
import time
from typing import Callable

import numpy
from aiortc import RTCBundlePolicy, RTCConfiguration, RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack
from aiortc.sdp import candidate_from_sdp
from websockets.asyncio.client import connect

from testsupport.aiortc_datachannel import CHUNK_CHARACTERS, SkyRTCChannel
from testsupport.aiortc_media import AIORTC_TONE, HalfWhite, PacedTone
from testsupport.card_reader import card_background, read_test_card
from testsupport.tones import dominant_frequency

SAMPLE_RATE = 48000


def loopback_host_addresses(use_ipv4: bool, use_ipv6: bool) -> list[str]:
    """Replacement for `aioice.ice.get_host_addresses`: gather 127.0.0.1 only (tests never leave loopback).
    Install it for one test with `monkeypatch.setattr(aioice.ice, "get_host_addresses", loopback_host_addresses)`."""
    return ["127.0.0.1"]


def candidate_from_message(data: dict):
    """An aiortc candidate from a SkyRTC `_ice_candidate` (`label`/`id` as the original sends, or the W3C names)."""
    candidate = candidate_from_sdp(data["candidate"].split(":", 1)[1])
    candidate.sdpMid = data.get("id", data.get("sdpMid"))
    candidate.sdpMLineIndex = data.get("label", data.get("sdpMLineIndex"))
    return candidate


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


@dataclasses.dataclass
class RemoteSeen:
    """What arrived from one remote socketId."""

    socket_id: str
    role: str
    created_at: float = dataclasses.field(default_factory=time.monotonic)
    cards: dict[int, dict] = dataclasses.field(default_factory=dict)   # participant -> count, first, last, at
    card_log: list[dict] = dataclasses.field(default_factory=list)     # the latest cards read, in order
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

    @property
    def connected_after(self) -> float | None:
        """Seconds from creating the connection (offer or answer) to `connected`."""
        return None if self.connected_at is None else self.connected_at - self.created_at

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
        self.card_log = self.card_log[-999:] + [card]

    def add_video(self, frame) -> None:
        self.video_frames += 1
        self.last_video_at = time.monotonic()
        h, w = frame.height, frame.width
        self.video_size = (w, h)
        planes = frame.to_ndarray(format="yuv420p")
        y = planes[:h]
        self.luma = {"mean": float(y.mean()), "std": float(y.std()),
                     "top": float(y[:h // 2].mean()), "bottom": float(y[h // 2:].mean())}
        card = read_test_card(y)
        if card is not None:
            u = planes[h:h + h // 4].reshape(h // 2, w // 2)
            v = planes[h + h // 4:].reshape(h // 2, w // 2)
            self.add_card(card)
            self.background = card_background((y, u, v))

    def add_audio(self, frame) -> None:
        self.audio_frames += 1
        samples = frame.to_ndarray().reshape(-1)
        if len(frame.layout.channels) == 2:
            samples = samples[0::2]
        self.audio = numpy.concatenate([self.audio, samples.astype(numpy.float64)])[-SAMPLE_RATE:]
        self.audio_arrivals = self.audio_arrivals[-99:] + [(time.monotonic(), len(samples))]

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
                f"last card={self.card_log[-1:]} background={self.background} audio_frames={self.audio_frames} "
                f"level={self.level():.3f} freq={self.frequency()} candidates={len(self.candidates)} "
                f"connected_after={self.connected_after} removed_at={self.removed_at}")


async def consume(seen: RemoteSeen, track) -> None:
    """Records every frame of a received track in `seen` until the track ends."""
    try:
        while True:
            frame = await track.recv()
            if track.kind == "video":
                seen.add_video(frame)
            else:
                seen.add_audio(frame)
    except MediaStreamError:
        pass


class AiortcPeer:
    def __init__(self, ws_url: str, room: str, tone_hz: float = AIORTC_TONE, fps: int = 30,
                 log_level: int = logging.INFO, tracks: Callable[[], list[MediaStreamTrack]] | None = None,
                 bundle_policy: RTCBundlePolicy = RTCBundlePolicy.BALANCED, data_channel: bool = False,
                 say: list[str] = (), send_files: list[tuple[str, bytes]] = (), close_on_remove: bool = True,
                 chunk_characters: int = CHUNK_CHARACTERS, advertise: list[str] = ()) -> None:
        """`tracks`: what to send on each connection, one `addTrack` (so one m= section) per track in that order;
        by default the tone and the half-white picture (one audio and one video section). More than one section of
        a kind needs `bundle_policy=RTCBundlePolicy.MAX_BUNDLE`: under aiortc's default (BALANCED) the second
        section of a kind shares the first one's transport and is marked bundled already, so when the answer's BUNDLE
        moves the first video section onto the audio transport it stays behind on the transport aiortc then stops,
        and sends nothing (aiortc 1.16, `RTCPeerConnection.__createTransceiver` and the BUNDLE step of
        `setRemoteDescription`)."""
        self.ws_url, self.room, self.tone_hz, self.fps = ws_url, room, tone_hz, fps
        self.bundle_policy = bundle_policy
        self.data_channel, self.say, self.send_files = data_channel, list(say), list(send_files)
        self.close_on_remove = close_on_remove
        self.chunk_characters = chunk_characters   # data URL characters in each file chunk it sends
        # Candidate attributes ("candidate:..."), beyond aiortc's own, put in every description it sends and then
        # trickled as `__ice_candidate`s: what a hostile or broken member advertises.
        self.advertise = list(advertise)
        self.channels: dict[str, SkyRTCChannel] = {}   # socketId -> its SkyRTC channel (data_channel=True)
        self.tracks = tracks or (lambda: [PacedTone(self.tone_hz), HalfWhite(self.fps)])
        self.you: str | None = None
        self.joined_with: list[str] = []
        self.names: dict = {}
        self.pcs: dict[str, RTCPeerConnection] = {}   # every connection made, closed ones too (their final states)
        self.removed: dict[str, str] = {}   # socketId -> its getStats text when its `_remove_peer` closed it
        self.seen: dict[str, RemoteSeen] = {}
        self.events: list[str] = []
        self.last_stats = "(not taken)"
        self._early_candidates: dict[str, list[dict]] = {}
        self._tasks: list[asyncio.Task] = []
        self.log = io.StringIO()
        self._handler = logging.StreamHandler(self.log)
        self._handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
        for name in ("aiortc", "aioice"):
            logger = logging.getLogger(name)
            logger.setLevel(log_level)
            logger.addHandler(self._handler)

    def remote(self) -> RemoteSeen:
        """The one remote peer of a two-party test."""
        assert len(self.seen) == 1, f"aiortc expected one remote peer, has {list(self.seen)}"
        return next(iter(self.seen.values()))

    def _note(self, text: str) -> None:
        print(f"{time.strftime('%H:%M:%S')}.{int(time.time() * 1000) % 1000:03d} aiortc: {text}", file=self.log)

    def _connection(self, socket_id: str, role: str) -> RTCPeerConnection:
        if socket_id in self.pcs:
            return self.pcs[socket_id]
        pc = RTCPeerConnection(RTCConfiguration(iceServers=[], bundlePolicy=self.bundle_policy))   # no STUN: offline
        for track in self.tracks():
            pc.addTrack(track)
        seen = RemoteSeen(socket_id, role)
        self.pcs[socket_id], self.seen[socket_id] = pc, seen
        pc.on("track", lambda track: self._tasks.append(asyncio.ensure_future(self._consume(seen, track))))
        if self.data_channel:
            def attach(channel) -> None:
                if socket_id in self.channels:
                    self._note(f"{socket_id[:8]} opened another channel {channel.label!r}: ignored")
                    return
                self._note(f"{socket_id[:8]} channel {channel.label!r} ({role}) {channel.readyState}")
                self.channels[socket_id] = SkyRTCChannel(channel, socket_id, self._note, self.say, self.send_files,
                                                       self.chunk_characters)
            if role == "offerer":   # SkyRTC: the newcomer makes the one channel, before its offer
                attach(pc.createDataChannel("undefined"))
            else:
                pc.on("datachannel", attach)

        @pc.on("connectionstatechange")
        def _state() -> None:
            seen.connection_state = pc.connectionState
            self._note(f"{socket_id[:8]} connection {pc.connectionState}")
            if pc.connectionState == "connected" and seen.connected_at is None:
                seen.connected_at = time.monotonic()
        return pc

    async def _consume(self, seen: RemoteSeen, track) -> None:
        await consume(seen, track)

    def to_json(self) -> dict:
        return {"you": self.you, "joinedWith": self.joined_with, "names": self.names, "toneHz": self.tone_hz,
                "peers": {socket_id: seen.to_json() for socket_id, seen in self.seen.items()}}

    async def run(self, stop: asyncio.Event) -> None:
        """Takes part until `stop` is set; then keeps every connection's getStats in `last_stats` and closes them."""
        try:
            await run_skyrtc(self.ws_url, self.room, self._handle, stop)
        finally:
            self.last_stats = await self.stats_text()
            for pc in self.pcs.values():
                await pc.close()
            for task in self._tasks:
                task.cancel()
            for channel in self.channels.values():
                channel.cancel()
            for name in ("aiortc", "aioice"):
                logging.getLogger(name).removeHandler(self._handler)

    async def _send_description(self, ws, socket_id: str, pc: RTCPeerConnection) -> None:
        kind, sdp = pc.localDescription.type, pc.localDescription.sdp
        if self.advertise:
            extra = "".join(f"a={c}\r\n" for c in self.advertise)
            sdp = "".join(line + ("\r\n" + extra if line.startswith("a=mid:") else "\r\n")
                          for line in sdp.split("\r\n")[:-1])
        await ws.send(json.dumps({"eventName": f"__{kind}", "data": {
            "socketId": socket_id, "sdp": {"type": kind, "sdp": sdp}}}))
        for candidate in self.advertise:
            await ws.send(json.dumps({"eventName": "__ice_candidate", "data": {
                "socketId": socket_id, "label": 0, "id": "0", "candidate": candidate}}))

    async def _add_candidate(self, socket_id: str, data: dict) -> None:
        self.seen[socket_id].candidates.append(data)
        await self.pcs[socket_id].addIceCandidate(candidate_from_message(data))

    async def _handle(self, ws, event: str, data: dict) -> None:
        if event != "_ice_candidate":
            self._note(f"<- {event} {json.dumps(data)[:160]}")
        self.events.append(event)
        if event == "_peers":
            self.you = data["you"]
            self.joined_with = list(data["connections"])
            self.names = data.get("names") or {}
            for socket_id in self.joined_with:
                pc = self._connection(socket_id, "offerer")
                await pc.setLocalDescription(await pc.createOffer())
                await self._send_description(ws, socket_id, pc)
        elif event == "_new_peer":
            if data.get("name"):
                self.names[data["socketId"]] = data["name"]
        elif event == "_offer":
            socket_id = data["socketId"]
            pc = self._connection(socket_id, "answerer")
            await pc.setRemoteDescription(RTCSessionDescription(data["sdp"]["sdp"], data["sdp"]["type"]))
            await pc.setLocalDescription(await pc.createAnswer())
            await self._send_description(ws, socket_id, pc)
            for early in self._early_candidates.pop(socket_id, []):
                await self._add_candidate(socket_id, early)
        elif event == "_answer":
            pc = self.pcs.get(data["socketId"])
            if pc is not None:
                await pc.setRemoteDescription(RTCSessionDescription(data["sdp"]["sdp"], data["sdp"]["type"]))
        elif event == "_ice_candidate":
            if data["socketId"] in self.removed:
                return
            if data["socketId"] in self.pcs:
                await self._add_candidate(data["socketId"], data)
            else:   # ahead of its offer: applied once the offer is
                self._note(f"candidate from {data['socketId'][:8]} before its offer: kept for later")
                self._early_candidates.setdefault(data["socketId"], []).append(data)
        elif event == "_remove_peer":
            socket_id = data["socketId"]
            seen = self.seen.get(socket_id)
            if seen is not None and seen.removed_at is None:
                seen.removed_at = time.time()
            pc = self.pcs.get(socket_id)
            if pc is not None and socket_id not in self.removed and self.close_on_remove:
                self.removed[socket_id] = await self._stats_of(socket_id, pc)
                await pc.close()

    def dtls_state(self, socket_id: str | None = None) -> str:
        pc = self.pcs[socket_id or self.remote().socket_id]
        return pc.getTransceivers()[0].receiver.transport.state

    def summary(self) -> str:
        return (f"aiortc peer you={self.you} joined with {self.joined_with} names={self.names}\n  "
                + "\n  ".join(seen.summary() for seen in self.seen.values())
                + "".join(f"\n  channel {json.dumps(c.to_json(), ensure_ascii=False)}" for c in self.channels.values()))

    @staticmethod
    async def _stats_of(socket_id: str, pc: RTCPeerConnection) -> str:
        try:
            report = await pc.getStats()
            return f"--- {socket_id[:8]} ---\n" + "\n".join(f"  {key}: {vars(value)}" for key, value in report.items())
        except Exception as error:   # diagnostics only
            return f"--- {socket_id[:8]}: getStats failed: {error}"

    async def stats_text(self) -> str:
        """getStats of every connection (of a removed one: as it was when its `_remove_peer` came)."""
        parts = []
        for socket_id, pc in list(self.pcs.items()):
            parts.append(self.removed[socket_id] if socket_id in self.removed else await self._stats_of(socket_id, pc))
        return "\n".join(parts)

    def describe(self) -> str:
        """Its evidence for a failure message: what it saw, its log, its last getStats."""
        return (f"===== aiortc =====\n{self.summary()}\n----- log -----\n{self.log.getvalue()[-12000:]}\n"
                f"----- getStats (at its end) -----\n{self.last_stats[-12000:]}")
