"""The browser page in Janus mode (issue #30): headless Chromium and two aiortc participants in one Janus VideoRoom.

A real Janus (testsupport.janus, config Tests/Janus/config) runs in the emulated internet's public namespace, the page
is served there by `conftui serve --host 100.64.0.1` (`SIGNALING=reference`: by the reference server, which reads the
page's files on every request), and Chromium runs in that namespace too. The page is opened as
`http://100.64.0.1:PORT/?janus=ws://100.64.0.1:8188/&room=1234&name=Ada`: an insecure origin, so it sends its
synthetic picture and tone. Two aiortc participants (testsupport.janus_aiortc: alice, bob) join room 1234.

The page must show both participants' tiles with their display names and decode their video (frames decoded rising,
10 frames/s or more by its own `fps`), both participants must decode the page's video at 10 frames/s or more, and when
bob leaves his tile must go from the page while alice and the page keep decoding each other. The page asks for
nothing but itself and Janus's WebSocket. On failure: the page's state, log and console, Chromium's output, the
participants' reports and logs, the page server's log and Janus's log.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
import time
import urllib.parse

from testsupport.binaries import TESTS, conftui_bin
from testsupport.chromium import Chromium, Page
from testsupport.evidence import evidence_on_failure
from testsupport.janus import JanusServer
from testsupport.janus_aiortc import JanusParticipant
from testsupport.netns import PUBLIC_ADDRESS, connect_in, emulated_internet
from testsupport.pages import PAGE_READY, PagesEvidence
from testsupport.serve import ServerProcess

ROOM = 1234
MIN_FPS = 10.0
TILE_NAMES = "[...document.querySelectorAll('.tile:not(.self) .name')].map(e => e.textContent).sort()"


def page_server_in(net, workdir) -> ServerProcess:
    """`conftui serve` (or, with SIGNALING=reference, the reference server) on the public namespace's bridge."""
    if os.environ.get("SIGNALING", "").strip().lower() == "reference":
        server = (sys.executable, str(TESTS / "Interop" / "skyrtc_reference_server.py"), "--host", PUBLIC_ADDRESS,
                  "--port", "0", "--verbose")
        description = "reference SkyRTC server (public namespace)"
    else:
        server = (conftui_bin(), "serve", "--port", "0", "--host", PUBLIC_ADDRESS)
        description = "conftui serve (public namespace)"
    return ServerProcess(("ip", "netns", "exec", net.public, *server), description, workdir / "serve.log").start()


def create_room(janus: JanusServer, room: int, **options) -> dict:
    """Creates a VideoRoom room over Janus's API (a session of its own, destroyed after; the room stays)."""
    from websockets.sync.client import connect

    def call(ws, body: dict) -> dict:
        body = dict(body, transaction=secrets.token_hex(6))
        ws.send(json.dumps(body))
        while True:
            answer = json.loads(ws.recv(5))
            if answer.get("transaction") == body["transaction"] and answer.get("janus") != "ack":
                return answer
    sock = connect_in(janus.namespace, janus.address, janus.port)
    with connect(janus.url, sock=sock, subprotocols=["janus-protocol"], open_timeout=5, close_timeout=2) as ws:
        session = call(ws, {"janus": "create"})["data"]["id"]
        handle = call(ws, {"janus": "attach", "session_id": session, "plugin": "janus.plugin.videoroom"})["data"]["id"]
        created = call(ws, {"janus": "message", "session_id": session, "handle_id": handle,
                            "body": {"request": "create", "room": room, **options}})
        call(ws, {"janus": "destroy", "session_id": session})
    return created["plugindata"]["data"]


def state_of(page: Page) -> dict:
    return page.evaluate("conftui.state()")


def wait_for(what: str, timeout: float, condition, page: Page, *participants: JanusParticipant):
    """Polls `condition(page state)` until it returns something true; the last state goes into the failure."""
    deadline = time.monotonic() + timeout
    while True:
        for p in participants:
            assert p.process.poll() is None, f"{p.display} exited while waiting until {what}"
        state = state_of(page)
        result = condition(state)
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(0.25)


def feed_in(report: dict | None, feed: str) -> dict:
    return ((report or {}).get("feeds") or {}).get(feed) or {}


