"""Transport-wide congestion control with Chromium, both ways: Chromium's estimator runs on the feedback `conftui bot`
sends it, and the bot's estimator runs on Chromium's.

Chromium (the page `conftui serve` serves, fake camera) and one bot in a room. Chromium stamps what it sends with the
transport-wide sequence number once the bot's description asks for `transport-cc`, and estimates its sending rate
from the bot's RTCP transport feedback alone (conftui sends no REMB). Without feedback it could not learn anything
about the path and would stay at its start rate (about 300 kbit/s); with feedback that says every packet arrived
promptly (loopback), its probes and its additive increase take the estimate well above that within seconds.

Asserted, from Chromium's `getStats()` sampled every second for 12 s after the first decoded frame: the selected
pair's `availableOutgoingBitrate` rises above 1 Mbit/s; the bot's report counts about twenty feedback messages a
second; the bot keeps decoding Chromium's video; the bot received Chromium's feedback about its own packets (it
stamps them too) and its send-side estimate is live; Chromium decodes the bot's video. On failure: the samples, the page log, the bot's log and report,
the server's log and Chromium's output.
"""

from __future__ import annotations

import json
import time

from testsupport.bot import BotProcess
from testsupport.chromium import Chromium, Page
from testsupport.evidence import evidence_on_failure
from testsupport.pages import PAGE_READY, PagesEvidence, states_of, wait_until

SECONDS = 12
MIN_ESTIMATE = 1_000_000     # bit/s; Chromium starts at 300 kbit/s
FEEDBACK_PER_SECOND = 20     # the bot's feedback interval is 50 ms

RECORD_PEER_CONNECTIONS = """
(() => {
  const Native = window.RTCPeerConnection;
  const made = [];
  class Recorded extends Native {
    constructor(...args) { super(...args); made.push(this); }
  }
  window.RTCPeerConnection = Recorded;
  window.__feedbackTest = { made };
})();
"""

SAMPLE = """
(async () => {
  const pc = window.__feedbackTest.made.find(p => p.connectionState !== "closed");
  if (!pc) return { error: "no open RTCPeerConnection" };
  const report = await pc.getStats();
  const byId = new Map();
  report.forEach(s => byId.set(s.id, s));
  const out = { at: performance.now() / 1000, estimate: null, videoBytesSent: 0 };
  for (const s of byId.values()) {
    if (s.type === "outbound-rtp" && s.kind === "video") out.videoBytesSent += s.bytesSent || 0;
    if (s.type === "transport") {
      const p = byId.get(s.selectedCandidatePairId);
      if (p) out.estimate = p.availableOutgoingBitrate ?? null;
    }
  }
  return out;
})()
"""


def test_chromium_estimates_from_the_bots_transport_feedback(signaling_server, chromium: Chromium, tmp_path):
    room = "transport-feedback"
    pages: list[Page] = []
    samples: list[dict] = []
    with evidence_on_failure(lambda: "\n".join(json.dumps(s) for s in samples), PagesEvidence(pages),
                             signaling_server, chromium) as evidence:
        bot = evidence.add(BotProcess(signaling_server.ws_url, room, "feedback-bot", tmp_path, duration=60.0))
        bot.wait_joined()
        page = chromium.new_page(None, "browser")
        page.call("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_PEER_CONNECTIONS})
        page.navigate(f"{signaling_server.http_url}#{room}", PAGE_READY)
        pages.append(page)
        bot_id = bot.socket_id

        def decoding(states: list[dict]) -> bool:
            peer = states[0]["peers"].get(bot_id)
            return bool(peer and peer["connectionState"] == "connected" and peer["framesDecoded"] >= 5)

        wait_until([page], decoding, 20.0, "Chromium and the bot connect")
        start = time.monotonic()
        for k in range(SECONDS + 1):
            time.sleep(max(0.0, start + k - time.monotonic()))
            samples.append(page.evaluate(SAMPLE))
        final = states_of([page])[0]["peers"].get(bot_id) or {}
        report = bot.stop()

        assert all("error" not in s for s in samples), samples
        estimates = [s["estimate"] or 0 for s in samples]
        assert max(estimates) >= MIN_ESTIMATE, (
            f"Chromium's estimate towards the bot stayed at {max(estimates) / 1000:.0f} kbit/s at most "
            f"(per second: {[round(e / 1000) for e in estimates]} kbit/s)")
        (_, seen), = report["peers"].items()
        transport = seen["transport"]
        connected_seconds = SECONDS + 2
        assert transport["transportFeedbackSent"] >= FEEDBACK_PER_SECOND * connected_seconds * 0.6, transport
        assert seen["video"]["framesDecoded"] >= 5 * SECONDS, seen["video"]
        # libwebrtc sends its feedback every 50 to 250 ms depending on its receive rate.
        assert transport["transportFeedbackReceived"] >= 4 * SECONDS, transport
        assert transport["sendEstimateBitrate"] and transport["sendEstimateBitrate"] >= 100_000, transport
        assert final["framesDecoded"] >= 5 * SECONDS, final
        sent_kbps = (samples[-1]["videoBytesSent"] - samples[0]["videoBytesSent"]) * 8 / 1000 / (samples[-1]["at"] - samples[0]["at"])
        print(f"Chromium's estimate towards the bot, kbit/s per second: {[round(e / 1000) for e in estimates]}; "
              f"its video sent {sent_kbps:.0f} kbit/s; the bot sent {transport['transportFeedbackSent']} feedback messages, "
              f"received {transport['transportFeedbackReceived']}, its estimate {transport['sendEstimateBitrate'] / 1000:.0f} "
              f"kbit/s ({transport['sendEstimateUsage']})")
