"""`conftui bot` answers aiortc's offer of two audio and two video sections on one connection.

aiortc (testsupport.aiortc_peer with its own tracks) joins a room where the bot already is and offers four sections,
one `addTrack` each, in the order audio, video, audio, video: a 1000 Hz and a 1500 Hz tone, the half-white picture and
a flat dark grey one, all bundled (max-bundle: aiortc's default policy leaves its second video section on a
transport it stops; testsupport.aiortc_peer). The bot's answer must accept all four (no port 0) and aiortc must apply
it (before issue 27 two were rejected and aiortc refused the answer: no media at all). Then media flows: the bot's
report shows every section receiving packets and both video sections decoded, each with its own picture
(`videoStreams` by mid); aiortc reads the bot's test card and hears its 440 Hz tone on whichever sections the bot
chose to send on.
"""

from __future__ import annotations

import asyncio
import time

import aioice.ice
import numpy
import pytest
from aiortc import RTCBundlePolicy

from testsupport.aiortc_media import AIORTC_TONE, Flat, HalfWhite, PacedTone
from testsupport.aiortc_peer import AiortcPeer, loopback_host_addresses
from testsupport.bot import BotProcess, bot_participant
from testsupport.evidence import evidence_on_failure
from testsupport.tones import dominant_frequency

BOT_TONE = 440.0
SECOND_TONE = 1500.0
DARK = 50          # the second picture's grey (RGB)
FPS = 15           # per picture: one Python process encodes two of them on a shared 2-core machine
MEDIA_TIMEOUT = 20.0


@pytest.fixture(autouse=True)
def aioice_on_loopback(monkeypatch):
    monkeypatch.setattr(aioice.ice, "get_host_addresses", loopback_host_addresses)


def four_tracks() -> list:
    return [PacedTone(AIORTC_TONE), HalfWhite(FPS), PacedTone(SECOND_TONE), Flat(DARK, FPS)]


