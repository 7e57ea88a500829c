"""`conftui bot` and aiortc in one room through the signaling server, both offer orders, content checked both ways.

aiortc is the tests' SkyRTC client (testsupport.aiortc_peer: join, offer to the ids in `_peers`, answer `_offer`,
trickle-accept `_ice_candidate` with `label`/`id`); it sends a 1000 Hz tone and a 320x240 picture with a white top half and a dark
bottom half, and reads what the bot sends: the test card's code strip (counter advancing, participant, colour) and
the tone's frequency. The bot's JSON report must show aiortc's picture (size, contrast) and tone. aioice's host
gathering is pinned to 127.0.0.1 (docs/webrtc-interop.md §9: it never gathers loopback by itself).
"""

from __future__ import annotations

import asyncio
import time

import aioice.ice
import numpy
import pytest

from testsupport.aiortc_media import AIORTC_TONE
from testsupport.aiortc_peer import AiortcPeer, loopback_host_addresses
from testsupport.bot import BotProcess, bot_participant
from testsupport.evidence import evidence_on_failure
from testsupport.card_reader import CARD_COLOURS
from testsupport.tones import dominant_frequency

BOT_TONE = 440.0
MEDIA_TIMEOUT = 20.0


def run_pair(signaling_server, tmp_path, bot_first: bool) -> None:
    room = f"aiortc-{'bot-first' if bot_first else 'bot-last'}"
    name = "tone-bot"

    async def scenario(evidence) -> tuple[dict, AiortcPeer, BotProcess]:
        peer = evidence.add(AiortcPeer(signaling_server.ws_url, room))   # inside the loop: aiortc binds to it
        stop = asyncio.Event()
        if bot_first:
            bot = evidence.add(BotProcess(signaling_server.ws_url, room, name, tmp_path, "--tone", str(BOT_TONE)))
            await asyncio.to_thread(bot.wait_joined)
        client = asyncio.ensure_future(peer.run(stop))
        try:
            if not bot_first:
                deadline = time.monotonic() + 10
                while peer.you is None:
                    assert time.monotonic() < deadline, "aiortc did not join"
                    assert not client.done(), client.exception()
                    await asyncio.sleep(0.05)
                bot = evidence.add(BotProcess(signaling_server.ws_url, room, name, tmp_path, "--tone", str(BOT_TONE)))
                await asyncio.to_thread(bot.wait_joined)
            deadline = time.monotonic() + MEDIA_TIMEOUT
            while not (peer.seen and len(peer.remote().card_log) >= 20 and len(peer.remote().audio) >= 48000):
                assert not client.done() or client.exception() is None, client.exception()
                assert time.monotonic() < deadline, f"no media from the bot within {MEDIA_TIMEOUT} s: {peer.summary()}"
                await asyncio.sleep(0.2)
            await asyncio.sleep(1.0)   # the bot keeps receiving aiortc's media meanwhile
            return await asyncio.to_thread(bot.stop), peer, bot
        finally:
            stop.set()
            await asyncio.wait_for(client, 10)

    with evidence_on_failure(signaling_server) as evidence:
        report, peer, bot = asyncio.run(scenario(evidence))
        seen_by_aiortc = peer.remote()
        assert seen_by_aiortc.role == ("offerer" if bot_first else "answerer")
        # aiortc's side: connected, DTLS up (aiortc checks our certificate against a=fingerprint).
        assert seen_by_aiortc.connected_after is not None, peer.summary()
        assert peer.dtls_state() in ("connected", "closed"), peer.dtls_state()
        candidates = seen_by_aiortc.candidates
        assert candidates, "the bot trickled no candidates"
        # `label` always; `id` (sdpMid) only through a server that forwards it (conftui serve; the original drops it).
        assert all(isinstance(c.get("label"), int) for c in candidates), candidates
        for c in candidates:   # `candidate:<foundation> 1 udp <priority> 127.0.0.1 <port> typ host`
            fields = c["candidate"].split()
            assert fields[0].startswith("candidate:") and fields[0][len("candidate:"):].isdigit(), c
            assert fields[2] == "udp" and fields[4] == "127.0.0.1" and fields[6:8] == ["typ", "host"], c
            assert c["label"] == 0 and c.get("id", "0") == "0", c
        # aiortc decoded the bot's test card: valid code strip, counters advancing, the bot's participant and colour.
        assert seen_by_aiortc.video_size == (320, 240)
        cards = seen_by_aiortc.card_log
        counters = [c["counter"] for c in cards]
        assert counters == sorted(counters) and counters[-1] - counters[0] >= 15, counters
        participant = bot_participant(name)
        assert {c["participant"] for c in cards} == {participant}
        expected = CARD_COLOURS[participant % 7]
        background = seen_by_aiortc.background
        assert background is not None and all(abs(a - b) <= 14 for a, b in zip(background, expected)), \
            (background, expected)
        heard = dominant_frequency(seen_by_aiortc.audio[-24000:].astype(numpy.float64))
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
              f"connection was created, aiortc {seen_by_aiortc.connected_after:.3f} s; aiortc decoded "
              f"{seen_by_aiortc.video_frames} frames ({len(cards)} cards, counters {counters[0]}..{counters[-1]}), "
              f"heard {heard:.0f} Hz; bot decoded {video['framesDecoded']} frames {video['width']}x{video['height']}, "
              f"heard {audio['dominantFrequency']:.0f} Hz; RTT {transport.get('roundTripTimeMs')} ms; "
              f"{transport['srtpProfile']}")


@pytest.fixture(autouse=True)
def aioice_on_loopback(monkeypatch):
    monkeypatch.setattr(aioice.ice, "get_host_addresses", loopback_host_addresses)


def test_bot_answers_aiortc(signaling_server, tmp_path):
    """The bot is in the room first; aiortc joins and offers; the bot answers (ICE controlled, DTLS client)."""
    run_pair(signaling_server, tmp_path, bot_first=True)


def test_bot_offers_to_aiortc(signaling_server, tmp_path):
    """aiortc is in the room first; the bot joins and offers (ICE controlling, actpass → DTLS server)."""
    run_pair(signaling_server, tmp_path, bot_first=False)
