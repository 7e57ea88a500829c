"""aiortc over plain SDP for the Swift interop tests (Tests/EngineTests/Transport/Interop), which run this file and
talk JSON lines on its stdin/stdout: it answers their offer (`{"mode": "answer", "sdp": ...}`) or offers and takes
their answer (`{"mode": "offer"}`, then `{"sdp": ...}`), sending a tone, then reports what it received
(`{"ice", "connection", "inbound": RTP packets, "frames": decoded audio frames}`). It binds 127.0.0.1 only (aioice's
host gathering pinned to loopback, docs/webrtc-interop.md §9) and ends itself after 40 s.
"""

import asyncio
import json
import pathlib
import signal
import sys

if __package__ in (None, ""):   # run as a file: the package is its folder, Tests/ its parent
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import aioice.ice  # noqa: E402
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription  # noqa: E402

from testsupport.aiortc_media import AIORTC_TONE, PacedTone  # noqa: E402
from testsupport.aiortc_peer import RemoteSeen, consume, loopback_host_addresses  # noqa: E402


async def read_request() -> dict:
    return json.loads(await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline))


def reply(value: dict) -> None:
    print(json.dumps(value), flush=True)


async def main() -> None:
    request = await read_request()
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    seen = RemoteSeen("swift", "answerer" if request["mode"] == "answer" else "offerer")
    pc.on("track", lambda track: asyncio.ensure_future(consume(seen, track)))
    if request["mode"] == "answer":
        await pc.setRemoteDescription(RTCSessionDescription(sdp=request["sdp"], type="offer"))
        pc.addTrack(PacedTone(AIORTC_TONE))
        await pc.setLocalDescription(await pc.createAnswer())
        reply({"sdp": pc.localDescription.sdp})
    else:
        pc.addTrack(PacedTone(AIORTC_TONE))
        await pc.setLocalDescription(await pc.createOffer())
        reply({"sdp": pc.localDescription.sdp})
        answer = await read_request()
        await pc.setRemoteDescription(RTCSessionDescription(sdp=answer["sdp"], type="answer"))
    for _ in range(250):
        await asyncio.sleep(0.1)
        if seen.audio_frames >= 25:
            break
    stats = await pc.getStats()
    inbound = sum(getattr(s, "packetsReceived", 0) or 0 for s in stats.values() if s.type == "inbound-rtp")
    reply({"ice": pc.iceConnectionState, "connection": pc.connectionState, "inbound": inbound,
           "frames": seen.audio_frames})
    await pc.close()


if __name__ == "__main__":
    signal.alarm(40)
    aioice.ice.get_host_addresses = loopback_host_addresses
    asyncio.run(main())
