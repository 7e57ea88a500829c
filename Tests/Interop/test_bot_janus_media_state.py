"""Mute through a real Janus VideoRoom (Janus 1.1.2 in the emulated internet's public namespace, testsupport.janus):
two conftui bots in room 1234, Ada mutes 15 s after joining and unmutes at 30 s (`--mute-at`, `--unmute-at`: the
`m` key's path).

Janus tells no one about `configure`'s `send: false`; conftui also sets the mids' descriptions ("conftui audio
muted" / "conftui audio on"), which Janus re-announces to the room (Sources/Signaling/Janus/README.md). Grace's report
must show Ada's `media.audioMuted` false, then true, then false again, with her video on throughout; and the audio
frames Grace decodes from Ada must stop while Ada is muted (Janus no longer relays them) and resume after.

The test reads every report Grace writes (every 2 s) and judges the sequence afterwards, by the reports' own
`elapsed`, so a slow start or a late report moves the windows instead of failing the test.
"""

from __future__ import annotations

import itertools
import time

from testsupport.bot import BotProcess, bot_participant
from testsupport.evidence import evidence_on_failure
from testsupport.janus import JanusServer
from testsupport.netns import emulated_internet
from testsupport.waiting import wait_for

ROOM = 1234
MUTE_AT = 15
UNMUTE_AT = 30
# 20 ms frames: 50 a second while Ada sends. While muted at most a few arrive (those in flight at the mute).
FRAMES_PER_SECOND = 50


def peer_of(report: dict | None, feed: str) -> dict:
    return ((report or {}).get("peers") or {}).get(feed) or {}


def media_of(report: dict | None, feed: str) -> dict:
    return peer_of(report, feed).get("media") or {}


def audio_frames(report: dict | None, feed: str) -> int:
    return (peer_of(report, feed).get("audio") or {}).get("framesDecoded", 0)


