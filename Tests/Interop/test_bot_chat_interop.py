"""`conftui bot` chats and exchanges files over SkyRTC's data channel with peers nobody here wrote: headless Chromium on
the served page, and aiortc (testsupport.aiortc_datachannel, the sub-protocol written again from
docs/chat-and-files.md), each in both offer orders (the newcomer offers and makes the channel).

The bot runs with three `--say` texts (accented Latin with an emoji and Chinese, Japanese, an emoji ZWJ sequence),
`--send-file` of 5 MB of seeded random bytes and `--accept-files DIR`; the other side says the same three texts and
sends its own 5 MB (aiortc in chunks of 256 KiB - 256 characters, near the bot's a=max-message-size of 256 KiB).
Checked: the channel's label is SkyRTC's "undefined" and it opens on both sides; every text arrives exactly, in order,
both ways (the bot's report `chat` and `said`, the page's `chat`, aiortc's messages); each file arrives with the
SHA-256 of the bytes the test made, both ways (the bot's `files`, the saved file's bytes, and its `filesSent`; the
page's `files` and `filesSent`; aiortc's assembled data URL); when the bot leaves (SIGTERM) the other side's channel
ends `closed` (for aiortc, which here ignores `_remove_peer`, through the bot's own DTLS/SCTP closing); the bot's log
has no error or data-channel warning. And when the page navigates away while the bot receives 20 MB from it, the bot
fails that file (reason given, partial file removed), closes the connection on Chromium's abort and stays up. And the
page's `channel.close()` reaches `closed` (the bot resets its stream in return, RFC 8831 §6.7) with the connection
still up, whoever made the channel. On failure: the bot's log and report, the page's state, log and console, aiortc's
log and channel, the server's log.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import pathlib
import random
import time
import urllib.parse

import aioice.ice
import pytest

from testsupport.aiortc_media import AIORTC_TONE, PacedTone
from testsupport.aiortc_peer import AiortcPeer, loopback_host_addresses
from testsupport.bot import BotProcess
from testsupport.chromium import Chromium, Page
from testsupport.evidence import evidence_on_failure
from testsupport.pages import PAGE_READY, PagesEvidence, wait_until

TEXTS = ["héllo 👋 你好", "日本語テキスト", "👩\u200d👩\u200d👧"]
FILE_SIZE = 5 * 1000 * 1000
TRANSFER_TIMEOUT = 30.0
# What in the bot's log would mean the data channel or the messaging above it went wrong.
LOG_PROBLEMS = ("error", "data channel", "data channels", "chat: ", "failed", "refus")


def seeded_bytes(seed: int) -> bytes:
    return random.Random(seed).randbytes(FILE_SIZE)


def bot_options(tmp_path: pathlib.Path, file: bytes) -> tuple[list[str], pathlib.Path]:
    path = tmp_path / "from-bot.bin"
    path.write_bytes(file)
    downloads = tmp_path / "bot-downloads"
    options = [option for text in TEXTS for option in ("--say", text)]
    return [*options, "--send-file", str(path), "--accept-files", str(downloads)], downloads


def check_bot_side(report: dict, peer_id: str, sent: bytes, received: bytes, received_name: str,
                   downloads: pathlib.Path) -> None:
    """The bot's final report: the peer's texts, what it said, the file it got (and its bytes on disk), the file
    it sent."""
    assert [c["text"] for c in report["chat"] if c["from"] == peer_id] == TEXTS, report["chat"]
    assert [(s["text"], s["peers"]) for s in report["said"]] == [(text, 1) for text in TEXTS], report["said"]
    (got,) = report["files"]
    assert {k: got[k] for k in ("from", "name", "size", "sha256", "state")} == {
        "from": peer_id, "name": received_name, "size": FILE_SIZE, "sha256": hashlib.sha256(received).hexdigest(),
        "state": "received"}, got
    saved = pathlib.Path(got["savedAs"])
    assert saved.parent == downloads and saved.read_bytes() == received, got["savedAs"]
    (gave,) = report["filesSent"]
    assert {k: gave[k] for k in ("to", "name", "size", "sha256", "state")} == {
        "to": peer_id, "name": "from-bot.bin", "size": FILE_SIZE, "sha256": hashlib.sha256(sent).hexdigest(),
        "state": "sent"}, gave


def check_bot_log(bot: BotProcess, allowed: tuple[str, ...] = ()) -> None:
    lines = bot.log_path.read_text(errors="replace").splitlines()
    problems = [line for line in lines if any(word in line.lower() for word in LOG_PROBLEMS)
                and not any(text in line for text in allowed)]
    assert not problems, "\n".join(problems)


def bot_done(report: dict) -> bool:
    """Three texts in, and both files ended (one way or another: the assertions tell which)."""
    return (len(report["chat"]) >= len(TEXTS) and len(report["files"]) == 1 and len(report["filesSent"]) == 1
            and report["files"][0]["state"] in ("received", "refused", "failed")
            and report["filesSent"][0]["state"] in ("sent", "refused", "failed"))


# --- Chromium ------------------------------------------------------------------------------------------------------


def page_done(state: dict, bot_id: str) -> bool:
    files = state["files"]
    sent = state["filesSent"]
    return (len([c for c in state["chat"] if c["from"] == bot_id]) >= len(TEXTS) and len(files) == 1
            and (files[0]["state"] != "received" or files[0]["sha256"] is not None)
            and len(sent) == 1 and sent[0]["to"].get(bot_id) in ("sent", "refused", "failed"))


def run_with_chromium(signaling_server, chromium: Chromium, tmp_path: pathlib.Path, bot_first: bool) -> None:
    room = f"chat-chromium-{'bot-first' if bot_first else 'bot-last'}"
    bot_file, page_file = seeded_bytes(1), seeded_bytes(2)
    options, downloads = bot_options(tmp_path, bot_file)
    query = [("name", "page"), *[("say", text) for text in TEXTS], ("acceptFiles", "1")]
    url = f"{signaling_server.http_url}?{urllib.parse.urlencode(query)}#{room}"
    pages: list[Page] = []
    started = time.monotonic()
    with evidence_on_failure(PagesEvidence(pages), signaling_server, chromium) as evidence:
        if bot_first:
            bot = evidence.add(BotProcess(signaling_server.ws_url, room, "chat-bot", tmp_path, *options))
            bot.wait_joined()
            pages.append(chromium.new_page(url, "page", PAGE_READY))
        else:
            pages.append(chromium.new_page(url, "page", PAGE_READY))
            wait_until(pages, lambda s: s[0]["you"] is not None, 10, "the page joins")
            bot = evidence.add(BotProcess(signaling_server.ws_url, room, "chat-bot", tmp_path, *options))
            bot.wait_joined()
        page = pages[0]
        bot_id = bot.socket_id
        peer = f"session.peers.get({json.dumps(bot_id)})"

        (state,) = wait_until(pages, lambda s: s[0]["channels"].get(bot_id) == "open", 20, "the page's channel opens")
        page_id = state["you"]
        assert page.evaluate(f"{peer}.role") == ("offerer" if bot_first else "answerer")
        assert page.evaluate(f"{peer}.channel.label") == "undefined"
        assert page.evaluate(f"{peer}.channel.ordered") is True
        opened_after = time.monotonic() - started

        # The page's file to the bot, given as base64 so the test knows every byte.
        record = page.evaluate(f"conftuiSendFile('from-page.bin', {json.dumps(base64.b64encode(page_file).decode())})",
                               timeout=30)
        assert record["sha256"] == hashlib.sha256(page_file).hexdigest() and record["size"] == FILE_SIZE, record

        (state,) = wait_until(pages, lambda s: page_done(s[0], bot_id), TRANSFER_TIMEOUT,
                              "the page has the bot's texts and file and has sent its own")
        bot.wait_for_report(bot_done, TRANSFER_TIMEOUT, "the bot has the page's texts and file and has sent its own")
        transferred_after = time.monotonic() - started

        # The page's side.
        assert [c["text"] for c in state["chat"] if c["from"] == bot_id] == TEXTS, state["chat"]
        assert [c["text"] for c in state["chatSent"]] == TEXTS and all(c["to"] == [bot_id] for c in state["chatSent"])
        assert state["files"] == [{"from": bot_id, "name": "from-bot.bin", "size": FILE_SIZE,
                                   "sha256": hashlib.sha256(bot_file).hexdigest(), "state": "received"}]
        assert state["filesSent"][0]["to"] == {bot_id: "sent"}, state["filesSent"]

        # The bot leaves: the page's channel to it ends closed.
        report = bot.stop()
        (state,) = wait_until(pages, lambda s: s[0]["channels"].get(bot_id) == "closed", 10,
                              "the page's channel to the bot closes")
        # Leaving, the bot aborts its association (SCTP ABORT, "User-Initiated Abort" with its reason), which
        # Chromium reports as the channel's error event right before `close`; no other trouble on the page.
        page_log = page.evaluate("conftui.log")
        problems = [line for line in page_log if "dropped" in line or "failed" in line or "channel error" in line]
        assert all("channel error: OperationError: User-Initiated Abort" in line for line in problems), page_log

        # The bot's side.
        assert report["you"] == bot_id and list(report["peers"]) == [page_id], list(report["peers"])
        check_bot_side(report, page_id, bot_file, page_file, "from-page.bin", downloads)
        check_bot_log(bot)
        print(f"bot {'answers' if bot_first else 'offers'} Chromium: channel open {opened_after:.1f} s after the "
              f"first join, texts and 5 MB each way done at {transferred_after:.1f} s")


def test_chromium_offers_chat_and_files_to_the_bot(signaling_server, chromium, tmp_path):
    """The bot is in the room first: the page offers and makes the channel."""
    run_with_chromium(signaling_server, chromium, tmp_path, bot_first=True)


def test_bot_offers_chat_and_files_to_chromium(signaling_server, chromium, tmp_path):
    """The page is in the room first: the bot offers and makes the channel."""
    run_with_chromium(signaling_server, chromium, tmp_path, bot_first=False)


def test_the_page_leaving_mid_transfer_fails_the_bots_file(signaling_server, chromium, tmp_path):
    """The page offers the bot 20 MB and navigates away while the bot receives it: the bot fails that file with a
    reason and removes the partial file, its connection to the page ends `closed`, its log has no error, and it
    stays up until stopped."""
    room = "chat-chromium-page-leaves"
    downloads = tmp_path / "bot-downloads"
    pages: list[Page] = []
    with evidence_on_failure(PagesEvidence(pages), signaling_server, chromium) as evidence:
        bot = evidence.add(BotProcess(signaling_server.ws_url, room, "chat-bot", tmp_path,
                                      "--accept-files", str(downloads)))
        bot_id = bot.wait_joined()
        pages.append(chromium.new_page(f"{signaling_server.http_url}#{room}", "page", PAGE_READY))
        (state,) = wait_until(pages, lambda s: s[0]["channels"].get(bot_id) == "open", 20, "the page's channel opens")
        page_id = state["you"]
        size = 20 * 1000 * 1000   # about 20 s at the page's pace: the bot is still receiving when the page goes
        assert pages[0].evaluate(f"conftuiSendFile('big.bin', {size})", timeout=30)["to"] == {bot_id: "offered"}
        bot.wait_for_report(lambda r: r["files"] and r["files"][0]["state"] == "receiving", 10,
                            "the bot receives the page's file")
        pages[0].navigate("about:blank")
        report = bot.wait_for_report(lambda r: r["files"][0]["state"] != "receiving"
                                     and r["peers"][page_id]["timeline"][-1]["state"] == "closed", 10,
                                     "the bot ends the file and the connection")
        # Chromium aborts its association as it goes (SCTP ABORT "User-Initiated Abort: Close called") and closes its
        # DTLS; the server's word that the page left may come first (Chromium's socket can be full of the file: its
        # log shows its sends failing with EAGAIN), and then the bot closes the connection itself. Either is right.
        timeline = report["peers"][page_id]["timeline"]
        assert timeline[-1]["cause"] in ("the peer closed the DTLS association", "closed locally"), timeline
        assert bot.process.poll() is None, "the bot should stay up when a peer leaves"
        report = bot.stop()
        (got,) = report["files"]
        assert (got["from"], got["name"], got["size"], got["state"]) == (page_id, "big.bin", size, "failed"), got
        assert got.get("reason") and got.get("savedAs") is None and got.get("sha256") is None, got
        assert list(downloads.iterdir()) == [], f"a partial file was left: {list(downloads.iterdir())}"
        print(f"the page left mid-transfer: the bot's file {got['state']} ({got['reason']})")
        check_bot_log(bot, allowed=(f"from {page_id} failed: the peer left during the transfer",
                                    "data channels closed: peer aborted: user-initiated abort"))


@pytest.mark.parametrize("bot_first", [True, False], ids=["page-made-the-channel", "bot-made-the-channel"])
def test_the_page_closing_its_channel_closes_it_on_both_sides(signaling_server, chromium, tmp_path, bot_first):
    """`RTCDataChannel.close()` on the page resets its outgoing stream; the channel only reaches `closed` once the
    bot resets its own in return (RFC 8831 §6.7), whoever made the channel. The connection stays up, and the bot's
    log shows nothing wrong."""
    room = f"chat-chromium-channel-close-{'bot-first' if bot_first else 'bot-last'}"
    pages: list[Page] = []
    with evidence_on_failure(PagesEvidence(pages), signaling_server, chromium) as evidence:
        url = f"{signaling_server.http_url}#{room}"
        if bot_first:
            bot = evidence.add(BotProcess(signaling_server.ws_url, room, "chat-bot", tmp_path, "--say", TEXTS[0]))
            bot.wait_joined()
            pages.append(chromium.new_page(url, "page", PAGE_READY))
        else:
            pages.append(chromium.new_page(url, "page", PAGE_READY))
            wait_until(pages, lambda s: s[0]["you"] is not None, 10, "the page joins")
            bot = evidence.add(BotProcess(signaling_server.ws_url, room, "chat-bot", tmp_path, "--say", TEXTS[0]))
            bot.wait_joined()
        bot_id = bot.socket_id
        peer = f"session.peers.get({json.dumps(bot_id)})"
        wait_until(pages, lambda s: [c["text"] for c in s[0]["chat"]] == TEXTS[:1], 20, "the bot's text arrives")
        closing = time.monotonic()
        assert pages[0].evaluate(f"{peer}.channel.close(), {peer}.channel.readyState") == "closing"
        (state,) = wait_until(pages, lambda s: s[0]["channels"][bot_id] == "closed", 5, "the page's channel closes")
        closed_after = time.monotonic() - closing
        assert state["peers"][bot_id]["connectionState"] == "connected", state["peers"][bot_id]
        report = bot.stop()
        assert [change["state"] for change in report["peers"][state["you"]]["timeline"]] == \
            ["connecting", "connected", "closed"], report["peers"][state["you"]]["timeline"]
        check_bot_log(bot)
        print(f"the page's channel closed {closed_after:.3f} s after close()")


# --- aiortc --------------------------------------------------------------------------------------------------------


@pytest.fixture
def aioice_on_loopback(monkeypatch):
    monkeypatch.setattr(aioice.ice, "get_host_addresses", loopback_host_addresses)


async def until(condition, timeout: float, what: str, client: asyncio.Future) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert not client.done(), f"aiortc's client ended: {client.exception() if not client.cancelled() else ''}"
        assert time.monotonic() < deadline, f"timed out after {timeout} s waiting until {what}"
        await asyncio.sleep(0.05)


def run_with_aiortc(signaling_server, tmp_path: pathlib.Path, bot_first: bool, chunk_characters: int) -> None:
    room = f"chat-aiortc-{'bot-first' if bot_first else 'bot-last'}"
    bot_file, aiortc_file = seeded_bytes(3), seeded_bytes(4)
    options, downloads = bot_options(tmp_path, bot_file)

    async def scenario(evidence) -> tuple[dict, AiortcPeer, BotProcess, dict]:
        # A tone only (aiortc's VP8 encoder would take the CPU the transfers need); `_remove_peer` ignored, so the
        # channel can only close through what the bot itself sends when it leaves.
        peer = evidence.add(AiortcPeer(signaling_server.ws_url, room, tracks=lambda: [PacedTone(AIORTC_TONE)],
                                       data_channel=True, say=TEXTS, send_files=[("from-aiortc.bin", aiortc_file)],
                                       close_on_remove=False, chunk_characters=chunk_characters))
        stop = asyncio.Event()
        timings = {"started": time.monotonic()}
        if bot_first:
            bot = evidence.add(BotProcess(signaling_server.ws_url, room, "chat-bot", tmp_path, *options))
            await asyncio.to_thread(bot.wait_joined)
        client = asyncio.ensure_future(peer.run(stop))
        try:
            if not bot_first:
                await until(lambda: peer.you is not None, 10, "aiortc joins", client)
                bot = evidence.add(BotProcess(signaling_server.ws_url, room, "chat-bot", tmp_path, *options))
                await asyncio.to_thread(bot.wait_joined)
            await until(lambda: bot.socket_id in peer.channels and peer.channels[bot.socket_id].ready_state == "open",
                        20, "aiortc's channel to the bot opens", client)
            timings["open"] = time.monotonic()
            channel = peer.channels[bot.socket_id]

            def aiortc_done() -> bool:
                return (len(channel.chat) >= len(TEXTS) and len(channel.files) == 1
                        and channel.files[0].state != "receiving" and len(channel.files_sent) == 1
                        and channel.files_sent[0].state not in ("offered", "sending"))

            await until(aiortc_done, TRANSFER_TIMEOUT, "aiortc has the bot's texts and file and has sent its own",
                        client)
            await asyncio.to_thread(bot.wait_for_report, bot_done, TRANSFER_TIMEOUT,
                                    "the bot has aiortc's texts and file and has sent its own")
            timings["transferred"] = time.monotonic()
            report = await asyncio.to_thread(bot.stop)
            timings["stopped"] = time.monotonic()
            await until(lambda: channel.ready_state == "closed", 10, "aiortc's channel to the bot closes", client)
            timings["closed"] = time.monotonic()
            return report, peer, bot, timings
        finally:
            stop.set()
            await asyncio.wait_for(client, 10)

    with evidence_on_failure(signaling_server) as evidence:
        report, peer, bot, timings = asyncio.run(scenario(evidence))
        channel = peer.channels[bot.socket_id]
        print(peer.summary())
        # aiortc's side: SkyRTC's label, whoever made the channel; the texts; the bot's file, byte for byte.
        assert peer.remote().role == ("offerer" if bot_first else "answerer")
        assert channel.label == "undefined" and channel.channel.ordered
        assert channel.chat == TEXTS, channel.chat
        assert channel.said == TEXTS
        (got,) = channel.files
        assert (got.name, got.size, got.state) == ("from-bot.bin", FILE_SIZE, "received"), got.to_json()
        assert got.data == bot_file, got.to_json()
        (gave,) = channel.files_sent
        assert gave.state == "sent", gave.to_json()
        assert not channel.dropped, channel.dropped
        # Closed by the bot's leaving (aiortc ignored `_remove_peer` and closed nothing itself).
        assert [state for state, _ in channel.states][-1] == "closed", channel.states

        # The bot's side.
        assert report["you"] == bot.socket_id and list(report["peers"]) == [peer.you], list(report["peers"])
        check_bot_side(report, peer.you, bot_file, aiortc_file, "from-aiortc.bin", downloads)
        check_bot_log(bot)
        start = timings["started"]
        print(f"bot {'answers' if bot_first else 'offers'} aiortc: channel open at {timings['open'] - start:.1f} s, "
              f"texts and 5 MB each way done at {timings['transferred'] - start:.1f} s, aiortc's channel closed "
              f"{timings['closed'] - timings['stopped']:.2f} s after the bot ended")


def test_aiortc_offers_chat_and_files_to_the_bot(signaling_server, tmp_path, aioice_on_loopback):
    """The bot is in the room first: aiortc offers and makes the channel."""
    run_with_aiortc(signaling_server, tmp_path, bot_first=True, chunk_characters=256 * 1024 - 256)


def test_bot_offers_chat_and_files_to_aiortc(signaling_server, tmp_path, aioice_on_loopback):
    """aiortc is in the room first: the bot offers and makes the channel, aiortc takes it (`on("datachannel")`)."""
    run_with_aiortc(signaling_server, tmp_path, bot_first=False, chunk_characters=256 * 1024 - 256)
