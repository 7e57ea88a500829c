"""The page with a non-browser peer: aiortc joins the room over SkyRTC, like the conftui terminal client will.

aiortc (testsupport.aiortc_peer) is the newcomer, so it offers (with every candidate in its SDP: aiortc does not
trickle); the page answers and trickles its candidates as `{label, id, candidate}`, which aiortc takes the way a
SkyRTC client must (label = sdpMLineIndex, id = sdpMid). Both directions must carry media: the page decodes
aiortc's 320x240 picture and receives its audio; aiortc receives frames of the page's camera.
"""

from __future__ import annotations

import asyncio
import time

from testsupport.aiortc_peer import AiortcPeer
from testsupport.chromium import Chromium, Page
from testsupport.evidence import evidence_on_failure
from testsupport.pages import FIRST_MEDIA_TIMEOUT, PAGE_READY, PagesEvidence


def test_browser_and_aiortc_exchange_video_and_audio(signaling_server, chromium: Chromium):
    pages: list[Page] = []
    room = "aiortc"

    async def scenario(evidence) -> None:
        page = await asyncio.to_thread(chromium.new_page, f"{signaling_server.http_url}#{room}", "browser", PAGE_READY)
        pages.append(page)
        # The newcomer offers to whoever is listed in `_peers`: the page must have joined first.
        joined_by = time.monotonic() + 10
        while not (await asyncio.to_thread(page.evaluate, "conftui.state()")).get("you"):
            assert time.monotonic() < joined_by, "the page did not join its room within 10 s"
            await asyncio.sleep(0.1)
        peer = evidence.add(AiortcPeer(signaling_server.ws_url, room))   # inside the loop: aiortc binds to it
        stop = asyncio.Event()
        client = asyncio.ensure_future(peer.run(stop))
        try:
            deadline = time.monotonic() + FIRST_MEDIA_TIMEOUT
            while True:
                assert not client.done() or client.exception() is None, client.exception()
                state = await asyncio.to_thread(page.evaluate, "conftui.state()")
                peers = list(state["peers"].values())
                received = next(iter(peer.seen.values()), None)
                if (len(peers) == 1 and peers[0]["framesDecoded"] > 0 and peers[0]["audioPacketsReceived"] > 0
                        and received and received.video_frames > 0 and received.audio_frames > 0):
                    break
                assert time.monotonic() < deadline, (
                    f"no media both ways within {FIRST_MEDIA_TIMEOUT} s: page {state}, aiortc got {peer.summary()}")
                await asyncio.sleep(0.25)
            assert peer.joined_with == [state["you"]] and received.role == "offerer", peer.summary()
            (from_aiortc,) = peers
            assert from_aiortc["role"] == "answerer" and from_aiortc["connectionState"] == "connected"
            assert (from_aiortc["frameWidth"], from_aiortc["frameHeight"]) == (320, 240)
            assert received.video_size == (320, 240)   # the page's camera, as its constraints asked
            frames_before = (from_aiortc["framesDecoded"], received.video_frames)
            await asyncio.sleep(1.0)
            state = await asyncio.to_thread(page.evaluate, "conftui.state()")
            (later,) = state["peers"].values()
            assert later["framesDecoded"] >= frames_before[0] + 5, (from_aiortc, later)
            assert received.video_frames >= frames_before[1] + 5, received.video_frames
        finally:
            stop.set()
            await asyncio.wait_for(client, 10)

    with evidence_on_failure(PagesEvidence(pages), signaling_server, chromium) as evidence:
        asyncio.run(scenario(evidence))
