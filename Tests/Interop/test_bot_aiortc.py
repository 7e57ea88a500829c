"""`conftui bot` and aiortc in one room through the signaling server, both offer orders, content checked both ways.

aiortc is a SkyRTC client written here (join, offer to the ids in `_peers`, answer `_offer`, trickle-accept
`_ice_candidate` with `label`/`id`); it sends a 1000 Hz tone and a 320x240 picture with a white top half and a dark
bottom half, and reads what the bot sends: the test card's code band (counter advancing, participant, colour) and
the tone's frequency. The bot's JSON report must show aiortc's picture (size, contrast) and tone. aioice's host
gathering is pinned to 127.0.0.1 (webrtc-interop.md: it never gathers loopback by itself).
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
from aiortc.mediastreams import AudioStreamTrack, MediaStreamError, VideoStreamTrack
from aiortc.sdp import candidate_from_sdp
from av import AudioFrame, VideoFrame
from websockets.asyncio.client import connect

from bot_process import (CARD_COLOURS, BotProcess, bot_participant, card_background, dominant_frequency,
                         read_test_card)

aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: ["127.0.0.1"]

AIORTC_TONE = 1000.0
BOT_TONE = 440.0
MEDIA_TIMEOUT = 20.0


class Tone(AudioStreamTrack):
    """A 1000 Hz sine, 20 ms mono s16 frames at 48 kHz."""

    def __init__(self) -> None:
        super().__init__()
        self.sent = 0

    async def recv(self) -> AudioFrame:
        if self.sent == 0:
            self._start = time.monotonic()
        wait = self._start + self.sent * 0.02 - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        t = (numpy.arange(960) + self.sent * 960) / 48000
        samples = (numpy.sin(2 * numpy.pi * AIORTC_TONE * t) * 9000).astype(numpy.int16)
        frame = AudioFrame.from_ndarray(samples.reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate = 48000
        frame.pts = self.sent * 960
        frame.time_base = fractions.Fraction(1, 48000)
        self.sent += 1
        return frame


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
        self.pc.addTrack(Tone())
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
            async with connect(self.ws_url) as ws:
                await ws.send(json.dumps({"eventName": "__join", "data": {"room": self.room}}))
                while not stop.is_set():
                    try:
                        message = json.loads(await asyncio.wait_for(ws.recv(), 0.2))
                    except asyncio.TimeoutError:
                        continue
                    await self._handle(ws, message["eventName"], message.get("data") or {})
        finally:
            await self.pc.close()
            for task in self._tasks:
                task.cancel()

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


def run_pair(signaling_server, tmp_path, bot_first: bool) -> None:
    room = f"aiortc-{'bot-first' if bot_first else 'bot-last'}"
    name = "tone-bot"
    bot: BotProcess | None = None
    peer: AiortcPeer | None = None

    async def scenario() -> dict:
        nonlocal bot, peer
        peer = AiortcPeer(signaling_server.ws_url, room)   # inside the loop: aiortc binds to the running loop
        stop = asyncio.Event()
        if bot_first:
            bot = BotProcess(signaling_server.ws_url, room, name, tmp_path, "--tone", str(BOT_TONE))
            await asyncio.to_thread(bot.wait_joined)
        client = asyncio.ensure_future(peer.run(stop))
        try:
            if not bot_first:
                deadline = time.monotonic() + 10
                while peer.you is None:
                    assert time.monotonic() < deadline, "aiortc did not join"
                    assert not client.done(), client.exception()
                    await asyncio.sleep(0.05)
                bot = BotProcess(signaling_server.ws_url, room, name, tmp_path, "--tone", str(BOT_TONE))
                await asyncio.to_thread(bot.wait_joined)
            deadline = time.monotonic() + MEDIA_TIMEOUT
            while not (len(peer.cards) >= 20 and len(peer.audio) >= 48000):
                assert not client.done() or client.exception() is None, client.exception()
                assert time.monotonic() < deadline, f"no media from the bot within {MEDIA_TIMEOUT} s: {peer.summary()}"
                await asyncio.sleep(0.2)
            await asyncio.sleep(1.0)   # the bot keeps receiving aiortc's media meanwhile
            peer.last_stats = await _stats(peer)
            return await asyncio.to_thread(bot.stop)
        finally:
            stop.set()
            await asyncio.wait_for(client, 10)

    try:
        report = asyncio.run(scenario())
        assert bot is not None and peer is not None
        assert peer.role == ("offerer" if bot_first else "answerer")
        # aiortc's side: connected, DTLS up (aiortc checks our certificate against a=fingerprint).
        assert peer.connected_after is not None, peer.summary()
        assert peer.dtls_state() in ("connected", "closed"), peer.dtls_state()
        assert peer.candidates_received, "the bot trickled no candidates"
        assert all("label" in c and "id" in c for c in peer.candidates_received), peer.candidates_received
        # aiortc decoded the bot's test card: valid code band, counters advancing, the bot's participant and colour.
        assert peer.video_size == (320, 240)
        counters = [c["counter"] for c in peer.cards]
        assert counters == sorted(counters) and counters[-1] - counters[0] >= 15, counters
        participant = bot_participant(name)
        assert {c["participant"] for c in peer.cards} == {participant}
        expected = CARD_COLOURS[participant % 7]
        assert peer.background is not None and all(abs(a - b) <= 14 for a, b in zip(peer.background, expected)), \
            (peer.background, expected)
        heard = dominant_frequency(peer.audio[-24000:].astype(numpy.float64))
        assert abs(heard - BOT_TONE) < 10, f"aiortc heard {heard} Hz"

        # The bot's side, from its report.
        assert report["you"] == bot.socket_id
        (aiortc_id, seen), = report["peers"].items()
        assert aiortc_id == peer.you
        states = [change["state"] for change in seen["timeline"]]
        assert "connected" in states, seen["timeline"]
        assert seen["role"] == ("answerer" if bot_first else "offerer")
        transport = seen["transport"]
        # Offerer sends actpass, aiortc answers active: the bot is then the DTLS server; as answerer it is active.
        assert transport["dtlsRole"] == ("client" if bot_first else "server")
        assert transport["srtpProfile"] in ("aeadAes128Gcm", "aes128CmHmacSha1_80")
        assert transport["selectedPair"].startswith("127.0.0.1:") and "-> 127.0.0.1:" in transport["selectedPair"]
        assert transport["srtpRejected"] == 0
        video = seen["video"]
        assert video["framesDecoded"] >= 20 and (video["width"], video["height"]) == (320, 240), video
        # White top half, dark bottom half: mean near the middle, large spread.
        assert 90 < video["lumaMean"] < 170 and video["lumaStdDev"] > 60, video
        audio = seen["audio"]
        assert audio["framesDecoded"] >= 50 and abs(audio.get("dominantFrequency", 0) - AIORTC_TONE) < 15, audio
        print(f"bot {'answers' if bot_first else 'offers'}: bot connected {seen['timeToConnected']:.3f} s after its "
              f"connection was created, aiortc {peer.connected_after:.3f} s; aiortc decoded {peer.video_frames} frames "
              f"({len(peer.cards)} cards, counters {counters[0]}..{counters[-1]}), heard {heard:.0f} Hz; bot decoded "
              f"{video['framesDecoded']} frames {video['width']}x{video['height']}, heard "
              f"{audio['dominantFrequency']:.0f} Hz; RTT {transport.get('roundTripTimeMs')} ms; {transport['srtpProfile']}")
    except BaseException:
        if peer is not None:
            print(peer.summary())
            print("===== aiortc log =====\n" + peer.log.getvalue()[-12000:])
            print(f"aiortc last stats: {peer.last_stats}")
        if bot is not None:
            bot.kill()
            print(bot.describe())
        print(f"===== signaling server =====\n{signaling_server.log_tail()}")
        raise
    finally:
        if bot is not None:
            bot.kill()


async def _stats(peer: AiortcPeer) -> str:
    try:
        report = await peer.pc.getStats()
        return "\n".join(f"  {key}: {vars(value)}" for key, value in report.items())
    except Exception as error:  # diagnostics only
        return f"getStats failed: {error}"


def test_bot_answers_aiortc(signaling_server, tmp_path):
    """The bot is in the room first; aiortc joins and offers; the bot answers (ICE controlled, DTLS client)."""
    run_pair(signaling_server, tmp_path, bot_first=True)


def test_bot_offers_to_aiortc(signaling_server, tmp_path):
    """aiortc is in the room first; the bot joins and offers (ICE controlling, actpass → DTLS server)."""
    run_pair(signaling_server, tmp_path, bot_first=False)
