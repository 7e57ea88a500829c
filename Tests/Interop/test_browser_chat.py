"""Two pages chat and exchange files over SkyRTC's data channel (docs/chat-and-files.md), through the chosen server.

Headless Chromium pages A and B (B the newcomer, so B makes the channel) join one room with `?say=` texts (emoji, CJK,
markup); B also has `?acceptFiles=1` and `?echo=1`, while A takes B's offers with its panel's buttons.
Checked through the page's test hook (`window.conftui.state()`): the channel's label is the original's "undefined" and
is open on both sides; every `?say=` text and a text typed into the panel arrive exactly, both ways, shown as text (no
markup made); a 5 MB file sent each way at once (`conftuiSendFile`, deterministic bytes) arrives sha256-equal to what
was sent and to the bytes computed here; an offer refused with the panel's button ends the send; an offer over 1 GiB
is refused automatically (its path and bidi override gone from the name); invalid JSON and a binary message are
dropped with the channel still open; `conftuiPing` gets B's echoes; when A leaves, B's channel is closed. On failure:
each page's state, log and console, the server's log and Chromium's output.
"""

from __future__ import annotations

import hashlib
import json
import time
import urllib.parse

from testsupport.chromium import Chromium, Page
from testsupport.evidence import evidence_on_failure
from testsupport.pages import PAGE_READY, PagesEvidence, wait_until

FILE_SIZE = 5 * 1000 * 1000
TEXTS = {"A": ["héllo 👋 你好", "<b id=bold>not bold</b> & co"], "B": ["héllo 👋 你好 from B", "第二 ✓"]}


def synthetic_bytes(length: int) -> bytes:
    """page.js's syntheticBytes: xorshift32 from 0x9e3779b9, the low byte of each state."""
    out = bytearray(length)
    x = 0x9E3779B9
    for i in range(length):
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        out[i] = x & 0xFF
    return bytes(out)


def page_url(server, room: str, name: str, *extra: tuple[str, str]) -> str:
    query = [("name", name)] + [("say", text) for text in TEXTS[name]] + list(extra)
    return f"{server.http_url}?{urllib.parse.urlencode(query)}#{room}"


def channels_open(states: list[dict]) -> bool:
    a, b = states
    return a["channels"] == {b["you"]: "open"} and b["channels"] == {a["you"]: "open"}


def texts_from(state: dict, sender: str) -> list[str]:
    return [entry["text"] for entry in state["chat"] if entry["from"] == sender]


