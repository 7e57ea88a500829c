"""`conftui bot` and headless Chromium on the served page, in one room, both offer orders.

Chromium's page (`window.conftui.state()`, built from getStats) must decode the bot's 320x240 video with
framesDecoded rising and receive its audio; the bot's report must show Chromium's fake camera decoded (its size,
a picture that is not uniform) and its fake microphone's beep (a peak level above zero).
"""

from __future__ import annotations

import time

from testsupport.bot import BotProcess
from testsupport.chromium import Chromium, Page
from testsupport.evidence import evidence_on_failure
from testsupport.pages import PAGE_READY, PagesEvidence, wait_until

MEDIA_TIMEOUT = 20.0


def page_peer(state: dict, bot_id: str) -> dict | None:
    return state["peers"].get(bot_id)


def run_with_chromium(signaling_server, chromium: Chromium, tmp_path, bot_first: bool, *bot_flags: str) -> None:
    room = f"chromium-{'bot-first' if bot_first else 'bot-last'}"
    pages: list[Page] = []
    with evidence_on_failure(PagesEvidence(pages), signaling_server, chromium) as evidence:
        url = f"{signaling_server.http_url}#{room}"
        if bot_first:
            bot = evidence.add(BotProcess(signaling_server.ws_url, room, "card-bot", tmp_path, *bot_flags))
            bot.wait_joined()
            pages.append(chromium.new_page(url, "browser", PAGE_READY))
        else:
            pages.append(chromium.new_page(url, "browser", PAGE_READY))
            wait_until(pages, lambda s: s[0]["you"] is not None and s[0]["media"] is not None, 10, "the page joins")
            bot = evidence.add(BotProcess(signaling_server.ws_url, room, "card-bot", tmp_path, *bot_flags))
            bot.wait_joined()
        bot_id = bot.socket_id

        def decoding(states: list[dict]) -> bool:
            peer = page_peer(states[0], bot_id)
            return bool(peer and peer["connectionState"] == "connected" and peer["framesDecoded"] >= 10
                        and peer["audioPacketsReceived"] >= 25)

        (first,) = wait_until(pages, decoding, MEDIA_TIMEOUT, "Chromium decodes the bot's video and gets its audio")
        time.sleep(1.5)
        (second,) = [pages[0].evaluate("conftui.state()")]
        before, after = page_peer(first, bot_id), page_peer(second, bot_id)
        report = bot.stop()

        # Chromium's side.
        assert after["connectionState"] == "connected", after
        assert after["role"] == ("offerer" if bot_first else "answerer"), after
        assert after["framesDecoded"] >= before["framesDecoded"] + 10, f"video stalled: {before} -> {after}"
        assert (after["frameWidth"], after["frameHeight"]) == (320, 240), after
        assert after["audioPacketsReceived"] >= before["audioPacketsReceived"] + 40, f"audio stalled: {before} -> {after}"
        assert after["selectedPair"] and "127.0.0.1" in after["selectedPair"], after
        # Every candidate the bot trickled was accepted by addIceCandidate (the page logs rejections).
        page_log = pages[0].evaluate("conftui.log")
        assert not [line for line in page_log if "rejected" in line], page_log

        # The bot's side.
        (page_id, seen), = report["peers"].items()
        assert page_id == second["you"]
        assert "connected" in [change["state"] for change in seen["timeline"]], seen["timeline"]
        assert seen["role"] == ("answerer" if bot_first else "offerer")
        transport = seen["transport"]
        assert transport["dtlsRole"] == ("client" if bot_first else "server")
        assert transport["srtpProfile"] in ("aeadAes128Gcm", "aes128CmHmacSha1_80")
        assert transport["srtpRejected"] == 0
        video = seen["video"]
        # The page asks its camera for 320x240; Chromium may scale down under load but never sends nothing.
        assert video["framesDecoded"] >= 15 and video["width"] >= 160 and video["height"] >= 120, video
        assert video["lumaStdDev"] > 5, f"Chromium's fake camera picture should not be uniform: {video}"
        audio = seen["audio"]
        assert audio["framesDecoded"] >= 50 and audio["peakLevel"] > 0.01, audio
        print(f"bot {'answers' if bot_first else 'offers'} Chromium: bot connected {seen['timeToConnected']:.3f} s after "
              f"creating its connection; Chromium decoded {after['framesDecoded']} frames "
              f"{after['frameWidth']}x{after['frameHeight']}, {after['audioPacketsReceived']} audio packets, level "
              f"{after['audioLevel']}; bot decoded {video['framesDecoded']} frames {video['width']}x{video['height']} "
              f"(luma {video['lumaMean']:.0f}±{video['lumaStdDev']:.0f}), audio peak {audio['peakLevel']:.3f} "
              f"{audio.get('dominantFrequency')} Hz; {transport['srtpProfile']}, pair {transport['selectedPair']}")


def test_bot_answers_chromium(signaling_server, chromium, tmp_path):
    """The bot is in the room first; the page joins and offers; the bot answers."""
    run_with_chromium(signaling_server, chromium, tmp_path, bot_first=True)


def test_bot_offers_to_chromium(signaling_server, chromium, tmp_path):
    """The page is in the room first; the bot joins and offers."""
    run_with_chromium(signaling_server, chromium, tmp_path, bot_first=False)


def test_bot_offers_to_chromium_with_trickle_only(signaling_server, chromium, tmp_path):
    """The bot's SDP carries no candidate: Chromium can only reach it through the trickled `label`/`id` ones."""
    run_with_chromium(signaling_server, chromium, tmp_path, False, "--trickle-only")