def test_a_bots_mute_reaches_the_other_through_janus_and_its_audio_stops_and_resumes(tmp_path) -> None:
    with emulated_internet() as net, JanusServer(net, tmp_path) as janus, evidence_on_failure() as evidence:
        evidence.add(janus)
        ada = evidence.add(BotProcess(janus.url, str(ROOM), "Ada", tmp_path, "--sfu", "janus", "--mute-at", str(MUTE_AT),
                                      "--unmute-at", str(UNMUTE_AT), duration=60, host_candidates="all", netns=net.public))
        grace = evidence.add(BotProcess(janus.url, str(ROOM), "Grace", tmp_path, "--sfu", "janus", duration=60,
                                        host_candidates="all", netns=net.public))
        ada_feed = ada.wait_joined()
        grace.wait_joined()

        # Every distinct report of Grace's: (elapsed, Ada's announced audioMuted, videoOn, audio frames decoded).
        samples: list[tuple[float, bool | None, bool | None, int]] = []
        deadline = time.monotonic() + UNMUTE_AT + 25
        while time.monotonic() < deadline:
            for bot in (ada, grace):
                assert bot.process.poll() is None, f"{bot.name} exited\n{bot.describe()}"
            report = grace.report_now()
            if report is not None and (not samples or report["elapsed"] > samples[-1][0]):
                media = media_of(report, ada_feed)
                samples.append((report["elapsed"], media.get("audioMuted"), media.get("videoOn"),
                                audio_frames(report, ada_feed)))
                states = [s[1] for s in samples]
                # Done 5 s into the unmuted state that follows a muted one.
                if True in states:
                    after = [s for s in samples[states.index(True):] if s[1] is False]
                    if after and samples[-1][0] - after[0][0] >= 5:
                        break
            time.sleep(0.2)
        shown = "\n".join(f"  {e:6.1f} s  audioMuted={m}  videoOn={v}  frames={f}" for e, m, v, f in samples)

        # The states in order: unmuted (nothing announced reads as sending), muted, unmuted; video on throughout.
        runs: list[bool | None] = []
        for _, muted, _, _ in samples:
            if muted is not None and (not runs or runs[-1] != muted):
                runs.append(muted)
        assert runs == [False, True, False], f"Ada's audio state at Grace went {runs}:\n{shown}"
        assert all(v is True for _, m, v, _ in samples if m is not None), f"Ada's video not on throughout:\n{shown}"

        # The runs of consecutive reports in one announced state (reports with none yet left out).
        groups = [list(g) for _, g in itertools.groupby([s for s in samples if s[1] is not None], key=lambda s: s[1])]

        def window(muted: bool, nth: int) -> list[tuple[float, bool | None, bool | None, int]]:
            """The samples of the nth run (0-based) of reports in state `muted`."""
            return [g for g in groups if g[0][1] == muted][nth]

        def rate(run: list) -> tuple[int, float]:
            return run[-1][3] - run[0][3], run[-1][0] - run[0][0]

        # Before: the last 2 s or more of reports with Ada's audio flowing.
        before_run = [s for s in window(False, 0) if s[3] > 0]
        assert len(before_run) >= 2, f"too few reports with Ada's audio before the mute:\n{shown}"
        before, span_before = rate(before_run)
        assert span_before >= 1.9 and before >= 0.8 * FRAMES_PER_SECOND * span_before, \
            f"{before} frames in {span_before:.1f} s before the mute:\n{shown}"
        # While muted (from the first report that shows it, when Janus had already stopped relaying): silence.
        muted_run = window(True, 0)
        during, span_during = rate(muted_run)
        assert span_during >= 6, f"the mute showed for only {span_during:.1f} s of reports:\n{shown}"
        assert during <= 5, f"{during} of Ada's audio frames decoded in {span_during:.1f} s while she was muted:\n{shown}"
        # After: from the second report that shows her unmuted (the first may straddle the restart), audio flows.
        after_run = window(False, 1)[1:]
        after, span_after = rate(after_run)
        assert span_after >= 3.9 and after >= 0.8 * FRAMES_PER_SECOND * span_after, \
            f"{after} frames in {span_after:.1f} s after the unmute:\n{shown}"

        # Ada's own report: her microphone is on again at the end; Grace never muted, so Ada shows her unmuted.
        final_ada = ada.stop()
        final_grace = grace.stop()
        assert final_ada["local"]["muted"] is False, final_ada["local"]
        grace_feed = final_grace["you"]
        assert media_of(final_ada, grace_feed) == {"audioMuted": False, "videoOn": True}, media_of(final_ada, grace_feed)
        print(f"Ada's audio at Grace: {before} frames in {span_before:.1f} s before the mute, {during} in "
              f"{span_during:.1f} s while muted, {after} in {span_after:.1f} s after")


def test_bots_that_join_muted_one_after_another_see_each_other(tmp_path) -> None:
    """Janus announces a publisher before its PeerConnection is up and refuses subscriptions to it until then ("No
    such feed"); bots that join muted (their descriptions set at once) met that every time. Each refused feed must be
    asked for again until Janus carries it: four bots joining muted, a second apart, all decode each other."""
    with emulated_internet() as net, JanusServer(net, tmp_path) as janus, evidence_on_failure() as evidence:
        evidence.add(janus)
        bots = []
        for name in ("Ada", "Bea", "Cy", "Dee"):
            bots.append(evidence.add(BotProcess(janus.url, str(ROOM), name, tmp_path, "--sfu", "janus", "--muted",
                                                duration=60, host_candidates="all", netns=net.public)))
            bots[-1].wait_joined()
            time.sleep(1)
        feeds = {b.name: b.socket_id for b in bots}

        def everyone_sees_everyone() -> bool:
            for bot in bots:
                report = bot.report_now()
                for other in bots:
                    if other is bot:
                        continue
                    video = peer_of(report, feeds[other.name]).get("video") or {}
                    card = video.get("testCard") or {}
                    if video.get("framesPerSecond", 0) < 10 or card.get("participant") != bot_participant(other.name):
                        return False
            return True

        wait_for(everyone_sees_everyone, 25, "the four muted bots decode each other's test cards", bots)