def decodes_page(participant: JanusParticipant, page_feed: str) -> bool:
    seen = feed_in(participant.report(), page_feed)
    return seen.get("fps", 0) >= MIN_FPS and (seen.get("lastFrameAgo") or 99) < 1.0


def test_page_in_a_janus_room_meets_aiortc_participants(tmp_path) -> None:
    started = time.monotonic()
    pages: list[Page] = []
    with emulated_internet() as net, JanusServer(net, tmp_path) as janus, Chromium(netns=net.public) as chromium:
        with evidence_on_failure(PagesEvidence(pages), chromium) as evidence:
            # alice is there before the page (its subscriber `join`), bob comes after it (a `subscribe` and an
            # `updated` offer on the live subscription).
            server = page_server_in(net, tmp_path)
            evidence.add(server, close=server.stop)
            evidence.add(janus)

            def participant(name: str, number: int, tone: float) -> JanusParticipant:
                # Its evidence before Janus's: it leaves (and writes its last report) before Janus stops.
                joining = JanusParticipant(net, net.public, janus.url, ROOM, name, number, tmp_path, tone=tone)
                evidence.witnesses.insert(evidence.witnesses.index(janus), joining)
                return joining
            alice = participant("alice", 1, 440)
            a = str(alice.wait_joined())

            query = urllib.parse.urlencode({"janus": janus.url, "room": ROOM, "name": "Ada"})
            url = f"{server.http_url}?{query}"
            pages.append(chromium.new_page(url, "Ada", PAGE_READY))
            page = pages[0]
            joined = wait_for("the page joins the Janus room", 10, lambda s: s["you"] and s, page)
            assert joined["mode"] == "janus" and joined["room"] == str(ROOM) and joined["signaling"] == "joined"
            me = joined["you"]
            bob = participant("bob", 2, 660)
            b = str(bob.wait_joined())

            def both_decoded(state: dict):
                peers = state["peers"]
                return (set(peers) == {a, b} and all(peers[f]["framesDecoded"] > 0 and peers[f]["fps"] >= MIN_FPS
                                                     for f in (a, b)) and state)
            first = wait_for(f"the page decodes alice and bob at {MIN_FPS} frames/s", 20, both_decoded, page,
                             alice, bob)
            assert first["peers"][a]["display"] == "alice" and first["peers"][b]["display"] == "bob", first["peers"]
            assert page.evaluate(TILE_NAMES) == ["alice", "bob"]
            assert page.evaluate("document.querySelectorAll('.tile.self').length") == 1
            assert (first["peers"][a]["frameWidth"], first["peers"][a]["frameHeight"]) == (320, 240)

            deadline = time.monotonic() + 20
            while not (decodes_page(alice, me) and decodes_page(bob, me)):
                assert time.monotonic() < deadline, f"alice and bob do not decode the page's video at {MIN_FPS} frames/s"
                time.sleep(0.25)
            for p in (alice, bob):
                assert feed_in(p.report(), me).get("display") == "Ada"
            print(f"page and participants decode each other {time.monotonic() - started:.1f} s after start")

            time.sleep(1.0)
            second = state_of(page)
            for feed in (a, b):
                gained = second["peers"][feed]["framesDecoded"] - first["peers"][feed]["framesDecoded"]
                assert gained >= MIN_FPS, f"the page's video from {feed} stalled: {gained} frames in 1+ s"
                assert second["peers"][feed]["audioPacketsReceived"] > first["peers"][feed]["audioPacketsReceived"]

            final = bob.stop()
            assert final and final.get("ended"), "bob did not leave cleanly"
            assert decodes_page(alice, me)
            wait_for("bob's tile leaves the page", 10, lambda s: set(s["peers"]) == {a}, page, alice)
            assert page.evaluate(TILE_NAMES) == ["alice"]
            later = wait_for("the page still decodes alice", 5,
                             lambda s: s["peers"][a]["fps"] >= MIN_FPS and s, page, alice)
            assert decodes_page(alice, me), "alice stopped decoding the page after bob left"

            # carol comes after bob's sections were freed: Janus may give her bob's mids (new SSRCs); the page's
            # tile and figures must follow the latest `streams` list, not the mid.
            carol_started = time.monotonic()
            carol = participant("carol", 3, 880)
            c = str(carol.wait_joined())
            bob_mids = second["peers"][b]["mids"]
            with_carol = wait_for(f"the page decodes carol at {MIN_FPS} frames/s", 15,
                                  lambda s: set(s["peers"]) == {a, c} and s["peers"][c]["fps"] >= MIN_FPS
                                  and s["peers"][a]["fps"] >= MIN_FPS and s, page, alice, carol)
            assert page.evaluate(TILE_NAMES) == ["alice", "carol"]
            assert with_carol["peers"][c]["display"] == "carol"
            # Only carol's own frames count as hers (15 a second since she started), none of bob's on the same mid.
            carol_frames = with_carol["peers"][c]["framesDecoded"]
            assert carol_frames <= 15 * (time.monotonic() - carol_started) + 5, f"carol: {carol_frames} frames"
            print(f"bob's mids {bob_mids}, carol's {with_carol['peers'][c]['mids']}")
            later = with_carol
            assert later["janus"]["error"] is None, later["janus"]
            # The page is self-contained: nothing but itself and Janus's WebSocket.
            assert set(page.requests) <= {url, janus.url}, page.requests
            print(f"passed in {time.monotonic() - started:.1f} s; the page answered "
                  f"{later['janus']['offersAnswered']} offers ({later['janus']['postponed']} postponed)")


