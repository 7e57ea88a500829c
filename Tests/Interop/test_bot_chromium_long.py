"""`conftui bot` and headless Chromium for a minute: video keeps decoding, ICE consent and keyframes work over time.

One page (the page `conftui serve` serves) and one bot in a room. After the first decoded frames, the test samples
Chromium's own `getStats()` every 5 s for 60 s and asserts, for EVERY 5 s window (not just at the end):
- the bot's video keeps decoding at roughly the sent rate (>= 8 fps per window; the bot sends 15 fps) at 320x240;
- the peer connection, ICE and DTLS stay connected and Chromium's consent checks on the selected pair keep being
  answered. RFC 7675 §5.1: consent expires 30 s after the last answered check (the RFC paces checks at 4-6 s;
  Chromium sent one about every 2.5 s here), so a connection alive after 60 s with the response count rising in
  every 20 s stretch means the bot answers them.
Midway, the page asks the bot for a keyframe the way an application can: a receiver `RTCRtpScriptTransform` whose
worker calls `sendKeyFrameRequest()` (Chromium sends RTCP PLI/FIR). Chromium's pliCount/firCount must rise, the bot's
report must count the request, and the video must keep decoding through the transform. At the end the
bot's report must show Chromium's video still arriving (decoded in its last second), so both directions are alive.

The page is not changed for this test: `Page.addScriptToEvaluateOnNewDocument` records every RTCPeerConnection the
page creates, so the test can read the full stats (freezeCount, pliCount, nackCount, the candidate pair) that
`conftui.state()` sums away. On failure: every sample, the page state and log, the bot's log and report, the server
log and Chromium's output.
"""

from __future__ import annotations

import json
import time

from testsupport.bot import BotProcess
from testsupport.chromium import Chromium, Page
from testsupport.evidence import evidence_on_failure
from testsupport.pages import PAGE_READY, PagesEvidence, wait_until

MEDIA_TIMEOUT = 20.0
WINDOW = 5.0            # seconds between samples
WINDOWS = 12            # 12 x 5 s = 60 s of sampling after the first decoded frames
KEYFRAME_REQUEST_AFTER = 6   # windows; the request goes out at ~30 s
SENT_FPS = 15           # `conftui bot` sends its test card at 15 fps
MIN_FPS = 8             # per window, decoded by Chromium

# Runs before the page's own script: keep a reference to every RTCPeerConnection the page makes.
RECORD_PEER_CONNECTIONS = """
(() => {
  const Native = window.RTCPeerConnection;
  const made = [];
  class Recorded extends Native {
    constructor(...args) { super(...args); made.push(this); }
  }
  window.RTCPeerConnection = Recorded;
  window.__longTest = { made };
})();
"""

# One sample of the single peer connection's stats: the bot's inbound video, the selected candidate pair (its
# consent traffic) and the transport's ICE/DTLS states.
SAMPLE = """
(async () => {
  const pcs = window.__longTest.made.filter(pc => pc.connectionState !== "closed");
  if (pcs.length !== 1) return { error: "expected one open RTCPeerConnection, found " + pcs.length };
  const pc = pcs[0];
  const report = await pc.getStats();
  const byId = new Map();
  report.forEach(s => byId.set(s.id, s));
  const out = { at: performance.now() / 1000, connectionState: pc.connectionState,
                iceConnectionState: pc.iceConnectionState, video: null, pair: null, transport: null };
  for (const s of byId.values()) {
    if (s.type === "inbound-rtp" && s.kind === "video") {
      out.video = { framesDecoded: s.framesDecoded || 0, keyFramesDecoded: s.keyFramesDecoded || 0,
                    frameWidth: s.frameWidth || 0, frameHeight: s.frameHeight || 0,
                    framesPerSecond: s.framesPerSecond || 0, freezeCount: s.freezeCount || 0,
                    totalFreezesDuration: s.totalFreezesDuration || 0,
                    pliCount: s.pliCount || 0, firCount: s.firCount || 0, nackCount: s.nackCount || 0,
                    packetsReceived: s.packetsReceived || 0, packetsLost: s.packetsLost || 0, ssrc: s.ssrc };
    } else if (s.type === "transport") {
      out.transport = { dtlsState: s.dtlsState, iceState: s.iceState || null };
      const p = byId.get(s.selectedCandidatePairId);
      if (p) out.pair = { state: p.state, nominated: p.nominated, requestsSent: p.requestsSent || 0,
                          responsesReceived: p.responsesReceived || 0, requestsReceived: p.requestsReceived || 0,
                          responsesSent: p.responsesSent || 0, consentRequestsSent: p.consentRequestsSent || 0,
                          packetsReceived: p.packetsReceived || 0,
                          lastPacketReceivedTimestamp: p.lastPacketReceivedTimestamp || 0 };
    }
  }
  return out;
})()
"""

