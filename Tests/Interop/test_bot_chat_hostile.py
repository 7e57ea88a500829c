"""A hostile member on the data channel: aiortc, in the room with a `conftui bot --accept-files DIR`, sends through
its real SkyRTC channel every bad input of issue #29 and then one good chat line. The bot must drop each bad message
with a logged reason and nothing else: the good line still arrives, the channel stays open, the call goes on (the
bot keeps receiving aiortc's tone), nothing is written outside DIR, a partial file is removed, and its report keeps
printable Unicode exactly while escaping control characters.

The inputs: text that is not JSON; binary messages (empty and not); an empty text; JSON nested 10,000 deep; a
message at the bot's a=max-message-size (256 KiB) of junk; chunks of a transfer never offered; offers named
`../../etc/passwd`, with NUL and terminal escapes, with a right-to-left override, `..`; negative, fractional, huge
(2^60) and string sizes; an offer that sends more data than it announced; a flood of 40 offers at once (4 are taken,
the rest refused); chat carrying terminal escapes. (A 300 KB message cannot be sent: aiortc, like Chromium, refuses
to send above the bot's a=max-message-size; the unit tests feed one to the messaging core directly.)
"""

from __future__ import annotations

import asyncio
import base64
import json
import pathlib
import time

import aioice.ice
import pytest

from testsupport.aiortc_media import AIORTC_TONE, PacedTone
from testsupport.aiortc_peer import AiortcPeer, loopback_host_addresses
from testsupport.bot import BotProcess
from testsupport.evidence import evidence_on_failure

PREFIX = "data:application/octet-stream;base64,"
ESCAPES = "\x1b[2J\x1b]0;owned\x07 evil \u202e"


@pytest.fixture
def aioice_on_loopback(monkeypatch):
    monkeypatch.setattr(aioice.ice, "get_host_addresses", loopback_host_addresses)


def ask(send_id: str, name, size) -> str:
    return json.dumps({"name": name, "size": size, "sendId": send_id, "type": "__file", "signal": "ask"})


def chunk(send_id: str, data: str, last: bool) -> str:
    return json.dumps({"type": "__file", "signal": "chunk", "sendId": send_id, "data": data, "last": last})


def files_under(root: pathlib.Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def test_bad_input_on_the_data_channel_is_dropped_and_the_call_goes_on(signaling_server, tmp_path, aioice_on_loopback):
    downloads = tmp_path / "downloads"
    before = files_under(tmp_path)

    async def scenario(evidence):
        peer = evidence.add(AiortcPeer(signaling_server.ws_url, "hostile-chat", tracks=lambda: [PacedTone(AIORTC_TONE)],
                                       data_channel=True, close_on_remove=False))
        bot = evidence.add(BotProcess(signaling_server.ws_url, "hostile-chat", "target", tmp_path,
                                      "--accept-files", str(downloads), "--max-file-size", "1M"))
        await asyncio.to_thread(bot.wait_joined)
        stop = asyncio.Event()
        client = asyncio.ensure_future(peer.run(stop))
        try:
            deadline = time.monotonic() + 20
            while not (bot.socket_id in peer.channels and peer.channels[bot.socket_id].ready_state == "open"):
                assert time.monotonic() < deadline and not client.done(), "aiortc's channel to the bot did not open"
                await asyncio.sleep(0.05)
            raw = peer.channels[bot.socket_id].channel
            bad: list = [
                "not json {", b"", b"\x00\x01\x02 binary", "", "[" * 10_000 + "]" * 10_000,
                "x" * (256 * 1024),
                chunk("NEVER", PREFIX + "AAAA", True),
                ask("NEG", "neg.bin", -5), ask("FRAC", "frac.bin", 1.5), ask("HUGE", "huge.bin", 2 ** 60),
                ask("STR", "str.bin", "12"),
                ask("TRAV", "../../etc/passwd", 4), chunk("TRAV", PREFIX + base64.b64encode(b"root").decode(), True),
                ask("NUL", "a\x00b\x1b[2J.txt", 3), chunk("NUL", PREFIX + base64.b64encode(b"abc").decode(), True),
                ask("RTL", "\u202etxt.exe", 2), chunk("RTL", PREFIX + base64.b64encode(b"hi").decode(), True),
                ask("DOTS", "..", 1), chunk("DOTS", PREFIX + base64.b64encode(b"!").decode(), True),
                ask("LIAR", "liar.bin", 10), chunk("LIAR", PREFIX + base64.b64encode(bytes(100)).decode(), True),
                json.dumps({"type": "__msg", "data": ESCAPES}),
            ]
            for message in bad:
                raw.send(message)
            await asyncio.sleep(1.5)
            # A flood of offers, each naming a file of one byte: the per-peer limit takes 4 at a time.
            for i in range(40):
                raw.send(ask(f"FLOOD{i}", f"flood-{i}.bin", 1))
            await asyncio.sleep(1.5)
            raw.send(json.dumps({"type": "__msg", "data": "still here ✓"}))
            report = await asyncio.to_thread(
                bot.wait_for_report, lambda r: any(c["text"] == "still here ✓" for c in r.get("chat", [])), 20,
                "the good line after the bad ones")
            tone_before = report["peers"][peer.you]["audio"]["framesDecoded"]
            await asyncio.sleep(2.5)
            report = await asyncio.to_thread(bot.stop)
            return peer, bot, report, raw, tone_before
        finally:
            stop.set()
            await asyncio.wait_for(client, 10)

    with evidence_on_failure(signaling_server) as evidence:
        peer, bot, report, raw, tone_before = asyncio.run(scenario(evidence))
        # The channel stayed open through all of it, and the call went on (audio kept arriving).
        channel = peer.channels[bot.socket_id]
        assert [s for s, _ in channel.states if s == "closed"] == [] or channel.states[-1][0] == "closed"
        assert report["peers"][peer.you]["audio"]["framesDecoded"] > tone_before + 50, report["peers"][peer.you]["audio"]
        # Chat: the escapes arrive escaped in the report, printable Unicode exactly; the good line arrives.
        texts = [c["text"] for c in report["chat"]]
        assert texts[-1] == "still here ✓", texts
        assert "\\u{1B}[2J\\u{1B}]0;owned\\u{7} evil \\u{202E}" in texts, texts
        assert not any("\x1b" in t for t in texts)
        # Files: the traversal and odd names saved under safe base names inside DIR; the liar failed and left nothing.
        saved = files_under(downloads)
        outside = files_under(tmp_path) - before - {f"downloads/{f}" for f in saved}
        assert not any(not p.startswith(("bot-", "target", "server")) for p in outside), outside
        assert "passwd" in saved and not (tmp_path.parent / "etc").exists()
        assert all("/" not in name and not name.startswith(".") and "\x00" not in name and "\u202e" not in name
                   for name in saved), saved
        states = {f["name"]: f["state"] for f in report["files"]}
        assert states.get("liar.bin") == "failed", report["files"]
        assert "liar.bin" not in saved
        assert not any(name in states and states[name] == "received" for name in ("neg.bin", "frac.bin", "huge.bin", "str.bin"))
        flood = [f for f in report["files"] if f["name"].startswith("flood-")]
        assert len(flood) <= 4 + 4, flood   # at most the limit at a time (the first few may finish and free a place)
        # Every drop has its reason in the log.
        log = bot.log_path.read_text(errors="replace")
        for needle in ("binary message", "dropped a message"):
            assert needle in log, needle
