"""Headless Chromium renegotiates its running connection to `conftui bot`, as a browser does when it starts and stops
sharing its screen.

The bot is in the room first; the served page joins and offers (one audio, one video: its fake camera). Once media
flows both ways, the test drives the page's own objects through `Runtime.evaluate` (page.js is unchanged: its
top-level `session`, `enqueue`, `send` and `log` are globals of the page): it adds a second video track to the same
RTCPeerConnection (a 320x240 canvas, almost white with a small moving bar: not the camera's picture), offers again
through the page's signaling (`__offer`), lets the page apply conftui's answer (its own `_answer` handler), keeps the
track ~3 s, then stops its transceiver and offers again. An in-page sampler polls the bot's inbound video (`getStats`,
every ~20 ms) and the connection's state meanwhile.

Checked: (a) the connection is never replaced (the bot's log renegotiates twice and replaces nothing; its report's
timeline has one `connecting` and nothing after `connected`; the page's RTCPeerConnection is the same object and stays
`connected`); (b) conftui's first answer accepts the new section (three audio and video m= lines with a port, the new
one `recvonly` or `sendrecv`; the chat channel's application section, made by whichever side offered first, accepted
on the same transport: a port, `UDP/DTLS/SCTP webrtc-datachannel`, `a=sctp-port:5000`, `a=max-message-size`, and the
page's channel still open after both renegotiations) and the bot decodes it (`videoStreams` gets the new mid, with the
canvas's bright flat picture, unlike the camera's); (c) the second answer keeps the mid with port 0, and the section's
packets stop at the bot; (d) no media gap from Chromium over 200 ms at the bot during the whole renegotiation window
(its `transport.mediaGaps`, placed on the bot's call clock through the report's `callStartedAt`), and Chromium's
framesDecoded of the bot's video never stalls over 200 ms either.
"""

from __future__ import annotations

import json
import re
import time
from typing import Callable

import pytest

from testsupport.bot import BotProcess
from testsupport.chromium import Chromium, Page
from testsupport.evidence import evidence_on_failure
from testsupport.pages import PAGE_READY, PagesEvidence, wait_until
from testsupport.reports import read_report

MEDIA_TIMEOUT = 20.0
LONGEST_GAP_MS = 200.0
SHARE_SECONDS = 3.0

# Installed once in the page: the bot's connection marked (to tell later that it is still the same object), its state
# changes recorded, and a sampler of the bot's video decoded by Chromium (framesDecoded summed over inbound video)
# with the wall-clock time of each sample. `offerAgain()` offers on the running connection in the page's own signaling
# queue and resolves with the offer once sent; the page's `_answer` handler applies the answer.
INSTALL = """
(() => {
  const peer = session.peers.get(%(bot)s);
  const pc = peer.pc;
  const test = { pc, states: [], samples: [], stopped: false, share: null };
  pc.addEventListener("connectionstatechange", () => test.states.push([Date.now(), pc.connectionState]));
  const sample = async () => {
    if (test.stopped) return;
    const report = await pc.getStats();
    let frames = 0;
    report.forEach(s => { if (s.type === "inbound-rtp" && s.kind === "video") frames += s.framesDecoded || 0; });
    test.samples.push([Date.now(), frames, pc.connectionState]);
    setTimeout(sample, 20);
  };
  sample();
  test.offerAgain = () => new Promise((resolve, reject) => enqueue(peer, async () => {
    try {
      await pc.setLocalDescription(await pc.createOffer());
      send(session, "__offer", { socketId: peer.id, sdp: { type: "offer", sdp: pc.localDescription.sdp } });
      log("test: offered again to", short(peer.id));
      resolve(pc.localDescription.sdp);
    } catch (error) {
      reject(error);
    }
  }));
  window.renegotiationTest = test;
  return pc.connectionState;
})()
"""