# A receiver transform that passes every frame through unchanged and asks the sender for one keyframe
# (W3C webrtc-encoded-transform: RTCRtpScriptTransformer.sendKeyFrameRequest, which Chromium sends as RTCP PLI/FIR).
REQUEST_KEYFRAME = """
(async () => {
  if (typeof RTCRtpScriptTransform !== "function") return { supported: false };
  const worker = new Worker(URL.createObjectURL(new Blob([`
    onrtctransform = async event => {
      const t = event.transformer;
      t.readable.pipeTo(t.writable);
      try { await t.sendKeyFrameRequest(); postMessage("sent"); } catch (e) { postMessage("failed: " + e); }
    };
  `], { type: "text/javascript" })));
  const answered = new Promise(resolve => { worker.onmessage = m => resolve(m.data); });
  const pc = window.__longTest.made.find(p => p.connectionState !== "closed");
  const receiver = pc.getReceivers().find(r => r.track && r.track.kind === "video");
  receiver.transform = new RTCRtpScriptTransform(worker, {});
  const result = await Promise.race([answered, new Promise(r => setTimeout(() => r("no answer in 3 s"), 3000))]);
  return { supported: true, result };
})()
"""


def open_recorded_page(chromium: Chromium, url: str) -> Page:
    page = chromium.new_page(None, "browser")
    page.call("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_PEER_CONNECTIONS})
    page.navigate(url, PAGE_READY)
    return page


def test_bot_video_decodes_in_chromium_for_a_minute(signaling_server, chromium, tmp_path):
    room = "chromium-long"
    pages: list[Page] = []
    samples: list[dict] = []
    keyframe_request: dict | None = None

    def samples_so_far() -> str:
        return ("\n===== samples (Chromium getStats every 5 s) =====\n" + "\n".join(json.dumps(s) for s in samples)
                + f"\nkeyframe request: {keyframe_request}")

    with evidence_on_failure(samples_so_far, PagesEvidence(pages), signaling_server, chromium) as evidence:
        bot = evidence.add(BotProcess(signaling_server.ws_url, room, "card-bot", tmp_path, duration=150.0))
        bot.wait_joined()
        page = open_recorded_page(chromium, f"{signaling_server.http_url}#{room}")
        pages.append(page)
        bot_id = bot.socket_id

        def decoding(states: list[dict]) -> bool:
            peer = states[0]["peers"].get(bot_id)
            return bool(peer and peer["connectionState"] == "connected" and peer["framesDecoded"] >= 10)

        (joined,) = wait_until([page], decoding, MEDIA_TIMEOUT, "Chromium decodes the bot's video")
        assert list(joined["peers"]) == [bot_id], joined

        start = time.monotonic()
        samples.append(page.evaluate(SAMPLE))
        for k in range(1, WINDOWS + 1):
            if k == KEYFRAME_REQUEST_AFTER:
                keyframe_request = page.evaluate(REQUEST_KEYFRAME)
            time.sleep(max(0.0, start + k * WINDOW - time.monotonic()))
            samples.append(page.evaluate(SAMPLE))
        elapsed = time.monotonic() - start
        report = bot.stop()

        # Chromium's side, window by window.
        for s in samples:
            assert "error" not in s, s
            assert s["connectionState"] == "connected" and s["iceConnectionState"] in ("connected", "completed"), s
            assert s["transport"]["dtlsState"] == "connected", s
            assert s["pair"] and s["pair"]["state"] == "succeeded", s
            assert (s["video"]["frameWidth"], s["video"]["frameHeight"]) == (320, 240), s
        windows = []
        for before, after in zip(samples, samples[1:]):
            seconds = after["at"] - before["at"]
            frames = after["video"]["framesDecoded"] - before["video"]["framesDecoded"]
            windows.append(round(frames / seconds, 1))
            assert frames / seconds >= MIN_FPS, (
                f"window {len(windows)} ({seconds:.1f} s): {frames} frames decoded, {frames / seconds:.1f} fps "
                f"< {MIN_FPS} (bot sends {SENT_FPS}); per-window fps so far {windows}")
        assert elapsed >= WINDOWS * WINDOW, elapsed
        first, last = samples[0], samples[-1]
        assert last["video"]["ssrc"] == first["video"]["ssrc"], "the bot's video stream changed SSRC"
        # Consent (RFC 7675): Chromium's checks on the selected pair kept being answered, in every 20 s stretch
        # (the RFC's 30 s limit, with margin), not just once.
        answered = [s["pair"]["responsesReceived"] for s in samples]
        for i in range(len(answered) - 4):
            assert answered[i + 4] > answered[i], f"no consent response in samples {i}..{i + 4}: {answered}"
        # W3C freezes (a gap > max(3 x the mean interval, mean + 150 ms)) happen on this shared 2-core machine when
        # the debug bot or Chromium is starved for a moment (4 seen under a load average of 9, with every window at
        # >= 14 fps): they are reported, and together must stay short of one window.
        frozen = last["video"]["totalFreezesDuration"] - first["video"]["totalFreezesDuration"]
        assert frozen < WINDOW, f"video frozen {frozen:.1f} s in total: {first['video']} -> {last['video']}"

        # The keyframe asked for midway (only where Chromium supports receiver transforms).
        requests_sent = last["video"]["pliCount"] + last["video"]["firCount"]
        (page_id, seen), = report["peers"].items()
        transport = seen["transport"]
        if keyframe_request and keyframe_request["supported"]:
            assert keyframe_request["result"] == "sent", keyframe_request
            assert requests_sent > first["video"]["pliCount"] + first["video"]["firCount"], (first, last)
            # The bot counts the PLI/FIR it received (it asks nothing of itself, so this is Chromium's request);
            # periodic keyframes would raise keyFramesDecoded anyway, so that alone would prove nothing.
            assert transport["keyframeRequestsReceived"] >= 1, transport
            assert last["video"]["keyFramesDecoded"] > first["video"]["keyFramesDecoded"], (first, last)

        # The bot's side: Chromium's video still decoding at the end, and the connection never left connected
        # until the bot itself closed it on SIGTERM.
        assert page_id == joined["you"]
        timeline = [(change["state"], change["cause"]) for change in seen["timeline"]]
        assert [state for state, _ in timeline] == ["connecting", "connected", "closed"], timeline
        assert timeline[-1][1] == "closed locally", timeline
        assert transport["srtpRejected"] == 0, transport
        video = seen["video"]
        assert video["framesPerSecond"] >= 5, f"Chromium's video stopped reaching the bot: {video}"
        assert video["framesDecoded"] >= MIN_FPS * WINDOWS * WINDOW, video
        assert video["decodeFailures"] == 0, video
        assert seen["audio"]["framesDecoded"] >= 50 * WINDOWS * WINDOW * 0.8, seen["audio"]

        print(f"{elapsed:.1f} s sampled: Chromium decoded {last['video']['framesDecoded'] - first['video']['framesDecoded']} "
              f"frames 320x240, fps per 5 s window {windows}, freezes {last['video']['freezeCount']} "
              f"({last['video']['totalFreezesDuration']:.2f} s), "
              f"NACKs {last['video']['nackCount']}, PLIs {last['video']['pliCount']}, FIRs {last['video']['firCount']}, "
              f"consent responses {answered[0]} -> {answered[-1]}; keyframe request {keyframe_request}; "
              f"bot served {transport['keyframeRequestsReceived']} keyframe requests, encoded "
              f"{report['local']['keyframesEncoded']} keyframes; bot decoded {video['framesDecoded']} frames "
              f"{video['width']}x{video['height']} ({video['framesPerSecond']:.0f} fps at the end, "
              f"{video['freezes']} freezes)")
