"""Real browsers in one room: headless Chromium pages load the served page and must see and hear each other.

Each page is a tab of one headless Chromium with the fake camera and microphone; signaling goes through the
`signaling_server` fixture (conftui serve, or the reference SkyRTC server), media goes peer to peer over local
addresses only. The page's own test hook (`window.conftui.state()`, built from `getStats()`) is the witness.
On failure the test prints every page's state, `conftui.log`, console, the server log and Chromium's output.
"""

from __future__ import annotations

import json
import socket
import time

from testsupport.chromium import Chromium, Page
from testsupport.evidence import evidence_on_failure
from testsupport.pages import FIRST_MEDIA_TIMEOUT, PAGE_READY, PagesEvidence, open_pages, states_of, wait_until

# Growth of inbound totalAudioEnergy over one second that means sound, not silence. Measured here: silence
# (Opus of zeros) about 1e-9/s, the synthetic tone about 6e-3/s, Chromium's fake microphone about 0.2/s.
AUDIBLE_ENERGY = 1e-4


def receives_media(peer: dict) -> bool:
    return (peer["connectionState"] == "connected" and peer["framesDecoded"] > 0 and peer["frameWidth"] > 0
            and peer["frameHeight"] > 0 and peer["audioPacketsReceived"] > 0)


def full_mesh_with_media(states: list[dict]) -> bool:
    ids = {state["you"] for state in states}
    for state in states:
        others = ids - {state["you"]}
        if set(state["peers"]) != others or not all(receives_media(state["peers"][i]) for i in others):
            return False
    return True