# A second video track, as a screen share would add one: a 320x240 canvas, light grey all over with a small darker
# bar moving across (so that every frame differs and the encoder keeps sending), at 15 frames a second.
ADD_SHARE = """
(async () => {
  const test = window.renegotiationTest;
  const canvas = document.createElement("canvas");
  canvas.width = 320;
  canvas.height = 240;
  const g = canvas.getContext("2d");
  let frame = 0;
  const draw = () => {
    frame += 1;
    g.fillStyle = "#f0f0f0";
    g.fillRect(0, 0, 320, 240);
    g.fillStyle = "#b4b4b4";
    g.fillRect((frame * 6) % 300, 110, 20, 20);
  };
  draw();
  const timer = setInterval(draw, 1000 / 15);
  const track = canvas.captureStream(15).getVideoTracks()[0];
  const sender = test.pc.addTrack(track, new MediaStream([track]));
  test.share = { timer, track, sender };
  return await test.offerAgain();
})()
"""

REMOVE_SHARE = """
(async () => {
  const test = window.renegotiationTest;
  const transceiver = test.pc.getTransceivers().find(t => t.sender === test.share.sender);
  transceiver.stop();
  clearInterval(test.share.timer);
  test.share.track.stop();
  return await test.offerAgain();
})()
"""

# The page's view of the connection between the two: signaling state, the applied answer, the same RTCPeerConnection.
CONNECTION = """
(() => {
  const test = window.renegotiationTest;
  const pc = session.peers.get(%(bot)s).pc;
  return { same: pc === test.pc, signalingState: pc.signalingState, connectionState: pc.connectionState,
           remote: pc.currentRemoteDescription && pc.currentRemoteDescription.sdp,
           local: pc.currentLocalDescription && pc.currentLocalDescription.sdp,
           transceivers: pc.getTransceivers().map(t => ({ mid: t.mid, kind: t.receiver.track.kind,
                                                          direction: t.direction, current: t.currentDirection })) };
})()
"""


def m_sections(sdp: str, media_only: bool = True) -> list[dict]:
    """Each m= section of an SDP: kind, port, proto, formats, mid, direction and its lines; audio and video only unless
    `media_only` is false (the connection also has the chat channel's application section, SkyRTC's newcomer makes
    the channel before its first offer)."""
    out = []
    for block in re.split(r"\r?\n(?=m=)", sdp)[1:]:
        lines = block.splitlines()
        kind, port, proto, *formats = lines[0][2:].split()
        if media_only and kind == "application":
            continue
        mid = next((line[6:] for line in lines if line.startswith("a=mid:")), None)
        direction = next((line[2:] for line in lines if line[2:] in ("sendrecv", "sendonly", "recvonly", "inactive")),
                         None)
        out.append({"kind": kind, "port": int(port), "proto": proto, "formats": formats, "mid": mid,
                    "direction": direction, "lines": lines[1:]})
    return out


def wait_for_page(page: Page, expression: str, condition: Callable[[dict], bool], timeout: float, what: str) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(expression)
        if condition(value):
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting until {what}; last: "
                                 f"{json.dumps(value, indent=1)}")
        time.sleep(0.05)


def wait_for_report(bot: BotProcess, condition: Callable[[dict], bool], timeout: float, what: str) -> dict:
    """The bot's report (rewritten every 2 s while it runs) once `condition` holds for it."""
    deadline = time.monotonic() + timeout
    while True:
        report = read_report(bot.report_path)
        if report is not None and condition(report):
            return report
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting until {what}; last report: "
                                 f"{json.dumps(report, indent=1)[:6000]}")
        time.sleep(0.25)


def longest_stall(samples: list[list], start: float, end: float) -> tuple[float, float, float]:
    """The longest time (ms) between two increases of framesDecoded within [start, end] (wall clock, s), when it
    ended (s), and the longest time between two samples (the measure's resolution, ms)."""
    window = [(at / 1000, frames) for at, frames, _ in samples if start <= at / 1000 <= end]
    rises = [at for (at, frames), (_, before) in zip(window[1:], window) if frames > before]
    stalls = [(b - a, b) for a, b in zip([start] + rises, rises + [end])]
    steps = [b[0] - a[0] for a, b in zip(window, window[1:])]
    longest, ended = max(stalls)
    return longest * 1000, ended, max(steps, default=0) * 1000