def test_bot_answers_two_audio_and_two_video_sections(signaling_server, tmp_path):
    room = "aiortc-four-sections"
    name = "tone-bot"

    async def scenario(evidence) -> tuple[dict, AiortcPeer, BotProcess, dict, str]:
        peer = evidence.add(AiortcPeer(signaling_server.ws_url, room, tracks=four_tracks,
                                       bundle_policy=RTCBundlePolicy.MAX_BUNDLE))
        bot = evidence.add(BotProcess(signaling_server.ws_url, room, name, tmp_path, "--tone", str(BOT_TONE)))
        await asyncio.to_thread(bot.wait_joined)
        stop = asyncio.Event()
        client = asyncio.ensure_future(peer.run(stop))
        try:
            deadline = time.monotonic() + MEDIA_TIMEOUT
            while not (peer.seen and len(peer.remote().card_log) >= 20 and len(peer.remote().audio) >= 48000):
                assert not client.done() or client.exception() is None, client.exception()
                assert time.monotonic() < deadline, f"no media from the bot within {MEDIA_TIMEOUT} s: {peer.summary()}"
                await asyncio.sleep(0.2)
            await asyncio.sleep(1.5)   # the bot keeps receiving all four sections meanwhile
            pc = peer.pcs[bot.socket_id]
            mids = {t.mid: (t.kind, t.sender.track) for t in pc.getTransceivers()}
            answer = pc.remoteDescription.sdp
            return await asyncio.to_thread(bot.stop), peer, bot, mids, answer
        finally:
            stop.set()
            await asyncio.wait_for(client, 10)

    with evidence_on_failure(signaling_server) as evidence:
        report, peer, bot, mids, answer = asyncio.run(scenario(evidence))
        print(f"conftui's answer:\n{answer}")
        # aiortc's four sections, by mid: what each sends.
        assert [kind for kind, _ in mids.values()] == ["audio", "video", "audio", "video"], mids
        half_white_mid, = [mid for mid, (_, track) in mids.items() if isinstance(track, HalfWhite)]
        dark_mid, = [mid for mid, (_, track) in mids.items() if isinstance(track, Flat)]

        # The answer accepts all four: four m= lines, none with port 0, in the offer's mids.
        m_lines = [line for line in answer.splitlines() if line.startswith("m=")]
        answer_mids = [line[len("a=mid:"):] for line in answer.splitlines() if line.startswith("a=mid:")]
        assert len(m_lines) == 4 and all(line.split()[1] != "0" for line in m_lines), m_lines
        assert answer_mids == list(mids), (answer_mids, list(mids))
        assert peer.remote().connected_after is not None, peer.summary()
        assert peer.dtls_state() in ("connected", "closed"), peer.dtls_state()

        # The bot's side: every section negotiated and receiving, both pictures decoded, each as sent.
        (aiortc_id, seen), = report["peers"].items()
        assert aiortc_id == peer.you
        assert seen["role"] == "answerer"
        sections = {s["mid"]: s for s in seen["transport"]["sections"]}
        assert sorted(sections) == sorted(mids), seen["transport"]["sections"]
        for mid, (kind, _) in mids.items():
            assert sections[mid]["kind"] == kind and sections[mid]["receives"], sections[mid]
            assert sections[mid]["packetsReceived"] > 0, f"section {mid} ({kind}) received nothing: {sections}"
        sending = {kind: [mid for mid, s in sections.items() if s["kind"] == kind and s["sends"]]
                   for kind in ("audio", "video")}
        assert len(sending["audio"]) == 1 and len(sending["video"]) == 1, f"one sending section per kind: {sections}"
        streams = seen["videoStreams"]
        assert sorted(streams) == sorted([half_white_mid, dark_mid]), streams
        bright, dark = streams[half_white_mid], streams[dark_mid]
        for video in (bright, dark):
            assert video["framesDecoded"] >= 20 and (video["width"], video["height"]) == (320, 240), streams
        assert 90 < bright["lumaMean"] < 170 and bright["lumaStdDev"] > 60, f"half-white mid {half_white_mid}: {bright}"
        assert dark["lumaMean"] < 80 and dark["lumaStdDev"] < 30, f"dark grey mid {dark_mid}: {dark}"
        assert seen["video"] == streams[min(streams, key=list(mids).index)], "the main video is the first video section"
        audio = seen["audio"]
        # The report's audio is the main (first) audio section's: the 1000 Hz one; the 1500 Hz section shows only
        # in its packets above (the report measures one tone per peer).
        assert audio["framesDecoded"] >= 50 and abs(audio.get("dominantFrequency", 0) - AIORTC_TONE) < 15, audio

        # aiortc's side: the bot's test card (its participant, counters advancing) and its tone.
        remote = peer.remote()
        cards = remote.card_log
        counters = [c["counter"] for c in cards]
        assert counters == sorted(counters) and counters[-1] - counters[0] >= 15, counters
        assert {c["participant"] for c in cards} == {bot_participant(name)}
        assert remote.video_size == (320, 240)
        heard = dominant_frequency(remote.audio[-24000:].astype(numpy.float64))
        assert abs(heard - BOT_TONE) < 10, f"aiortc heard {heard} Hz"

        print(f"aiortc mids {{{', '.join(f'{m}: {k}' for m, (k, _) in mids.items())}}}; bot sends audio on "
              f"{sending['audio']}, video on {sending['video']}; packets received per section "
              f"{ {m: s['packetsReceived'] for m, s in sections.items()} }; decoded half-white (mid {half_white_mid}) "
              f"{bright['framesDecoded']} frames luma {bright['lumaMean']:.0f}±{bright['lumaStdDev']:.0f}, dark "
              f"(mid {dark_mid}) {dark['framesDecoded']} frames luma {dark['lumaMean']:.0f}±{dark['lumaStdDev']:.0f}; "
              f"bot heard {audio['dominantFrequency']:.0f} Hz; aiortc decoded {remote.video_frames} frames "
              f"({len(cards)} cards), heard {heard:.0f} Hz")
