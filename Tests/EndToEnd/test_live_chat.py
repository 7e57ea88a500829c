"""Chat and files between two `conftui join` screens and the page, live (issue #29, "Done when", end to end).

Through `conftui serve` on loopback: Ada (`conftui join` in tmux) joins first, then Bob (`conftui join` in tmux), then
a headless Chromium page (`?acceptFiles=1`) joins last, so every connection is offered by its newcomer and every
channel made the SkyRTC way. Checked: a line typed on Ada's screen (emoji, CJK) appears in Bob's chat pane under Ada's
name and in the page's chat exactly; a line from the page appears on both screens; Bob types `/send PATH`, Ada's pane
shows the offer with "a accept, r refuse", Ada presses `a`, and the file is in her --download-dir, sha256-equal to
what Bob sent (the page accepted its copy too, also sha256-equal); a second offer refused with `r` leaves nothing.
On failure: both screens, logs and reports, the page's state and console, the server log.
"""

from __future__ import annotations

import hashlib
import os
import urllib.parse

import pytest

from room_participants import JoinInTmux
from testsupport.chromium import Chromium
from testsupport.evidence import evidence_on_failure
from testsupport.pages import PAGE_READY
from testsupport.serve import conftui_serve_command, running_server
from testsupport.waiting import wait_for

ROOM = "chat-e2e"
FILE_SIZE = 2 * 1000 * 1000
ADA_SAYS = "hello from Ada 👋 你好"
PAGE_SAYS = "the page says 日本語"


def pane_text(screen: str) -> str:
    """The chat pane's column (right of its rule), its wrapped lines joined, runs of spaces as one."""
    column = [line.rsplit("│", 1)[1] for line in screen.splitlines() if "│" in line]
    return " ".join(" ".join(column).split())


def pane_has(text: str):
    return lambda screen: " ".join(text.split()) in pane_text(screen)


@pytest.fixture
def server(tmp_path):
    with running_server(conftui_serve_command(), "conftui serve", tmp_path / "server.log") as s:
        yield s


def test_two_screens_and_the_page_chat_and_share_a_file(server, tmp_path):
    payload = os.urandom(FILE_SIZE)
    sent = tmp_path / "report.bin"
    sent.write_bytes(payload)
    digest = hashlib.sha256(payload).hexdigest()
    ada_dir, bob_dir = tmp_path / "ada-downloads", tmp_path / "bob-downloads"
    flags = ("--camera", "card", "--no-audio")
    ada = JoinInTmux(server.ws_url, "Ada", tmp_path, "--room", ROOM, "--download-dir", str(ada_dir), *flags,
                     width=140, height=40)
    bob = JoinInTmux(server.ws_url, "Bob", tmp_path, "--room", ROOM, "--download-dir", str(bob_dir), *flags,
                     width=140, height=40)
    with evidence_on_failure(server) as evidence, Chromium() as browser:
        evidence.add(ada, close=ada.close)
        evidence.add(bob, close=bob.close)
        ada.wait_joined()
        bob.wait_joined()
        query = urllib.parse.urlencode([("name", "Cy"), ("say", PAGE_SAYS), ("acceptFiles", "1")])
        page = browser.new_page(f"{server.http_url}?{query}#{ROOM}", "Cy", PAGE_READY)
        evidence.add(lambda: "===== page =====\n" + str(page.evaluate("conftui.state()", timeout=5))
                     + "\n" + "\n".join(page.evaluate("conftui.log", timeout=5)))
        wait_for(lambda: len(page.evaluate("conftui.state()")["channels"]) == 2
                   and set(page.evaluate("conftui.state()")["channels"].values()) == {"open"},
                   30, "the page's channels to Ada and Bob are open")

        for screen in (ada, bob):
            screen.send("t")
            screen.wait_screen(pane_has(PAGE_SAYS), 20, f"the page's line on {screen.name}'s screen")

        # Ada types a line: Bob's pane and the page get it exactly.
        ada.send("Enter")
        ada.wait_screen(lambda sc: "│ >" in sc, 5, "Ada's input open")
        ada.send("-l", ADA_SAYS)
        ada.send("Enter")
        ada.wait_screen(pane_has(f"Ada: {ADA_SAYS}"), 10, "Ada's own line in her pane")
        bob.wait_screen(pane_has(f"Ada: {ADA_SAYS}"), 10, "Ada's line in Bob's pane")
        wait_for(lambda: any(e["text"] == ADA_SAYS for e in page.evaluate("conftui.state()")["chat"]), 10,
                   "Ada's line at the page")
        assert [e["text"] for e in page.evaluate("conftui.state()")["chat"] if e["from"] == ada.socket_id] == [ADA_SAYS]

        # Bob offers a file; Ada accepts it with `a`.
        bob.send("Enter")
        bob.wait_screen(lambda sc: "│ >" in sc, 5, "Bob's input open")
        bob.send("-l", f"/send {sent}")
        bob.send("Enter")
        ada.wait_screen(pane_has("Bob offers report.bin (2.0 MB): a accept, r refuse"), 15, "the offer on Ada's screen")
        ada.send("a")
        received = ada_dir / "report.bin"
        wait_for(lambda: received.exists() and received.stat().st_size == FILE_SIZE
                   and "saved" in ada.screen(), 30, "the file saved in Ada's download folder")
        assert hashlib.sha256(received.read_bytes()).hexdigest() == digest
        wait_for(lambda: any(f.get("state") == "received" for f in page.evaluate("conftui.state()")["files"]), 30,
                   "the page's copy")
        page_file = next(f for f in page.evaluate("conftui.state()")["files"] if f["state"] == "received")
        assert page_file["sha256"] == digest and page_file["name"] == "report.bin"
        assert not bob_dir.exists(), "Bob accepted nothing: his download folder is never made"

        # A second offer refused with `r`: nothing is written, Bob's screen says so.
        bob.send("Enter")
        bob.send("-l", f"/send {sent}")
        bob.send("Enter")
        ada.wait_screen(lambda sc: pane_text(sc).count("Bob offers report.bin") >= 2, 15, "the second offer")
        ada.send("r")
        bob.wait_screen(pane_has("Ada refused report.bin"), 15, "the refusal on Bob's screen")
        assert sorted(p.name for p in ada_dir.iterdir()) == ["report.bin"]
