"""The page with a non-browser peer: aiortc joins the room over SkyRTC, like the conftui terminal client will.

aiortc is the newcomer, so it offers (with every candidate in its SDP: aiortc does not trickle); the page
answers and trickles its candidates as `{label, id, candidate}`, which the test hands to aiortc the way a
SkyRTC client must (label = sdpMLineIndex, id = sdpMid). Both directions must carry media: the page decodes
aiortc's 320x240 picture and receives its audio; aiortc receives frames of the page's camera.
"""

from __future__ import annotations

import asyncio
import json
import time

import numpy
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import AudioStreamTrack, MediaStreamError, VideoStreamTrack
from aiortc.sdp import candidate_from_sdp
from av import VideoFrame
from websockets.asyncio.client import connect

from chromium import Chromium, Page
from test_browser_pair import FIRST_MEDIA_TIMEOUT, PAGE_READY, explain_failure


class MovingBar(VideoStreamTrack):
    """320x240 frames with a bar that moves, so every frame differs (an encoder may skip identical ones)."""

    async def recv(self) -> VideoFrame:
        pts, time_base = await self.next_timestamp()
        image = numpy.full((240, 320, 3), 40, dtype=numpy.uint8)
        column = (pts // 3000) % 300
        image[:, column:column + 20] = (60, 200, 250)
        frame = VideoFrame.from_ndarray(image, format="bgr24")
        frame.pts, frame.time_base = pts, time_base
        return frame


class Received:
    """What aiortc got from the page."""

    def __init__(self) -> None:
        self.video_frames = 0
        self.video_size = (0, 0)
        self.audio_frames = 0


async def consume(track, received: Received) -> None:
    try:
        while True:
            frame = await track.recv()
            if track.kind == "video":
                received.video_frames += 1
                received.video_size = (frame.width, frame.height)
            else:
                received.audio_frames += 1
    except MediaStreamError:
        pass


async def aiortc_newcomer(ws_url: str, room: str, received: Received, connected: asyncio.Event,
                          stop: asyncio.Event) -> None:
    """A SkyRTC client built on aiortc: join, offer to everyone there, apply the answer and trickled candidates."""
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))   # no STUN: offline, local addresses only
    consumers = []
    pc.on("track", lambda track: consumers.append(asyncio.ensure_future(consume(track, received))))
    pc.addTrack(AudioStreamTrack())
    pc.addTrack(MovingBar())
    try:
        async with connect(ws_url) as ws:
            await ws.send(json.dumps({"eventName": "__join", "data": {"room": room}}))
            peers = json.loads(await ws.recv())
            assert peers["eventName"] == "_peers", peers
            (browser_id,) = peers["data"]["connections"]
            await pc.setLocalDescription(await pc.createOffer())
            await ws.send(json.dumps({"eventName": "__offer", "data": {
                "socketId": browser_id, "sdp": {"type": "offer", "sdp": pc.localDescription.sdp}}}))
            while not stop.is_set():
                try:
                    message = json.loads(await asyncio.wait_for(ws.recv(), 0.2))
                except asyncio.TimeoutError:
                    if pc.connectionState == "connected":
                        connected.set()
                    continue
                data = message["data"]
                if message["eventName"] == "_answer":
                    await pc.setRemoteDescription(RTCSessionDescription(data["sdp"]["sdp"], data["sdp"]["type"]))
                elif message["eventName"] == "_ice_candidate":
                    candidate = candidate_from_sdp(data["candidate"].split(":", 1)[1])
                    candidate.sdpMid = data.get("id")
                    candidate.sdpMLineIndex = data.get("label")
                    await pc.addIceCandidate(candidate)
    finally:
        await pc.close()
        for task in consumers:
            task.cancel()


def test_browser_and_aiortc_exchange_video_and_audio(signaling_server, chromium: Chromium):
    pages: list[Page] = []
    room = "aiortc"
    received = Received()

    async def scenario() -> None:
        page = await asyncio.to_thread(chromium.new_page, f"{signaling_server.http_url}#{room}", "browser", PAGE_READY)
        pages.append(page)
        connected, stop = asyncio.Event(), asyncio.Event()
        client = asyncio.ensure_future(aiortc_newcomer(signaling_server.ws_url, room, received, connected, stop))
        try:
            deadline = time.monotonic() + FIRST_MEDIA_TIMEOUT
            while True:
                assert not client.done() or client.exception() is None, client.exception()
                state = await asyncio.to_thread(page.evaluate, "conftui.state()")
                peers = list(state["peers"].values())
                if (len(peers) == 1 and peers[0]["framesDecoded"] > 0 and peers[0]["audioPacketsReceived"] > 0
                        and received.video_frames > 0 and received.audio_frames > 0):
                    break
                assert time.monotonic() < deadline, (
                    f"no media both ways within {FIRST_MEDIA_TIMEOUT} s: page {state}, aiortc got "
                    f"{received.video_frames} video / {received.audio_frames} audio frames")
                await asyncio.sleep(0.25)
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

    with explain_failure(chromium, signaling_server, pages):
        asyncio.run(scenario())