def wait_for_page(page: Page, expression: str, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while not (value := page.evaluate(expression)):
        assert time.monotonic() < deadline, f"timed out after {timeout} s waiting until {what}"
        time.sleep(0.1)
    return value


def file_done(state: dict) -> bool:
    """The first file's final record is there (a received file's sha256 comes a moment later)."""
    return bool(state["files"]) and (state["files"][0]["state"] != "received" or bool(state["files"][0]["sha256"]))


def test_two_pages_chat_and_send_files_both_ways(signaling_server, chromium: Chromium):
    pages: list[Page] = []
    room = "chat"
    with evidence_on_failure(PagesEvidence(pages), signaling_server, chromium):
        for name, extra in (("A", ()), ("B", (("acceptFiles", "1"), ("echo", "1")))):
            pages.append(chromium.new_page(page_url(signaling_server, room, name, *extra), name, PAGE_READY))
            wait_until(pages, lambda s: s[-1]["you"] is not None, 10.0, f"{name} joins")
        a, b = pages
        states = wait_until(pages, channels_open, 20.0, "both channels open")
        a_id, b_id = states[0]["you"], states[1]["you"]
        assert b.evaluate(f"session.peers.get({json.dumps(a_id)}).channel.label") == "undefined"
        assert a.evaluate(f"session.peers.get({json.dumps(b_id)}).channel.label") == "undefined"
        assert b.evaluate(f"session.peers.get({json.dumps(a_id)}).role") == "offerer"

        # The ?say= texts, sent once each channel opened, arrive exactly and in order, both ways.
        states = wait_until(pages, lambda s: len(s[0]["chat"]) >= 2 and len(s[1]["chat"]) >= 2, 10.0,
                            "the ?say= texts arrive")
        assert texts_from(states[0], b_id) == TEXTS["B"]
        assert texts_from(states[1], a_id) == TEXTS["A"]
        # The display name where the server relays names (conftui serve), else the short id (the original).
        assert {entry["name"] for entry in states[1]["chat"]} in ({"A"}, {a_id[:8]})
        assert [entry["text"] for entry in states[0]["chatSent"]] == TEXTS["A"]
        assert all(entry["to"] == [b_id] for entry in states[0]["chatSent"])

        # Typed into the panel and sent with Enter (the form's submit).
        typed = "typed: ünïcödé 🎉 中文"
        b.evaluate(f"""(() => {{ const input = document.getElementById('chat-input');
            input.value = {json.dumps(typed)};
            document.getElementById('chat-form').requestSubmit(); return input.value; }})()""")
        states = wait_until(pages, lambda s: typed in texts_from(s[0], b_id), 5.0, "the typed text arrives")
        last_line = a.evaluate("document.querySelector('#messages li:last-child').textContent")
        assert last_line.endswith((f"B: {typed}", f"{b_id[:8]}: {typed}")), last_line
        assert b.evaluate("document.getElementById('bold') === null"), "a peer's markup must stay text"
        assert b.evaluate("document.getElementById('chat-note').textContent") == ""

        # 5 MB each way at once, every byte checked.
        expected = hashlib.sha256(synthetic_bytes(FILE_SIZE)).hexdigest()
        sent_a = a.evaluate(f"conftuiSendFile('from-a.bin', {FILE_SIZE})")
        sent_b = b.evaluate(f"conftuiSendFile('from-b.bin', {FILE_SIZE})")
        assert sent_a["sha256"] == sent_b["sha256"] == expected
        # B accepts by itself (?acceptFiles=1); A's user clicks Accept on the offer in the panel.
        offer_line = wait_for_page(a, "[...document.querySelectorAll('#messages .file')].map(e => e.textContent)"
                                   ".find(t => t.includes('from-b.bin')) || ''", 5.0, "B's offer shows on A")
        assert offer_line.startswith(("B offers from-b.bin (4.8 MiB): Accept Refuse",
                                      f"{b_id[:8]} offers from-b.bin (4.8 MiB): Accept Refuse")), offer_line
        a.evaluate("[...document.querySelectorAll('#messages button')].find(b => b.textContent === 'Accept').click()")
        states = wait_until(pages, lambda s: all(file_done(st) for st in s), 60.0, "both files arrive")
        assert states[1]["files"] == [{"from": a_id, "name": "from-a.bin", "size": FILE_SIZE, "sha256": expected,
                                       "state": "received"}]
        assert states[0]["files"] == [{"from": b_id, "name": "from-b.bin", "size": FILE_SIZE, "sha256": expected,
                                       "state": "received"}]
        states = wait_until(pages, lambda s: s[0]["filesSent"][0]["to"] == {b_id: "sent"}
                            and s[1]["filesSent"][0]["to"] == {a_id: "sent"}, 5.0, "both senders done")
        assert b.evaluate("document.querySelector('#messages a[download]').download") == "from-a.bin"

        # Refused with the panel's button: the sender's record says so, and nothing is sent.
        b.evaluate("conftuiSendFile('unwanted.bin', 1000)")
        wait_for_page(a, "[...document.querySelectorAll('#messages .file')].some(e => e.textContent.includes("
                         "'unwanted.bin') && e.querySelector('button'))", 5.0, "the second offer shows on A")
        a.evaluate("[...document.querySelectorAll('#messages .file')].find(e => e.textContent.includes('unwanted.bin'))"
                   ".querySelectorAll('button')[1].click()")
        states = wait_until(pages, lambda s: s[1]["filesSent"][1]["to"] == {a_id: "refused"}, 5.0, "B learns of it")
        assert states[0]["files"][1] == {"from": b_id, "name": "unwanted.bin", "size": 1000, "sha256": None,
                                         "state": "refused"}

        # Hostile or broken input from A's side: dropped, and the channel stays open.
        a.evaluate(f"""(() => {{ const channel = session.peers.get({json.dumps(b_id)}).channel;
            channel.send('{{not json');
            channel.send(new Uint8Array([1, 2, 3]));
            channel.send(JSON.stringify({{name: '../../.huge\u202e.iso', size: 2 ** 31, sendId: 'BIG1', type: '__file',
                                         signal: 'ask'}}));
            channel.send(JSON.stringify({{type: 'other', data: 42}}));
            return true; }})()""")
        states = wait_until(pages, lambda s: len(s[1]["files"]) == 2, 5.0, "B refuses the 2 GiB offer")
        # Shown and saved under its base name, without the bidi override and the leading dot.
        assert states[1]["files"][1] == {"from": a_id, "name": "huge.iso", "size": 2 ** 31, "sha256": None,
                                         "state": "refused"}
        states = wait_until(pages, lambda s: "42" in texts_from(s[1], a_id), 5.0, "an unknown type shows its data")
        assert states[1]["channels"] == {a_id: "open"}
        b_log = "\n".join(b.evaluate("conftui.log"))
        assert "unreadable message" in b_log and "binary message" in b_log, b_log

        # Round trips to B's echo.
        rtts = a.evaluate("conftuiPing(3)")
        assert list(rtts) == [b_id] and len(rtts[b_id]) == 3 and all(r is not None for r in rtts[b_id]), rtts
        print(f"chat round trips A -> B -> A: {[round(r, 2) for r in rtts[b_id]]} ms")

        # A leaves: B's channel to A ends closed.
        a.evaluate("document.getElementById('leave').click()")
        states = wait_until(pages, lambda s: s[1]["channels"].get(a_id) == "closed", 10.0, "B's channel closes")
        assert b.evaluate("document.getElementById('chat-send').disabled")
        assert b.evaluate("document.getElementById('chat-note').textContent") != ""
