"""The browser page and a terminal tell each other their mute and video state (`__media_state`, docs/skyrtc-protocol.md
§9), through `conftui serve`.

`conftui join` (in tmux, 180 columns) and the page (headless Chromium, fake devices) meet in one room. The page's
Mute button must make the terminal's tile for the page say "muted"; the terminal's `v` must reach the page's test
hook as `media.videoOn === false` and its tile title as "video off"; both revert. On failure: the page's state and
log, the terminal's screen and log, the server's log and Chromium's output."""

from __future__ import annotations

from testsupport.binaries import conftui_bin
from testsupport.chromium import Chromium
from testsupport.evidence import LogFile, evidence_on_failure
from testsupport.pages import PAGE_READY, PagesEvidence, wait_until
from testsupport.tmux import TmuxSession


def label_of(screen: str, name: str) -> str:
    for line in screen.splitlines():
        at = line.find(name + " ·")
        if at >= 0:
            return line[at:].split("   ")[0]
    return ""


def test_page_and_terminal_exchange_mute_and_video_state(signaling_server, chromium: Chromium, tmp_path):
    room = "media-state"
    pages = []
    with evidence_on_failure(PagesEvidence(pages), signaling_server, chromium) as evidence:
        log = tmp_path / "join.log"
        term = TmuxSession(f"{conftui_bin()} join {signaling_server.ws_url} --room {room} --name Jay --tone 440 "
                           f"--host-candidates loopback --color 256 --log {log}", 180, 40)
        evidence.add(term, close=term.close)
        evidence.add(LogFile("join log", log, 40))
        term.wait_for(lambda sc: "1 peer" not in sc and "room " in sc, timeout=10, what="Jay joined")
        page = chromium.new_page(f"{signaling_server.http_url}?name=Pia#{room}", "Pia", PAGE_READY)
        pages.append(page)
        (state,) = wait_until(pages, lambda s: s[0]["you"] is not None and len(s[0]["peers"]) == 1
                              and next(iter(s[0]["peers"].values()))["connectionState"] == "connected",
                              20.0, "the page connects to Jay")
        (jay_id,) = state["peers"]
        term.wait_for(lambda sc: "Pia · connected" in sc, timeout=15, what="Jay sees Pia connected")
        # Jay announced its state after joining: the page knows it (both on), not guessed.
        wait_until(pages, lambda s: s[0]["peers"][jay_id]["media"] == {"audioMuted": False, "videoOn": True}, 5.0,
                   "the page knows Jay's initial state")

        page.evaluate("document.getElementById('mute').click()")
        term.wait_for(lambda sc: "muted" in label_of(sc, "Pia"), timeout=3, what="Jay's screen shows Pia muted")
        term.send("v")
        wait_until(pages, lambda s: s[0]["peers"][jay_id]["media"] == {"audioMuted": False, "videoOn": False}, 3.0,
                   "the page learns Jay's video is off")
        title = page.evaluate("[...document.querySelectorAll('*')].some(e => e.children.length === 0 && "
                              "/Jay · video off/.test(e.textContent))")
        assert title, "the page's tile for Jay says video off"

        page.evaluate("document.getElementById('mute').click()")
        term.send("v")
        term.wait_for(lambda sc: "Pia · connected" in sc and "muted" not in label_of(sc, "Pia"), timeout=3,
                      what="Pia unmuted on Jay's screen")
        wait_until(pages, lambda s: s[0]["peers"][jay_id]["media"]["videoOn"] is True, 3.0, "Jay's video on again")
        term.send("q")
        assert term.wait_exit(10) == 0