def page_url(server: ServerProcess, janus: JanusServer, room: int, name: str, pin: str | None = None) -> str:
    query = {"janus": janus.url, "room": room, "name": name, **({"pin": pin} if pin is not None else {})}
    return f"{server.http_url}?{urllib.parse.urlencode(query)}"


def test_pages_in_a_janus_room_see_mute_state_and_janus_errors(tmp_path) -> None:
    """Two pages: the first creates room 4321 with a PIN (426, then `create`), the second joins with it; one page's
    Mute and Video off (`configure` with `send: false`) show on the other's tile as "muted" and "video off" (from the
    packets that stop: Janus sends no event), and go when switched back. Chat typed into one page arrives exactly in
    the other under the sender's name (relayed by Janus from the publisher's data channel), and back; files are
    refused there. A page with a wrong PIN shows Janus's 433, a page in a full room (one publisher) its 432, in the
    page, its log and its state; so does a page with no Janus at its URL, or no room number."""
    started = time.monotonic()
    pages: list[Page] = []
    with emulated_internet() as net, JanusServer(net, tmp_path) as janus, Chromium(netns=net.public) as chromium:
        with evidence_on_failure(PagesEvidence(pages), chromium) as evidence:
            server = page_server_in(net, tmp_path)
            evidence.add(server, close=server.stop)
            evidence.add(janus)
            for name in ("Ada", "Bo"):
                pages.append(chromium.new_page(page_url(server, janus, 4321, name, "sesame"), name, PAGE_READY))
                wait_for(f"{name} joins room 4321", 10, lambda s: s["you"], pages[-1])
            ada, bo = pages
            first = state_of(ada)
            assert first["janus"]["createdRoom"] is True, first["janus"]
            bo_feed = state_of(bo)["you"]

            def bo_as_ada_sees_him(state: dict):
                peer = state["peers"].get(bo_feed)
                return peer if peer and peer["fps"] >= MIN_FPS and peer["audioPacketsReceived"] > 0 else None
            seen = wait_for("Ada decodes Bo", 15, bo_as_ada_sees_him, ada)
            assert seen["display"] == "Bo" and seen["media"] == {"audioMuted": False, "videoOn": True}, seen
            assert ada.evaluate(TILE_NAMES) == ["Bo"]

            def bo_media(expected: dict, title: str):
                def check(state: dict):
                    peer = state["peers"].get(bo_feed) or {}
                    return peer.get("media") == expected and ada.evaluate(TILE_NAMES) == [title]
                return check
            for button, expected, title in (("mute", {"audioMuted": True, "videoOn": True}, "Bo · muted"),
                                            ("video", {"audioMuted": True, "videoOn": False}, "Bo · muted · video off"),
                                            ("mute", {"audioMuted": False, "videoOn": False}, "Bo · video off"),
                                            ("video", {"audioMuted": False, "videoOn": True}, "Bo")):
                bo.evaluate(f"document.getElementById('{button}').click()")
                wait_for(f"Ada's tile of Bo says {title!r} after Bo's {button}", 8, bo_media(expected, title), ada)

            chat_started = time.monotonic()
            ada_feed = first["you"]
            for sender, receiver, sender_feed, sender_name in ((ada, bo, ada_feed, "Ada"), (bo, ada, bo_feed, "Bo")):
                # Each page's `chat` holds what it received: the one line from the other.
                text = f"hello 👋 你好 from {sender_name} <b id=bold>!</b>"
                wait_for(f"{sender_name} can send chat", 5,
                         lambda s: s["janus"]["channel"] == "open"
                         and not sender.evaluate("document.getElementById('chat-send').disabled"), sender)
                # Janus relays to a subscription only after the subscriber opened its own channel there.
                wait_for("the receiver's subscriber channel is open", 5,
                         lambda s: s["janus"]["subscriberChannel"] == "open", receiver)
                sender.evaluate(f"""(() => {{ const input = document.getElementById('chat-input');
                    input.value = {json.dumps(text)};
                    document.getElementById('chat-form').requestSubmit(); }})()""")
                got = wait_for(f"{sender_name}'s typed chat arrives", 5, lambda s: s["chat"] and s, receiver)
                received = [(c["from"], c["name"], c["text"]) for c in got["chat"]]
                assert received == [(sender_feed, sender_name, text)], got["chat"]
                assert got["channels"].get(sender_feed) == "open", got["channels"]
                sent = state_of(sender)["chatSent"]
                assert [(c["to"], c["text"]) for c in sent] == [([got["you"]], text)], sent
                line = receiver.evaluate("document.querySelector('#messages li:last-child').textContent")
                assert line.endswith(f"{sender_name}: {text}"), line
                assert receiver.evaluate("document.getElementById('bold') === null"), "a peer's markup must stay text"
            assert ada.evaluate("document.getElementById('file-send').disabled")
            assert "mesh rooms only" in ada.evaluate("document.getElementById('chat-note').textContent")
            assert ada.evaluate("conftuiSendFile('x.bin', 10)") is None
            print(f"chat both ways in {time.monotonic() - chat_started:.1f} s")

            pages.append(chromium.new_page(page_url(server, janus, 4321, "Eve", "guess"), "Eve", PAGE_READY))
            eve = pages[-1]
            failed = wait_for("Eve's wrong PIN fails", 10, lambda s: s["signaling"] == "failed" and s, eve)
            assert failed["janus"]["error"]["code"] == 433, failed["janus"]
            shown = eve.evaluate("document.getElementById('error').textContent")
            assert "433" in shown and "wrong or missing PIN" in shown, shown
            assert any("433" in line for line in eve.evaluate("conftui.log"))
            assert eve.evaluate("document.querySelectorAll('.tile').length") == 0

            assert create_room(janus, 5555, publishers=1).get("videoroom") == "created"
            eve.navigate(page_url(server, janus, 5555, "Eve"), PAGE_READY)
            wait_for("Eve publishes in room 5555", 10, lambda s: s["janus"]["publisherConnection"] == "connected", eve)
            bo.navigate(page_url(server, janus, 5555, "Bo"), PAGE_READY)
            full = wait_for("Bo finds room 5555 full", 10, lambda s: s["signaling"] == "failed" and s, bo)
            assert full["janus"]["error"]["code"] == 432, full["janus"]
            assert "432" in bo.evaluate("document.getElementById('error').textContent")

            # No Janus there, and no room number: said as clearly.
            eve.navigate(f"{server.http_url}?janus=ws://{PUBLIC_ADDRESS}:9/&room=1234&name=Eve", PAGE_READY)
            gone = wait_for("Eve finds no Janus", 10, lambda s: s["signaling"] == "disconnected" and s, eve)
            assert "could not connect to Janus" in gone["janus"]["error"]["text"], gone["janus"]
            bo.navigate(f"{server.http_url}?janus={urllib.parse.quote(janus.url)}&room=lobby", PAGE_READY)
            bad = wait_for("Bo's room is no number", 5, lambda s: s["signaling"] == "failed" and s, bo)
            assert "room number" in bo.evaluate("document.getElementById('error').textContent"), bad["janus"]
            print(f"passed in {time.monotonic() - started:.1f} s")


