"""conftui in a real Janus VideoRoom (`bot --sfu janus`): Janus 1.1.2 in the emulated internet's public namespace
(testsupport.janus), three conftui bots and an aiortc participant (testsupport.janus_aiortc) in room 1234.

Each bot publishes once and receives the three others on one subscription; each participant decodes every other at
14 frames/s or more (15 are sent) with the sender's test card read back. A fourth bot joins and leaves in the middle:
the others see it come and go and keep 14 frames/s. The room lives past 75 s, beyond the 60 s Janus gives a session
without keepalives. On failure: every participant's report and log, and Janus's log.
"""

from __future__ import annotations

import time

from testsupport.bot import BotProcess, bot_participant
from testsupport.evidence import evidence_on_failure
from testsupport.janus import JanusServer
from testsupport.janus_aiortc import JanusParticipant
from testsupport.netns import emulated_internet
from testsupport.waiting import wait_for

ROOM = 1234
MIN_FPS = 14.0
AIORTC_CARD = 77


def bot_sees(report: dict | None, feed: int, participant: int, min_fps: float = MIN_FPS) -> bool:
    """The bot's report has `feed` decoding at `min_fps` or more, with `participant`'s test card."""
    peer = ((report or {}).get("peers") or {}).get(str(feed)) or {}
    video = peer.get("video") or {}
    return video.get("framesPerSecond", 0) >= min_fps and (video.get("testCard") or {}).get("participant") == participant


def aiortc_sees(report: dict | None, feed: int, participant: int, min_fps: float = MIN_FPS) -> bool:
    seen = ((report or {}).get("feeds") or {}).get(str(feed)) or {}
    return (seen.get("fps", 0) >= min_fps and (seen.get("lastFrameAgo") or 99) < 1.0
            and (seen.get("card") or {}).get("participant") == participant)


CHAT_LINE = "Radia here 👋 你好"

def test_three_bots_and_aiortc_in_a_janus_room_with_a_fourth_coming_and_going(tmp_path) -> None:
    with emulated_internet() as net, JanusServer(net, tmp_path) as janus, evidence_on_failure() as evidence:
        started = time.monotonic()

        def bot(name: str, *extra: str) -> BotProcess:
            return evidence.add(BotProcess(janus.url, str(ROOM), name, tmp_path, "--sfu", "janus", *extra, duration=150,
                                           host_candidates="all", netns=net.public))
        bots = [bot(name) for name in ("Ada", "Grace", "Linus")]
        zoe = evidence.add(JanusParticipant(net, net.public, janus.url, ROOM, "Zoe", AIORTC_CARD, tmp_path, tone=550))
        evidence.add(janus)
        feeds = {b.name: int(b.wait_joined()) for b in bots}
        zoe_feed = zoe.wait_joined()
        cards = {name: bot_participant(name) for name in feeds}

        def everyone_decodes(who=feeds) -> bool:
            for b in bots:
                report = b.report_now()
                if not all(bot_sees(report, feed, cards[other]) for other, feed in who.items() if other != b.name):
                    return False
                if not bot_sees(report, zoe_feed, AIORTC_CARD):
                    return False
            report = zoe.report()
            return all(aiortc_sees(report, feed, cards[name]) for name, feed in who.items())
        wait_for(everyone_decodes, 30, f"the three bots and aiortc decode each other at {MIN_FPS} frames/s", bots + [zoe])

        # Each bot's report names the others by their display names (the tile names of `join`).
        for b in bots:
            peers = b.report_now()["peers"]
            assert {peers[str(feeds[o])].get("display") for o in feeds if o != b.name} == set(feeds) - {b.name}
            assert peers[str(zoe_feed)].get("display") == "Zoe"

        # A fourth bot joins: everyone gets its card; it gets everyone's; then it leaves.
        # She says a line once the others subscribe to her: Janus relays it from her publication to each of them on a
        # channel labelled with her feed id, which is how their reports name her.
        radia = bot("Radia", "--say", CHAT_LINE, "--say-after", "8")
        radia_feed = int(radia.wait_joined())
        wait_for(lambda: all(bot_sees(b.report_now(), radia_feed, bot_participant("Radia"), 5) for b in bots)
                   and aiortc_sees(zoe.report(), radia_feed, bot_participant("Radia"), 5)
                   and all(bot_sees(radia.report_now(), f, cards[n]) for n, f in feeds.items()), 30,
                   "the fourth bot and the others decode each other", bots + [zoe, radia])

        def heard(b: BotProcess) -> list[dict]:
            return [c for c in (b.report_now() or {}).get("chat", []) if c.get("from") == str(radia_feed)]
        wait_for(lambda: all(heard(b) for b in bots), 15, "the three bots get Radia's line through Janus", bots + [radia])
        for b in bots:
            assert [(c["text"], c["name"]) for c in heard(b)] == [(CHAT_LINE, "Radia")], heard(b)
        destroyed = janus.log_text().count("Destroying session")
        final = radia.stop()
        assert final["you"] == str(radia_feed), final["you"]
        # Janus saw it destroy its session (nothing left behind for the 60 s timeout to reap).
        wait_for(lambda: janus.log_text().count("Destroying session") == destroyed + 1, 5,
                   "Janus logs the fourth bot's session destroyed", bots)
        # The others keep their full rate.
        time.sleep(4.5)
        assert everyone_decodes(), "the room did not keep 14 frames/s after the fourth bot left"

        # Past 75 s from the first join: Janus would have dropped a session without keepalives at 60 s.
        time.sleep(max(0.0, 78 - (time.monotonic() - started)))
        wait_for(everyone_decodes, 10, "the room still decodes everyone after 75 s", bots + [zoe])
        assert "Timeout expired for session" not in janus.log_text(), janus.describe()
        seen_by_zoe = zoe.report() or {}
        figures = []
        for b in bots:
            peers = b.stop()["peers"]
            figures.append(f"{b.name}: " + ", ".join(f"{p.get('display')} {p['video'].get('framesPerSecond')} fps"
                                                    for p in peers.values() if p.get("display") != "Radia"))
        zoe.stop()
        figures.append("Zoe: " + ", ".join(f"{f.get('display')} {f.get('fps', 0):.1f} fps"
                                           for f in (seen_by_zoe.get("feeds") or {}).values() if not f.get("left")))
        print("\n".join(figures), f"\nroom lived {time.monotonic() - started:.0f} s")


