"""A Janus room outlives a lost session (`bot --sfu janus`): Janus 1.1.2 in the emulated internet's public namespace
(testsupport.janus), Ada and Grace there too, Linus behind a full-cone NAT (testsupport.netns).

1. Linus's host moves to another network mid-call, as a laptop moves from Wi-Fi to a phone's hotspot: its address and
   its NAT change, and its WebSocket to Janus dies without a close, so Janus would keep its session (a frozen Linus in
   the room) until its 60 s session timeout. Within a second Linus notices that its address went, destroys the lost
   session from a new connection and joins again as a new publisher from the new network: Ada and Grace see the old
   feed leave and the new one decode at 14 frames/s or more with Linus's test card, Linus decodes them again, and
   Ada's and Grace's pictures of each other never stop.
2. Janus restarts (every WebSocket closes, every session is gone): the three join the new Janus with backoff and
   decode each other again, cards read back.

On failure: the bots' logs and reports, and Janus's log.
"""

from __future__ import annotations

import re
import time

from testsupport.bot import BotProcess, bot_participant
from testsupport.evidence import evidence_on_failure
from testsupport.janus import JanusServer
from testsupport.netns import emulated_internet
from testsupport.waiting import wait_for

ROOM = "1234"
MIN_FPS = 14.0
NAMES = ("Ada", "Grace", "Linus")


def decodes(report: dict | None, feed: str | None, name: str) -> bool:
    """`report`'s bot decodes feed `feed`, named `name`, at MIN_FPS or more with `name`'s test card, and the feed has
    not left (a report keeps the last figures of the feeds that left, with `leftAt`)."""
    peer = ((report or {}).get("peers") or {}).get(feed) or {}
    video = peer.get("video") or {}
    return (peer.get("display") == name and "leftAt" not in peer and video.get("framesPerSecond", 0) >= MIN_FPS
            and (video.get("testCard") or {}).get("participant") == bot_participant(name))


def test_a_janus_participant_that_loses_its_session_joins_again(tmp_path) -> None:
    with emulated_internet() as net, JanusServer(net, tmp_path) as janus, evidence_on_failure() as evidence:
        evidence.add(janus)
        first, second = net.add_site("full-cone"), net.add_site("full-cone")
        where = {"Ada": net.public, "Grace": net.public, "Linus": first.client}
        bots = {name: evidence.add(BotProcess(janus.url, ROOM, name, tmp_path, "--sfu", "janus", duration=90,
                                              host_candidates="all", netns=where[name]))
                for name in NAMES}
        feeds = {name: b.wait_joined() for name, b in bots.items()}

        def everyone_decodes(current: dict[str, str]) -> bool:
            for name, b in bots.items():
                report = b.report_now()
                if not all(decodes(report, current[other], other) for other in NAMES if other != name):
                    return False
            return True
        wait_for(lambda: everyone_decodes(feeds), 30, f"the three decode each other at {MIN_FPS} frames/s", list(bots.values()))

        # 1. Linus's host moves to the second network.
        linus = bots["Linus"]
        old_linus, old_address = feeds["Linus"], first.lan_address
        moved_at = time.monotonic()
        net.move(first, second)

        def linus_back() -> bool:
            you = (linus.report_now() or {}).get("you")
            if you in (None, old_linus):
                return False
            if not everyone_decodes({**feeds, "Linus": you}):
                return False
            # The old feed left the room: for the others it is a feed that left, not a second Linus.
            return all("leftAt" in (b.report_now()["peers"].get(old_linus) or {}) for b in (bots["Ada"], bots["Grace"]))
        wait_for(linus_back, 20, "Linus joins again from the new network, everyone decodes it, its old feed left",
                 list(bots.values()))
        back_after = time.monotonic() - moved_at
        log = linus.log_path.read_text(errors="replace")
        assert f'gone ["{old_address}"]' in log, "Linus did not notice its address went"
        # The lost session was destroyed at Linus's word from the new network, not left to Janus's 60 s timeout.
        lost = re.search(r"Janus: our lost session (\d+): destroyed", log)
        assert lost, "Linus did not destroy its lost session"
        assert f"Destroying session {lost.group(1)};" in janus.log_text(), janus.describe()
        assert "Timeout expired for session" not in janus.log_text(), janus.describe()
        # Ada and Grace's own pictures of each other did not stop meanwhile.
        for me, other in (("Ada", "Grace"), ("Grace", "Ada")):
            video = bots[me].report_now()["peers"][feeds[other]]["video"]
            assert video["longestFreeze"] < 1.0, (me, other, video)
        feeds["Linus"] = linus.report_now()["you"]

        # 2. Janus restarts: every session is gone with it.
        restarted_at = time.monotonic()
        janus.stop()
        janus.start()
        janus_back = time.monotonic() - restarted_at

        def all_rejoined() -> bool:
            yous = {name: (b.report_now() or {}).get("you") for name, b in bots.items()}
            if any(you in (None, feeds[name]) for name, you in yous.items()):
                return False
            return everyone_decodes(yous)
        wait_for(all_rejoined, 30, "the three join the restarted Janus and decode each other again", list(bots.values()))
        everyone_back = time.monotonic() - restarted_at
        for b in bots.values():
            log = b.log_path.read_text(errors="replace")
            assert "joining Janus room 1234 again in" in log, b.name
        reports = {name: b.stop() for name, b in bots.items()}
        assert all(r["you"] != feeds[name] for name, r in reports.items()), reports
        print(f"Linus decoded by everyone {back_after:.1f} s after its move; Janus restarted in {janus_back:.1f} s, "
              f"everyone decoded again {everyone_back:.1f} s after the restart began")