PAGE_LINE = "the page says 日本語 👋"
BOT_LINE = "Linus here 你好 👋"

def test_page_and_conftui_bots_in_a_janus_room_see_each_other(tmp_path) -> None:
    """Headless Chromium's page and two conftui bots (`--sfu janus`) in one Janus room: the page shows the bots'
    tiles by name and decodes their video (320x240: a browser keeps the full simulcast layer) at 10 frames/s or more,
    and each bot decodes the page's video at 10 frames/s or more and names it by its display; the page's Mute shows
    in the bots' reports and a bot's mute on the page's tile; chat both ways: a line typed in the page reaches both
    bots' reports under the page's feed and name, and Linus's `--say` line the page's chat under his."""
    from testsupport.bot import BotProcess
    pages: list[Page] = []
    with emulated_internet() as net, JanusServer(net, tmp_path) as janus, Chromium(netns=net.public) as chromium:
        with evidence_on_failure(PagesEvidence(pages), chromium) as evidence:
            server = page_server_in(net, tmp_path)
            evidence.add(server, close=server.stop)
            bots = [evidence.add(BotProcess(janus.url, str(ROOM), name, tmp_path, "--sfu", "janus", *extra, duration=60,
                                            host_candidates="all", netns=net.public))
                    for name, extra in (("Grace", ("--mute-at", "12")), ("Linus", ("--say", BOT_LINE, "--say-after", "12")))]
            evidence.add(janus)
            feeds = {b.name: b.wait_joined() for b in bots}
            pages.append(chromium.new_page(page_url(server, janus, ROOM, "Ada"), "Ada", PAGE_READY))
            page = pages[0]
            me = wait_for("the page joins the Janus room", 10, lambda s: s["you"], page)

            def page_decodes_bots(state: dict):
                peers = state["peers"]
                # Janus may start a subscription on the low layer and move up at the full one's next keyframe.
                return (all(f in peers and peers[f]["fps"] >= MIN_FPS
                            and (peers[f]["frameWidth"], peers[f]["frameHeight"]) == (320, 240) for f in feeds.values())
                        and state)
            state = wait_for(f"the page decodes both bots at {MIN_FPS} frames/s, 320x240", 30, page_decodes_bots, page)
            assert page.evaluate(TILE_NAMES) == ["Grace", "Linus"]
            sizes = {f: (state["peers"][f]["frameWidth"], state["peers"][f]["frameHeight"]) for f in feeds.values()}
            assert all(size == (320, 240) for size in sizes.values()), sizes
            for bot in bots:
                bot.wait_for_report(lambda r: ((r.get("peers") or {}).get(me) or {}).get("display") == "Ada"
                                    and (r["peers"][me].get("video") or {}).get("framesPerSecond", 0) >= MIN_FPS,
                                    20, f"{bot.name} decodes the page at {MIN_FPS} frames/s")
            # Mute both ways, said in the stream descriptions (conftui's convention): the page's Mute reaches the
            # bots' reports, Grace's `--mute-at` reaches the page's tile.
            page.evaluate("document.getElementById('mute').click()")
            for bot in bots:
                bot.wait_for_report(lambda r: ((r.get("peers") or {}).get(me) or {}).get("media", {}).get("audioMuted") is True,
                                    10, f"{bot.name} sees the page muted")
            grace = feeds["Grace"]
            wait_for("the page shows Grace muted", 25, lambda s: (s["peers"].get(grace) or {}).get("media", {}).get("audioMuted") is True,
                     page)
            assert "Grace · muted" in page.evaluate(TILE_NAMES)
            # Chat through Janus between the page and conftui's own client, both ways.
            wait_for("the page can send chat", 5, lambda s: s["janus"]["channel"] == "open"
                     and not page.evaluate("document.getElementById('chat-send').disabled"), page)
            page.evaluate(f"""(() => {{ const input = document.getElementById('chat-input');
                input.value = {json.dumps(PAGE_LINE)};
                document.getElementById('chat-form').requestSubmit(); }})()""")
            for bot in bots:
                bot.wait_for_report(lambda r: [(c["name"], c["text"]) for c in r.get("chat", []) if c["from"] == me]
                                    == [("Ada", PAGE_LINE)], 10, f"{bot.name} gets the page's line")
            linus = feeds["Linus"]
            got = wait_for("the page gets Linus's line", 10, lambda s: any(c["from"] == linus for c in s["chat"]) and s, page)
            assert [(c["name"], c["text"]) for c in got["chat"] if c["from"] == linus] == [("Linus", BOT_LINE)], got["chat"]
            for bot in bots:
                bot.stop()
