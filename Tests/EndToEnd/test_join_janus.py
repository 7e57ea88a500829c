"""`conftui join --sfu janus` in tmux, in a real Janus VideoRoom (Janus 1.1.2 in the emulated internet's public
namespace, testsupport.janus) with two bots publishing: the grid shows the publishers by their display names with
video in their tiles, and `l` (confirmed with `y`) leaves cleanly (the screen restored, Janus logs the session destroyed, the bots see the
join's feed go); Janus sends the low simulcast layer to its small tiles and the full one once the terminal grows
large. Janus restarts under the call: the join and the bots join the new Janus, and the grid is back with both
publishers connected and their video. On failure: the screen, every log and report, and Janus's log."""
from __future__ import annotations

import time

from testsupport.binaries import conftui_bin
from testsupport.bot import BotProcess
from testsupport.evidence import LogFile, evidence_on_failure
from testsupport.janus import JanusServer
from testsupport.netns import emulated_internet
from testsupport.reports import read_report
from testsupport.tmux import TmuxSession

ROOM = "1234"


def video_in(screen: str, x0: int) -> bool:
    """Half-block cells inside the 40-column tile starting at column x0, above the label rows."""
    return any(any(ch in "▀▄█" for ch in line[x0:x0 + 40]) for line in screen.splitlines()[:15])


def test_join_in_a_janus_room_shows_the_publishers_and_leaves_cleanly(tmp_path) -> None:
    log, report = tmp_path / "join.log", tmp_path / "join.json"
    with emulated_internet() as net, JanusServer(net, tmp_path) as janus, \
            evidence_on_failure(LogFile("join log", log, 120)) as evidence:
        evidence.add(janus)
        bots = [evidence.add(BotProcess(janus.url, ROOM, name, tmp_path, "--sfu", "janus", "--tone", str(hz),
                                        duration=120, host_candidates="all", netns=net.public))
                for name, hz in (("Grace", 550), ("Linus", 660))]
        for bot in bots:
            bot.wait_joined()
        session = TmuxSession(f"ip netns exec {net.public} {conftui_bin()} join {janus.url} --sfu janus --room {ROOM} "
                              f"--name Ada --camera card --color 256 --log {log} --report {report}", 120, 40)
        evidence.add(session, close=session.close)

        def grid(screen: str) -> bool:
            first = next((line for line in screen.splitlines() if "Ada (you)" in line), "")
            return ("Grace" in first and "Linus" in first and "connected" in first
                    and video_in(screen, 40) and video_in(screen, 80))
        screen = session.wait_for(grid, timeout=20, what="Ada's grid with Grace and Linus connected and their video")
        # The bots see the join's feed and decode it.
        for bot in bots:
            bot.wait_for_report(lambda r: any(p.get("display") == "Ada" and (p.get("video") or {}).get("framesDecoded", 0) > 20
                                              for p in (r.get("peers") or {}).values()), 20, f"{bot.name} decodes Ada")
        # Simulcast follows the tiles: at 120x40 a tile's picture is about 40x28 pixels, so Janus sends the low layer
        # (160x120); in a terminal whose tiles are wider than 160 pixels, the full one (320x240).
        def widths(report_data: dict | None) -> set:
            peers = (report_data or {}).get("peers") or {}
            return {((peers.get(bot.socket_id) or {}).get("video") or {}).get("width") for bot in bots}

        def report_shows(width: int):
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                if widths(read_report(report)) == {width}:
                    return
                time.sleep(0.25)
            raise AssertionError(f"the join did not receive {width}-pixel-wide pictures: {widths(read_report(report))}")
        report_shows(160)
        session.resize(540, 150)
        report_shows(320)
        session.resize(120, 40)
        report_shows(160)

        # Janus restarts: every session is gone. The join joins the new Janus (a second "joined" in its log) and the
        # grid comes back: both publishers (their feeds new, their names the same) connected, with video.
        janus.stop()
        janus.start()
        deadline = time.monotonic() + 20
        while log.read_text(errors="replace").count("joined Janus room") < 2:
            assert time.monotonic() < deadline, "the join did not join the restarted Janus"
            time.sleep(0.2)

        def grid_again(screen: str) -> bool:
            first = next((line for line in screen.splitlines() if "Ada (you)" in line), "")
            return grid(screen) and "disconnected" not in first and "connecting" not in first
        screen = session.wait_for(grid_again, timeout=20, what="Ada's grid with Grace and Linus again after Janus restarted")
        # The join's report names the publishers' new feeds as the grid does.
        deadline = time.monotonic() + 5
        while True:
            current = {bot.name: (bot.report_now() or {}).get("you") for bot in bots}
            peers = (read_report(report) or {}).get("peers") or {}
            if all((peers.get(feed) or {}).get("display") == name for name, feed in current.items()):
                break
            assert time.monotonic() < deadline, f"the join's report does not name {current}: {peers.keys()}"
            time.sleep(0.25)
        destroyed = janus.log_text().count("Destroying session")
        session.send("l")
        session.wait_for(lambda sc: "y" in sc and "leave" in sc.lower(), timeout=3, what="the leave question")
        session.send("y")
        assert session.wait_exit(10) == 0, screen
        assert session.modes_restored()
        # The last report, written after leaving, still names them.
        final = (read_report(report) or {}).get("peers") or {}
        assert {name: (final.get(feed) or {}).get("display") for name, feed in current.items()} == {n: n for n in current}, final.keys()
        deadline = time.monotonic() + 5
        while janus.log_text().count("Destroying session") <= destroyed and time.monotonic() < deadline:
            time.sleep(0.2)
        assert janus.log_text().count("Destroying session") == destroyed + 1, "Janus did not destroy the join's session"
        for bot in bots:
            bot.stop()
