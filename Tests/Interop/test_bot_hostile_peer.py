"""A hostile room member against `conftui bot` (issue #12): the messages that used to kill every participant.

A plain websockets client joins the bot's room through `conftui serve` and sends the bot, as ordinary SkyRTC
messages, an `__offer` whose sdp is just `v=0` (no media section: the bot indexed `media[0]`), an `__offer` that looks
valid but has a 70,000-byte `a=ice-ufrag` (the first connectivity check's USERNAME trapped the STUN encoder) and a
70,000-byte `__ice_candidate`. The bot must keep running and keep answering signaling (a well-formed offer from the
same client gets an `_answer`), log why it refused each one, and then a second `conftui bot` joining the room must
see its test card and hear its tone, both ways, as in test_bot_pair.py.
"""

from __future__ import annotations

import asyncio
import json
import time

from websockets.asyncio.client import connect

from testsupport.bot import BotProcess, bot_participant
from testsupport.evidence import evidence_on_failure

HUGE = 70_000

# An offer shaped like aiortc's (Opus and VP8, BUNDLE, rtcp-mux, a loopback candidate); only the ufrag varies.
OFFER_TEMPLATE = "\r\n".join([
    "v=0",
    "o=- 3912345678 3912345678 IN IP4 0.0.0.0",
    "s=-",
    "t=0 0",
    "a=group:BUNDLE 0 1",
    "a=msid-semantic:WMS *",
    "m=audio 9 UDP/TLS/RTP/SAVPF 111",
    "c=IN IP4 0.0.0.0",
    "a=sendrecv",
    "a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid",
    "a=mid:0",
    "a=rtcp-mux",
    "a=rtpmap:111 opus/48000/2",
    "a=candidate:1 1 udp 2130706431 127.0.0.1 9 typ host",
    "a=ice-ufrag:{ufrag}",
    "a=ice-pwd:5ikqYbnq2JQGDyNPBUfbPO",
    "a=fingerprint:sha-256 6B:8B:5D:EA:59:04:20:23:29:C8:87:1C:CC:87:32:BE:DD:8C:66:A5:8E:50:55:EA:8C:D3:B6:5C:09:5E:A6:BC",
    "a=setup:actpass",
    "m=video 9 UDP/TLS/RTP/SAVPF 96",
    "c=IN IP4 0.0.0.0",
    "a=sendrecv",
    "a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid",
    "a=mid:1",
    "a=rtcp-mux",
    "a=rtpmap:96 VP8/90000",
    "a=rtcp-fb:96 nack pli",
    "a=ice-ufrag:{ufrag}",
    "a=ice-pwd:5ikqYbnq2JQGDyNPBUfbPO",
    "a=fingerprint:sha-256 6B:8B:5D:EA:59:04:20:23:29:C8:87:1C:CC:87:32:BE:DD:8C:66:A5:8E:50:55:EA:8C:D3:B6:5C:09:5E:A6:BC",
    "a=setup:actpass",
    "",
])


async def hostile_member(ws_url: str, room: str, target: str, seen: list[str]) -> bool:
    """Sends the crashers to `target`, then a well-formed offer; True when the target answered that one."""
    async with connect(ws_url, max_size=None) as ws:
        await ws.send(json.dumps({"eventName": "__join", "data": {"room": room, "name": "mallory"}}))

        async def offer(sdp: str) -> None:
            await ws.send(json.dumps({"eventName": "__offer", "data": {
                "socketId": target, "sdp": {"type": "offer", "sdp": sdp}}}))

        await offer("v=0\r\n")
        await offer(OFFER_TEMPLATE.format(ufrag="u" * HUGE))
        await ws.send(json.dumps({"eventName": "__ice_candidate", "data": {
            "socketId": target, "label": 0, "id": "0",
            "candidate": "candidate:1 1 udp 1 127.0.0.1 9 typ host x " + "y" * HUGE}}))
        await asyncio.sleep(0.5)
        await offer(OFFER_TEMPLATE.format(ufrag="Xe7Q"))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), 0.5))
            except asyncio.TimeoutError:
                continue
            seen.append(message["eventName"])
            data = message.get("data") or {}
            if message["eventName"] == "_answer" and data.get("socketId") == target:
                return True
        return False


def test_hostile_offers_do_not_stop_the_bot(signaling_server, tmp_path):
    room = "hostile"
    with evidence_on_failure(signaling_server) as evidence:
        target = evidence.add(BotProcess(signaling_server.ws_url, room, "target", tmp_path, "--tone", "440"))
        target_id = target.wait_joined()
        seen: list[str] = []
        answered = asyncio.run(hostile_member(signaling_server.ws_url, room, target_id, seen))
        assert target.process.poll() is None, f"the bot died (exit {target.process.returncode})"
        assert answered, f"the bot did not answer a well-formed offer after the crashers; events seen {seen}"

        second = evidence.add(BotProcess(signaling_server.ws_url, room, "second", tmp_path, "--tone", "660",
                                         "--camera", "card"))
        second_id = second.wait_joined()
        time.sleep(3.5)
        assert target.process.poll() is None, f"the bot died (exit {target.process.returncode})"
        second_report = second.stop()
        target_report = target.stop()

        for report, other, other_name, other_tone in ((target_report, second_id, "second", 660),
                                                      (second_report, target_id, "target", 440)):
            seen_peer = report["peers"][other]
            assert "connected" in [c["state"] for c in seen_peer["timeline"]], seen_peer["timeline"]
            card = seen_peer["video"]["testCard"]
            assert card["participant"] == bot_participant(other_name), card
            assert card["last"] - card["first"] >= 20 and card["count"] >= 20, card
            assert abs(seen_peer["audio"]["dominantFrequency"] - other_tone) < 10, seen_peer["audio"]
        # The hostile member's crashers were refused with reasons in the log, and no hostile value was copied whole.
        log = target.log_path.read_text(errors="replace")
        assert "no media section" in log, log[-4000:]
        assert "ice-ufrag" in log and "RFC 8839" in log, log[-4000:]
        assert "ignoring candidate" in log, log[-4000:]
        assert max(len(line) for line in log.splitlines()) < 2000, "a log line copied a hostile value"
        print(f"hostile peer: bot answered after the crashers; cards seen "
              f"{target_report['peers'][second_id]['video']['testCard']} / "
              f"{second_report['peers'][target_id]['video']['testCard']}")