def is_local_address(address: str) -> bool:
    """True if this host owns `address` (binding to it works), i.e. traffic to it never leaves the machine."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    with socket.socket(family, socket.SOCK_DGRAM) as probe:
        try:
            probe.bind((address, 0))
        except OSError:
            return False
    return True


def assert_local_pairs(states: list[dict]) -> None:
    for state in states:
        for peer_id, peer in state["peers"].items():
            pair = peer["selectedPair"]
            assert pair, f"{state['you']} has no selected candidate pair with {peer_id}"
            for endpoint in pair.split(" -> "):
                address = endpoint.rsplit(":", 1)[0].strip("[]")
                assert is_local_address(address), f"selected pair {pair} uses non-local address {address}"


def click(page: Page, button_id: str) -> None:
    page.evaluate(f"document.getElementById({json.dumps(button_id)}).click()")


def assert_pair_sees_and_hears(server, browser: Chromium, room: str) -> None:
    pages: list[Page] = []
    started = time.monotonic()
    with evidence_on_failure(PagesEvidence(pages), server, browser):
        pages += open_pages(browser, f"{server.http_url}#{room}", ["A", "B"])
        first = wait_until(pages, full_mesh_with_media, FIRST_MEDIA_TIMEOUT, "both decode video and receive audio")
        a, b = first
        assert a["room"] == b["room"] == room
        assert a["media"] == b["media"] == "camera"   # Chromium's fake camera, not the synthetic fallback
        assert list(a["peers"]) == [b["you"]] and list(b["peers"]) == [a["you"]]
        # The newcomer (B) offered; A answered (SkyRTC rule).
        assert a["peers"][b["you"]]["role"] == "answerer" and b["peers"][a["you"]]["role"] == "offerer"
        assert_local_pairs(first)
        time.sleep(1.0)
        second = states_of(pages)
        for before, after in zip(first, second):
            (peer_id, old), = before["peers"].items()
            new = after["peers"][peer_id]
            assert new["connectionState"] == "connected"
            assert new["framesDecoded"] >= old["framesDecoded"] + 5, f"video stalled: {old} -> {new}"
            assert new["audioPacketsReceived"] >= old["audioPacketsReceived"] + 10, f"audio stalled: {old} -> {new}"
            # Not just packets: sound (the fake microphone's beeps; Chromium runs with --mute-audio, so levels
            # are measured without playing anything aloud).
            assert new["totalAudioEnergy"] > old["totalAudioEnergy"] + AUDIBLE_ENERGY, f"silence: {old} -> {new}"
            assert (new["frameWidth"], new["frameHeight"]) == (320, 240)
        for page in pages:   # the page is self-contained: nothing but itself and the signaling socket
            assert set(page.requests) <= {f"{server.http_url}#{room}", server.http_url, server.ws_url}, page.requests
            assert server.ws_url in page.requests, page.requests
        print(f"media flowing both ways {time.monotonic() - started:.1f} s after start; "
              f"pairs: {[p['selectedPair'] for s in second for p in s['peers'].values()]}")


def test_two_browsers_see_and_hear_each_other(signaling_server, chromium):
    assert_pair_sees_and_hears(signaling_server, chromium, "pair")


def test_two_browsers_through_the_patched_reference_server(reference_server_with, chromium):
    # The patched server (tuyaohui's copy) forwards the candidates' `id` (sdpMid) too: the page must use it.
    assert_pair_sees_and_hears(reference_server_with("--patched"), chromium, "patched")


def test_leave_removes_the_peer_and_rejoin_reconnects(signaling_server, chromium):
    pages: list[Page] = []
    with evidence_on_failure(PagesEvidence(pages), signaling_server, chromium):
        pages += open_pages(chromium, signaling_server.http_url + "#leave", ["A", "B"])
        a, b = pages
        wait_until(pages, full_mesh_with_media, FIRST_MEDIA_TIMEOUT, "both receive media")
        click(b, "mute")
        click(b, "video")
        assert b.evaluate("""[document.getElementById('mute').textContent, document.getElementById('video').textContent,
            document.querySelector('.tile.self .state').textContent]""") == ["Unmute", "Video on", "muted · video off"]
        click(b, "leave")
        states = wait_until(pages, lambda s: s[0]["peers"] == {} and s[1]["signaling"] == "left", 5.0,
                            "A drops B after B leaves")
        assert b.evaluate("document.querySelectorAll('.tile').length") == 0
        assert a.evaluate("document.querySelectorAll('.tile').length") == 1   # only A's own tile is left
        assert "left" in b.evaluate("document.getElementById('notice').textContent")
        assert b.evaluate("!document.getElementById('rejoin').hidden")
        old_b = states[1]["you"]
        click(b, "rejoin")
        states = wait_until(pages, full_mesh_with_media, FIRST_MEDIA_TIMEOUT, "B is back with media both ways")
        assert states[1]["you"] != old_b, "a rejoin is a new WebSocket, so the server gives a new id"
        # Another fragment is another room: B leaves this one and joins that one, alone.
        b.evaluate("location.hash = '#elsewhere'")
        states = wait_until(pages, lambda s: s[0]["peers"] == {} and s[1]["room"] == "elsewhere"
                            and s[1]["signaling"] == "joined" and s[1]["peers"] == {}, 5.0, "B moves to #elsewhere")


def tile_layout(page: Page) -> list[dict]:
    return page.evaluate("""[...document.querySelectorAll('#grid .tile')].map(tile => {
        const r = tile.getBoundingClientRect();
        return {name: tile.querySelector('.name').textContent, left: Math.round(r.left), top: Math.round(r.top),
                width: Math.round(r.width), height: Math.round(r.height)};
    })""")


def test_four_peers_are_tiled_three_per_row(signaling_server, chromium):
    pages: list[Page] = []
    names = ["A", "B", "C", "D"]
    with evidence_on_failure(PagesEvidence(pages), signaling_server, chromium):
        pages += open_pages(chromium, signaling_server.http_url + "#grid", names)
        for page in pages:
            page.set_viewport(1000, 700)
        states = wait_until(pages, full_mesh_with_media, 30.0, "all 4 peers decode each other (6 connections)")
        ids = [state["you"] for state in states]
        for page, state in zip(pages, states):
            tiles = tile_layout(page)
            assert len(tiles) == 4, tiles
            # Own tile first, then the others in the order they joined.
            expected = [state["you"][:8]] + [i[:8] for i in ids if i != state["you"]]
            assert [t["name"].split(" ")[-1] for t in tiles] == expected, (tiles, expected)
            assert tiles[0]["name"].startswith("you")
            first_row, second_row = tiles[:3], tiles[3:]
            assert len({t["top"] for t in first_row}) == 1, f"first three tiles share a row: {tiles}"
            assert [t["left"] for t in first_row] == sorted(t["left"] for t in first_row), tiles
            assert second_row[0]["top"] >= first_row[0]["top"] + first_row[0]["height"], f"4th tile wraps: {tiles}"
            assert second_row[0]["left"] == first_row[0]["left"], f"4th tile starts the second row: {tiles}"
            assert all(t["width"] == first_row[0]["width"] for t in tiles), tiles


def test_a_browser_without_camera_sends_a_synthetic_picture_and_tone(signaling_server, chromium):
    # A second Chromium with no fake devices: getUserMedia finds no camera and no microphone.
    deviceless = Chromium(omit_flags=("--use-fake-device-for-media-stream",))
    pages: list[Page] = []
    try:
        with evidence_on_failure(PagesEvidence(pages), signaling_server, deviceless):
            pages += open_pages(chromium, signaling_server.http_url + "#synthetic", ["camera"])
            pages += open_pages(deviceless, signaling_server.http_url + "#synthetic", ["synthetic"])
            camera, synthetic = wait_until(pages, full_mesh_with_media, FIRST_MEDIA_TIMEOUT, "media both ways")
            assert camera["media"] == "camera"
            assert synthetic["media"] == "synthetic"
            assert synthetic["mediaDescription"] == "synthetic picture + synthetic tone"
            from_synthetic = camera["peers"][synthetic["you"]]
            assert (from_synthetic["frameWidth"], from_synthetic["frameHeight"]) == (320, 240)
            time.sleep(1.0)
            later = states_of(pages)[0]["peers"][synthetic["you"]]
            assert later["framesDecoded"] >= from_synthetic["framesDecoded"] + 5, (from_synthetic, later)
            assert later["audioPacketsReceived"] >= from_synthetic["audioPacketsReceived"] + 10, (from_synthetic, later)
            assert later["totalAudioEnergy"] > from_synthetic["totalAudioEnergy"] + AUDIBLE_ENERGY, (
                "the tone is silent", from_synthetic, later)
    finally:
        deviceless.close()


# Holds getUserMedia until the test calls window.releaseMedia(): makes "signaling before media" deterministic.
GATED_GET_USER_MEDIA = """
(() => {
  const original = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
  let release;
  const gate = new Promise(resolve => { release = resolve; });
  window.releaseMedia = () => release();
  navigator.mediaDevices.getUserMedia = constraints => gate.then(() => original(constraints));
})();
"""


def test_a_newcomer_whose_camera_is_slow_offers_only_to_the_earlier_peers(signaling_server, chromium):
    """The original client's race: `_new_peer` between `_peers` and getUserMedia made both sides offer (glare).

    B is in the room; A joins with its camera held back; C joins while A still has no media. A must offer to B
    only, and answer C's offer once its media is there; everyone ends up with media both ways.
    """
    pages: list[Page] = []
    url = signaling_server.http_url + "#slowcam"
    with evidence_on_failure(PagesEvidence(pages), signaling_server, chromium):
        pages += open_pages(chromium, url, ["B"])
        a = chromium.new_page(None, "A")
        a.call("Page.addScriptToEvaluateOnNewDocument", {"source": GATED_GET_USER_MEDIA})
        a.navigate(url, PAGE_READY)
        pages.append(a)
        wait_until(pages, lambda s: s[1]["you"] is not None, 10.0, "A joins")
        pages += open_pages(chromium, url, ["C"])[-1:]
        b_state, a_state, c_state = wait_until(
            pages, lambda s: len(s[1]["peers"]) == 2 and len(s[2]["peers"]) == 2, 10.0, "A hears of C")
        assert a_state["media"] is None, "A's media must still be held back here, or this tests nothing"
        a.evaluate("window.releaseMedia()")
        b_state, a_state, c_state = wait_until(pages, full_mesh_with_media, FIRST_MEDIA_TIMEOUT, "media everywhere")
        assert a_state["peers"][b_state["you"]]["role"] == "offerer"
        assert a_state["peers"][c_state["you"]]["role"] == "answerer"
        assert c_state["peers"][a_state["you"]]["role"] == "offerer"
        offers_by_a = [line for line in a.evaluate("conftui.log") if "offered to" in line]
        assert offers_by_a == [offers_by_a[0]] and b_state["you"][:8] in offers_by_a[0], offers_by_a