@pytest.mark.parametrize("bot_first", [True, False], ids=["page-offered-first", "bot-offered-first"])
def test_chromium_adds_and_removes_a_video_section_on_the_running_connection(signaling_server, chromium: Chromium,
                                                                              tmp_path, bot_first: bool):
    """The page re-offers whether it made the connection's first offer (the bot was in the room first) or answered
    the bot's (the page was first)."""
    room = f"chromium-renegotiation-{'bot-first' if bot_first else 'bot-last'}"
    url = f"{signaling_server.http_url}#{room}"
    pages: list[Page] = []
    with evidence_on_failure(PagesEvidence(pages), signaling_server, chromium) as evidence:
        if bot_first:
            bot = evidence.add(BotProcess(signaling_server.ws_url, room, "card-bot", tmp_path))
            bot.wait_joined()
            pages.append(chromium.new_page(url, "browser", PAGE_READY))
        else:
            pages.append(chromium.new_page(url, "browser", PAGE_READY))
            wait_until(pages, lambda s: s[0]["you"] is not None and s[0]["media"] is not None, 10, "the page joins")
            bot = evidence.add(BotProcess(signaling_server.ws_url, room, "card-bot", tmp_path))
            bot.wait_joined()
        page = pages[0]
        bot_id = bot.socket_id
        js = {"bot": json.dumps(bot_id)}

        def page_decodes(states: list[dict]) -> bool:
            peer = states[0]["peers"].get(bot_id)
            return bool(peer and peer["connectionState"] == "connected" and peer["framesDecoded"] >= 10
                        and peer["audioPacketsReceived"] >= 25)

        wait_until(pages, page_decodes, MEDIA_TIMEOUT, "Chromium decodes the bot's video and gets its audio")
        wait_for_report(bot, lambda r: any(p["video"]["framesDecoded"] >= 10 for p in r["peers"].values()),
                        MEDIA_TIMEOUT, "the bot decodes Chromium's camera")
        assert page.evaluate(INSTALL % js) == "connected"

        # The share starts: a third section, offered on the running connection.
        window_start = time.time()
        first_offer = page.evaluate(ADD_SHARE)
        offered = m_sections(first_offer)
        assert [s["kind"] for s in offered] == ["audio", "video", "video"], offered
        share_mid = offered[2]["mid"]
        with_share = wait_for_page(page, CONNECTION % js, lambda c: c["signalingState"] == "stable"
                                   and len(m_sections(c["remote"] or "")) == 3, 10, "conftui's answer to the share")
        shared_at = time.monotonic()
        first_answer = m_sections(with_share["remote"])
        decoding_share = wait_for_report(
            bot, lambda r: only_peer(r)["videoStreams"].get(share_mid, {}).get("framesDecoded", 0) >= 20,
            10, f"the bot decodes the shared canvas (mid {share_mid})")
        time.sleep(max(0.0, SHARE_SECONDS - (time.monotonic() - shared_at)))   # the share lasts ~3 s

        # The share stops: its transceiver stopped, offered again with port 0.
        second_offer = page.evaluate(REMOVE_SHARE)
        without_share = wait_for_page(page, CONNECTION % js, lambda c: c["signalingState"] == "stable"
                                      and c["remote"] != with_share["remote"], 10, "conftui's answer to the stop")
        second_answer = m_sections(without_share["remote"])
        # The chat channel's section, there whichever side offered first (SkyRTC's newcomer makes the channel):
        # conftui keeps accepting it on the bundle's transport, in both answers.
        for answer in (with_share["remote"], without_share["remote"]):
            (data_section,) = [s for s in m_sections(answer, media_only=False) if s["kind"] == "application"]
            assert data_section["port"] == first_answer[0]["port"] != 0, data_section
            assert (data_section["proto"], data_section["formats"]) == ("UDP/DTLS/SCTP", ["webrtc-datachannel"]), \
                data_section
            assert "a=sctp-port:5000" in data_section["lines"], data_section
            assert any(line.startswith("a=max-message-size:") and int(line.split(":")[1]) > 0
                       for line in data_section["lines"]), data_section
        time.sleep(0.5)   # the window ends a little after the second answer: the restart of anything would show
        window_end = time.time()

        # Media after the stop, in two reports written 2 s apart after the window: the share's section is silent.
        after = wait_for_report(bot, lambda r: r["callStartedAt"] + r["elapsed"] > window_end + 0.5, 10,
                                "a report written after the stop")
        later = wait_for_report(bot, lambda r: r["elapsed"] >= after["elapsed"] + 1.9, 10, "a second one")
        page.evaluate("window.renegotiationTest.stopped = true")
        watch = page.evaluate("({ states: renegotiationTest.states, samples: renegotiationTest.samples })")
        connection = page.evaluate(CONNECTION % js)
        channel_after = page.evaluate("conftui.state()")["channels"].get(bot_id)
        report = bot.stop()

        print(f"Chromium's first offer again:\n{first_offer}\nconftui's answer:\n{with_share['remote']}\n"
              f"Chromium's offer without the share:\n{second_offer}\nconftui's answer:\n{without_share['remote']}")
        (page_id, seen), = report["peers"].items()
        log = bot.log_path.read_text()

        # (a) One connection throughout, on both sides.
        assert log.count("new offer on the running connection, renegotiating") == 2, log
        assert "replaced by a new offer" not in log and log.count("connection created") == 1, log
        # (The final report adds `closed`, the bot's own leaving; the one written after the window has no more.)
        assert seen["role"] == ("answerer" if bot_first else "offerer"), seen["role"]
        states = [change["state"] for change in only_peer(later)["timeline"]]
        assert states == ["connecting", "connected"], only_peer(later)["timeline"]
        assert [change["state"] for change in seen["timeline"]] == ["connecting", "connected", "closed"], \
            seen["timeline"]
        assert connection["same"] and connection["connectionState"] == "connected", connection
        assert channel_after == "open", f"the page's chat channel to the bot is {channel_after} after renegotiating"
        page_log = page.evaluate("conftui.log")
        assert not [line for line in page_log if "signaling failed" in line or "rejected" in line], page_log
        answers_applied = sum("answer from" in line and "applied" in line for line in page_log)
        assert answers_applied == (3 if bot_first else 2), page_log
        assert watch["states"] == [], f"the page's connection changed state: {watch['states']}"
        assert {state for _, _, state in watch["samples"]} == {"connected"}, "the page's connection left 'connected'"

        # (b) The share's section accepted and decoded: three m= lines with a port, the new one received by conftui.
        assert [s["mid"] for s in first_answer] == [s["mid"] for s in offered], first_answer
        assert all(s["port"] != 0 for s in first_answer), first_answer
        assert first_answer[2]["direction"] in ("recvonly", "sendrecv"), first_answer
        share = decoding_share["peers"][page_id]["videoStreams"][share_mid]
        camera = decoding_share["peers"][page_id]["video"]
        assert share["framesDecoded"] >= 20 and share["width"] >= 160 and share["height"] >= 120, share
        # The canvas is light grey with a small bar (luma ~220, little spread); the fake camera is not.
        assert share["lumaMean"] > 190 and share["lumaStdDev"] < 30, f"the shared canvas: {share}"
        assert abs(share["lumaMean"] - camera["lumaMean"]) > 40 or camera["lumaStdDev"] > share["lumaStdDev"] + 30, \
            f"the share's picture should differ from the camera's: share {share}, camera {camera}"

        # (c) The stop: the same mids, the share's with port 0 in conftui's answer, and its packets end.
        assert [s["mid"] for s in second_answer] == [s["mid"] for s in offered], second_answer
        assert second_answer[2]["port"] == 0 and all(s["port"] != 0 for s in second_answer[:2]), second_answer
        # Chromium drops a stopped transceiver once the answer is applied (W3C "stop the RTCRtpTransceiver").
        assert all(t["current"] == "stopped" for t in connection["transceivers"] if t["mid"] == share_mid), connection
        sections_after = {s["mid"]: s for s in after["peers"][page_id]["transport"]["sections"]}
        sections_later = {s["mid"]: s for s in later["peers"][page_id]["transport"]["sections"]}
        assert share_mid not in sections_later or sections_later[share_mid] == sections_after.get(share_mid), \
            f"the share's section still receives after its stop: {sections_after} -> {sections_later}"
        streams_after = after["peers"][page_id]["videoStreams"].get(share_mid, {}).get("framesDecoded")
        streams_later = later["peers"][page_id]["videoStreams"].get(share_mid, {}).get("framesDecoded")
        assert streams_later in (None, streams_after), f"the share still decodes: {streams_after} -> {streams_later}"
        # The camera and the microphone go on.
        main_after = {mid: s["packetsReceived"] for mid, s in sections_after.items()}
        main_later = {mid: s["packetsReceived"] for mid, s in sections_later.items()}
        assert all(main_later[mid] > main_after[mid] + 20 for mid in (offered[0]["mid"], offered[1]["mid"])), \
            (main_after, main_later)

        # (d) No gap over 200 ms in either direction during the renegotiations. The bot's gaps as the first report
        # after the window has them (it keeps the newest 32).
        origin = after["callStartedAt"]
        start, end = window_start - origin, window_end - origin
        gaps = only_peer(after)["transport"]["mediaGaps"]
        assert len(gaps) < 32 or gaps[0]["endedAt"] < start, f"gaps of the window may have been dropped: {gaps}"
        in_window = [g for g in gaps if g["endedAt"] >= start and g["endedAt"] - g["milliseconds"] / 1000 <= end]
        longest_at_bot = max((g["milliseconds"] for g in in_window), default=0.0)
        assert longest_at_bot <= LONGEST_GAP_MS, f"media gaps from Chromium at the bot in the window: {in_window}"
        longest_at_page, stall_ended, resolution = longest_stall(watch["samples"], window_start, window_end)
        assert resolution < 100, f"the page's sampler was too slow to see a 200 ms stall ({resolution:.0f} ms)"
        assert longest_at_page <= LONGEST_GAP_MS, \
            f"Chromium's framesDecoded of the bot's video stalled {longest_at_page:.0f} ms in the window"

        print(f"window {start:.2f}..{end:.2f} s on the bot's clock; share mid {share_mid}: bot decoded "
              f"{share['framesDecoded']} frames {share['width']}x{share['height']} luma {share['lumaMean']:.0f}±"
              f"{share['lumaStdDev']:.0f} (camera luma {camera['lumaMean']:.0f}±{camera['lumaStdDev']:.0f}); "
              f"final videoStreams {json.dumps({m: v['framesDecoded'] for m, v in seen['videoStreams'].items()})}; "
              f"gaps at the bot in the window {[round(g['milliseconds']) for g in in_window]} (longest "
              f"{longest_at_bot:.0f} ms); Chromium's longest stall of framesDecoded {longest_at_page:.0f} ms "
              f"(sampled every <= {resolution:.0f} ms), ended at {stall_ended - origin:.2f} s; every gap kept "
              f"{[(round(g['endedAt'], 2), round(g['milliseconds'])) for g in gaps]}; bot renegotiated at "
              f"{re.findall(r'([0-9.]+) [0-9a-f]{8}: new offer on the running connection', log)}")


def only_peer(report: dict) -> dict:
    """The report's one peer: the page."""
    (peer,) = report["peers"].values()
    return peer