def test_eight_bots_in_one_janus_room_decode_all_fifty_six_subscriptions(tmp_path) -> None:
    """Eight conftui bots, each publishing once and receiving seven: every one of the 56 subscriptions at 14 frames/s
    or more with the sender's test card, held over two report periods."""
    names = ["Ada", "Bea", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]
    with emulated_internet() as net, JanusServer(net, tmp_path) as janus, evidence_on_failure() as evidence:
        evidence.add(janus)
        bots = [evidence.add(BotProcess(janus.url, str(ROOM), name, tmp_path, "--sfu", "janus", duration=90,
                                        host_candidates="all", netns=net.public)) for name in names]
        feeds = {b.name: int(b.wait_joined()) for b in bots}

        def subscriptions() -> list[tuple[str, str, bool]]:
            result = []
            for b in bots:
                report = b.report_now()
                for other, feed in feeds.items():
                    if other != b.name:
                        result.append((b.name, other, bot_sees(report, feed, bot_participant(other))))
            return result
        wait_for(lambda: all(ok for _, _, ok in subscriptions()), 40, "all 56 subscriptions at 14 frames/s", bots)
        for _ in range(2):
            time.sleep(2.1)
            failing = [(a, b) for a, b, ok in subscriptions() if not ok]
            assert not failing, f"{len(failing)} of 56 subscriptions below {MIN_FPS} frames/s: {failing}"
        rates = [((b.report_now() or {}).get("peers") or {}) for b in bots]
        fps = sorted(p["video"]["framesPerSecond"] for r in rates for p in r.values())
        print(f"56 subscriptions: {len(fps)} figures, min {fps[0]} fps, median {fps[len(fps) // 2]} fps")
        for b in bots:
            b.stop()


