"""Two `conftui bot`s in one room through the signaling server: the conftui↔conftui path of the whole binary.

Each bot's JSON report must show the other's test card (its participant code, counters advancing) and tone; a bot
started with `--muted --no-video` must be silence and no picture at the other end. Stopped with SIGINT and SIGTERM.
"""

from __future__ import annotations

import signal
import time

from testsupport.bot import BotProcess, bot_participant
from testsupport.evidence import evidence_on_failure


def wait_connected_media(seconds: float) -> None:
    time.sleep(seconds)   # the bots run on their own; their reports tell what happened


def test_two_bots_see_and_hear_each_other(signaling_server, tmp_path):
    with evidence_on_failure(signaling_server) as evidence:
        first = evidence.add(BotProcess(signaling_server.ws_url, "pair", "first", tmp_path, "--tone", "440"))
        first_id = first.wait_joined()
        second = evidence.add(BotProcess(signaling_server.ws_url, "pair", "second", tmp_path, "--tone", "660",
                                         "--camera", "card"))
        second_id = second.wait_joined()
        wait_connected_media(3.0)
        second_report = second.stop(signal.SIGINT)
        first_report = first.stop()
        for report, me, other, other_name, other_tone, role in (
                (first_report, first_id, second_id, "second", 660, "answerer"),
                (second_report, second_id, first_id, "first", 440, "offerer")):
            assert report["you"] == me
            seen = report["peers"][other]
            assert seen["role"] == role
            assert "connected" in [c["state"] for c in seen["timeline"]], seen["timeline"]
            assert seen["timeToConnected"] < 2.0, seen["timeline"]
            card = seen["video"]["testCard"]
            assert card["participant"] == bot_participant(other_name), card
            assert card["last"] - card["first"] >= 20 and card["count"] >= 20, card
            assert seen["video"]["freezes"] == 0, seen["video"]
            assert abs(seen["audio"]["dominantFrequency"] - other_tone) < 10, seen["audio"]
            assert seen["transport"]["selectedPair"].startswith("127.0.0.1:"), seen["transport"]
        assert second_report["endReason"] == "signal 2" and first_report["endReason"] == "signal 15"
        print(f"bot pair: offerer connected in {second_report['peers'][first_id]['timeToConnected'] * 1000:.0f} ms; "
              f"cards seen {first_report['peers'][second_id]['video']['testCard']} / "
              f"{second_report['peers'][first_id]['video']['testCard']}")


def test_muted_bot_without_video_is_silence_and_no_picture(signaling_server, tmp_path):
    with evidence_on_failure(signaling_server) as evidence:
        listener = evidence.add(BotProcess(signaling_server.ws_url, "quiet", "listener", tmp_path))
        listener.wait_joined()
        quiet = evidence.add(BotProcess(signaling_server.ws_url, "quiet", "quiet", tmp_path, "--muted", "--no-video"))
        quiet_id = quiet.wait_joined()
        time.sleep(2.5)
        listener_report = listener.stop()
        quiet_report = quiet.stop()
        heard = listener_report["peers"][quiet_id]
        assert "connected" in [c["state"] for c in heard["timeline"]], heard["timeline"]
        assert heard["video"]["framesDecoded"] == 0, heard["video"]
        assert heard["audio"]["peakLevel"] < 0.01 and heard["audio"].get("dominantFrequency") is None, heard["audio"]
        assert quiet_report["local"]["muted"] and not quiet_report["local"]["videoEnabled"]
        assert quiet_report["local"]["videoFramesEncoded"] == 0
        assert quiet_report["local"]["audioDTXFrames"] > 0
        # The other direction is unaffected: the quiet bot still sees and hears the listener.
        (back,) = quiet_report["peers"].values()
        assert back["video"]["framesDecoded"] >= 20 and abs(back["audio"]["dominantFrequency"] - 440) < 10, back
