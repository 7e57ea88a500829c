"""Headless Chromium over plain SDP for the Swift interop tests (Tests/EngineTests/Transport/Interop), which run this
file and talk JSON lines on its stdin/stdout: on an empty page served from 127.0.0.1 (getUserMedia needs a secure
context; about:blank is not one) it answers their offer (`{"mode": "answer", "sdp": ...}`) or offers and takes their
answer (`{"mode": "offer"}`, then `{"sdp": ...}`) with its fake microphone, every candidate in the SDP, then reports
`getStats()` (`{"connection", "ice", "inbound": audio RTP packets, "dtls": "state/cipher"}`). Chromium runs with the
tests' offline flags (testsupport.chromium); the script ends itself after 40 s.
"""

import http.server
import json
import pathlib
import signal
import sys
import threading
import time

if __package__ in (None, ""):   # run as a file: the package is its folder, Tests/ its parent
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from testsupport.chromium import Chromium  # noqa: E402

GATHERED = """
  await new Promise(r => {
    if (pc.iceGatheringState === 'complete') return r();
    pc.addEventListener('icegatheringstatechange', () => pc.iceGatheringState === 'complete' && r());
    setTimeout(r, 3000);
  });
"""
MICROPHONE = """
  const stream = await navigator.mediaDevices.getUserMedia({audio: true});
  window.pc = new RTCPeerConnection({iceServers: []});
  for (const t of stream.getTracks()) pc.addTrack(t, stream);
"""
ANSWER_JS = "(async (offer) => {" + MICROPHONE + """
  await pc.setRemoteDescription({type: 'offer', sdp: offer});
  await pc.setLocalDescription(await pc.createAnswer());
""" + GATHERED + "  return pc.localDescription.sdp;\n})"
OFFER_JS = "(async () => {" + MICROPHONE + """
  await pc.setLocalDescription(await pc.createOffer());
""" + GATHERED + "  return pc.localDescription.sdp;\n})()"
STATS_JS = """
(async () => {
  const s = await pc.getStats();
  let inbound = 0, dtls = '';
  s.forEach(r => {
    if (r.type === 'inbound-rtp' && r.kind === 'audio') inbound += r.packetsReceived || 0;
    if (r.type === 'transport') { dtls = r.dtlsState + '/' + (r.srtpCipher || ''); }
  });
  return JSON.stringify({connection: pc.connectionState, ice: pc.iceConnectionState, inbound, dtls});
})()
"""


class EmptyPage(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(b"<!doctype html><title>conftui interop</title>")

    def log_message(self, *args):
        pass


def read_request() -> dict:
    return json.loads(sys.stdin.readline())


def reply(value: dict) -> None:
    print(json.dumps(value), flush=True)


def main() -> None:
    server = http.server.HTTPServer(("127.0.0.1", 0), EmptyPage)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with Chromium() as browser:
            page = browser.new_page(f"http://127.0.0.1:{server.server_port}/")
            request = read_request()
            if request["mode"] == "answer":
                reply({"sdp": page.evaluate(f"({ANSWER_JS})({json.dumps(request['sdp'])})")})
            else:
                reply({"sdp": page.evaluate(OFFER_JS)})
                answer = read_request()["sdp"]
                page.evaluate(f"pc.setRemoteDescription({{type: 'answer', sdp: {json.dumps(answer)}}})")
            report = {}
            for _ in range(250):
                time.sleep(0.1)
                report = json.loads(page.evaluate(STATS_JS))
                if report["inbound"] >= 25:
                    break
            reply(report)
    finally:
        server.shutdown()


if __name__ == "__main__":
    signal.alarm(40)
    main()