def test_simulcast_a_small_picture_subscriber_gets_the_low_layer(tmp_path) -> None:
    """Bots publish two simulcast layers (320x240 and 160x120); a bot that shows others at 160x120
    (`--receive-size 160x120`) receives the low layer, at a third or less of the video bitrate of a bot that takes
    the full one, still at 14 frames/s with the cards read back."""
    with emulated_internet() as net, JanusServer(net, tmp_path) as janus, evidence_on_failure() as evidence:
        evidence.add(janus)

        def bot(name: str, *extra: str) -> BotProcess:
            return evidence.add(BotProcess(janus.url, str(ROOM), name, tmp_path, "--sfu", "janus", *extra, duration=90,
                                           host_candidates="all", netns=net.public))
        publishers = [bot("Ada"), bot("Grace")]
        full, small = bot("Full", "--no-video"), bot("Small", "--no-video", "--receive-size", "160x120")
        feeds = {b.name: int(b.wait_joined()) for b in publishers + [full, small]}

        def sees(report, width: int) -> bool:
            peers = (report or {}).get("peers") or {}
            return all(bot_sees(report, feeds[p.name], bot_participant(p.name))
                       and (peers[str(feeds[p.name])].get("video") or {}).get("width") == width for p in publishers)
        wait_for(lambda: sees(full.report_now(), 320) and sees(small.report_now(), 160), 30,
                   "the full subscriber decodes 320x240 and the small one 160x120, at 14 frames/s", publishers + [full, small])
        # The publishers' video bytes each subscriber received over the same 6 s window.
        def video_bytes(b: BotProcess) -> int:
            peers = (b.report_now() or {})["peers"]
            return sum(peers[str(feeds[p.name])]["video"]["bytesReceived"] for p in publishers)
        time.sleep(4)   # past the publishers' first seconds, when their estimates still ramp up
        before = {b.name: video_bytes(b) for b in (full, small)}
        time.sleep(6.2)
        kbps = {b.name: 8 * (video_bytes(b) - before[b.name]) / 6.2 / 1000 for b in (full, small)}
        print(f"video received from two publishers: full layer {kbps['Full']:.0f} kbit/s, low layer {kbps['Small']:.0f} kbit/s")
        assert sees(full.report_now(), 320) and sees(small.report_now(), 160)
        assert 0 < kbps["Small"] <= kbps["Full"] / 3, kbps
        for b in publishers + [full, small]:
            b.stop()


def test_publishers_stop_the_encoding_nobody_takes_and_start_it_for_a_newcomer(tmp_path) -> None:
    """Three bots showing others at 160x120 say so on their data channels (`__layers`): each stops encoding its full
    picture, and still decodes the two others at 14 frames/s, 160 pixels wide, cards read back. A fourth bot taking
    the full picture joins: the three start their full encodings again (at a keyframe) and it decodes them 320 pixels
    wide; when it leaves, they stop again."""
    with emulated_internet() as net, JanusServer(net, tmp_path) as janus, evidence_on_failure() as evidence:
        evidence.add(janus)

        def bot(name: str, *extra: str) -> BotProcess:
            return evidence.add(BotProcess(janus.url, str(ROOM), name, tmp_path, "--sfu", "janus", *extra, duration=90,
                                           host_candidates="all", netns=net.public))
        small = [bot(name, "--receive-size", "160x120") for name in ("Ada", "Bea", "Cy")]
        feeds = {b.name: int(b.wait_joined()) for b in small}

        def paused(b: BotProcess) -> list:
            return ((b.report_now() or {}).get("local") or {}).get("pausedVideoLayers")

        def sees_all(viewer: BotProcess, publishers: list[BotProcess], width: int) -> bool:
            report = viewer.report_now()
            peers = (report or {}).get("peers") or {}
            return all(bot_sees(report, feeds[p.name], bot_participant(p.name))
                       and (peers[str(feeds[p.name])].get("video") or {}).get("width") == width
                       for p in publishers if p is not viewer)
        wait_for(lambda: all(paused(b) == ["full"] and sees_all(b, small, 160) for b in small), 30,
                 "the three stop their full encodings and decode each other at 160x120", small)
        assert all("sending only the low encoding" in b.log_path.read_text() for b in small)

        dee = bot("Dee")
        feeds["Dee"] = int(dee.wait_joined())
        wait_for(lambda: all(paused(b) == [] for b in small) and sees_all(dee, small, 320), 20,
                 "the three send their full encodings again and Dee decodes them at 320x240", small + [dee])
        # Dee's own full picture: the three take the low one, so Dee stops it as they did.
        wait_for(lambda: paused(dee) == ["full"] and all(sees_all(b, small + [dee], 160) for b in small), 20,
                 "Dee sends only its low encoding and the three see it", small + [dee])

        dee.stop()
        wait_for(lambda: all(paused(b) == ["full"] for b in small), 15,
                 "the three stop their full encodings again once Dee left", small)
        assert all(sees_all(b, small, 160) for b in small)
        for b in small:
            b.stop()
