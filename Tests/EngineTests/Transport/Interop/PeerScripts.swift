/// The peer scripts run by `PythonPeer`.
enum PeerScripts {
    /// aiortc 1.x: answers our offer (`mode: answer`) or offers and takes our answer (`mode: offer`), then reports
    /// what it received. aioice's host gathering is patched to loopback (docs/webrtc-interop.md §9); killed after 40 s.
    static let aiortc = #"""
    import asyncio, json, signal, sys
    signal.alarm(40)
    import aioice.ice
    aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: ["127.0.0.1"]
    from aiortc import RTCPeerConnection, RTCSessionDescription, RTCConfiguration
    from aiortc.mediastreams import AudioStreamTrack

    async def main():
        line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        received = {"frames": 0}

        @pc.on("track")
        def on_track(track):
            async def pump():
                try:
                    while True:
                        await track.recv()
                        received["frames"] += 1
                except Exception:
                    pass
            asyncio.ensure_future(pump())

        request = json.loads(line)
        if request["mode"] == "answer":
            await pc.setRemoteDescription(RTCSessionDescription(sdp=request["sdp"], type="offer"))
            pc.addTrack(AudioStreamTrack())
            await pc.setLocalDescription(await pc.createAnswer())
            print(json.dumps({"sdp": pc.localDescription.sdp}), flush=True)
        else:
            pc.addTrack(AudioStreamTrack())
            await pc.setLocalDescription(await pc.createOffer())
            print(json.dumps({"sdp": pc.localDescription.sdp}), flush=True)
            line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
            await pc.setRemoteDescription(RTCSessionDescription(sdp=json.loads(line)["sdp"], type="answer"))
        for _ in range(250):
            await asyncio.sleep(0.1)
            if received["frames"] >= 25:
                break
        stats = await pc.getStats()
        inbound = sum(getattr(s, "packetsReceived", 0) or 0 for s in stats.values() if s.type == "inbound-rtp")
        print(json.dumps({"ice": pc.iceConnectionState, "connection": pc.connectionState,
                          "inbound": inbound, "frames": received["frames"]}), flush=True)
        await pc.close()

    asyncio.run(main())
    """#

    /// Headless Chromium driven over the DevTools protocol (Python `websockets`) on a page served from 127.0.0.1
    /// (getUserMedia needs a secure context): answers our offer (`mode: answer`) or offers and takes our answer
    /// (`mode: offer`) with a fake microphone track, then reports `getStats()`. Flags keep it on loopback and off the network
    /// (docs/webrtc-interop.md §9); killed after 40 s.
    static let chromium = #"""
    import asyncio, http.server, json, os, signal, subprocess, sys, tempfile, threading, urllib.request
    signal.alarm(40)
    import websockets

    ANSWER_JS = r"""
    (async (offer) => {
      const stream = await navigator.mediaDevices.getUserMedia({audio: true});
      window.pc = new RTCPeerConnection({iceServers: []});
      for (const t of stream.getTracks()) pc.addTrack(t, stream);
      await pc.setRemoteDescription({type: 'offer', sdp: offer});
      await pc.setLocalDescription(await pc.createAnswer());
      await new Promise(r => {
        if (pc.iceGatheringState === 'complete') return r();
        pc.addEventListener('icegatheringstatechange', () => pc.iceGatheringState === 'complete' && r());
        setTimeout(r, 3000);
      });
      return pc.localDescription.sdp;
    })
    """
    OFFER_JS = r"""
    (async () => {
      const stream = await navigator.mediaDevices.getUserMedia({audio: true});
      window.pc = new RTCPeerConnection({iceServers: []});
      for (const t of stream.getTracks()) pc.addTrack(t, stream);
      await pc.setLocalDescription(await pc.createOffer());
      await new Promise(r => {
        if (pc.iceGatheringState === 'complete') return r();
        pc.addEventListener('icegatheringstatechange', () => pc.iceGatheringState === 'complete' && r());
        setTimeout(r, 3000);
      });
      return pc.localDescription.sdp;
    })()
    """
    STATS_JS = r"""
    (async () => {
      const s = await pc.getStats();
      let inbound = 0, dtls = '', pair = '';
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

    async def main():
        # getUserMedia needs a secure context; http://127.0.0.1 is one, about:blank is not.
        server = http.server.HTTPServer(("127.0.0.1", 0), EmptyPage)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        profile = tempfile.mkdtemp(prefix="conftui-chrome-")
        chrome = subprocess.Popen(["chromium", "--headless=new", "--no-sandbox", f"--user-data-dir={profile}",
            "--disable-background-networking", "--proxy-server=http://127.0.0.1:9",
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--remote-debugging-port=0",
            "--allow-loopback-in-peer-connection", "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
            "--disable-features=WebRtcHideLocalIpsWithMdns", "--mute-audio", "--no-first-run",
            f"http://127.0.0.1:{server.server_port}/"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            port_file = os.path.join(profile, "DevToolsActivePort")
            for _ in range(300):
                if os.path.exists(port_file) and open(port_file).read().count("\n") >= 1: break
                await asyncio.sleep(0.05)
            port = open(port_file).read().split("\n")[0]
            targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
            page = next(t for t in targets if t["type"] == "page")
            async with websockets.connect(page["webSocketDebuggerUrl"], max_size=None) as ws:
                counter = [0]
                async def evaluate(expr):
                    counter[0] += 1
                    await ws.send(json.dumps({"id": counter[0], "method": "Runtime.evaluate",
                        "params": {"expression": expr, "awaitPromise": True, "returnByValue": True}}))
                    while True:
                        msg = json.loads(await ws.recv())
                        if msg.get("id") == counter[0]:
                            result = msg["result"]
                            if "exceptionDetails" in result: raise RuntimeError(json.dumps(result["exceptionDetails"]))
                            return result["result"].get("value")
                url = f"http://127.0.0.1:{server.server_port}/"
                for _ in range(100):
                    if await evaluate("location.href") == url: break
                    await evaluate(f"location.href = {json.dumps(url)}")
                    await asyncio.sleep(0.1)
                readline = lambda: asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
                request = json.loads(await readline())
                if request["mode"] == "answer":
                    sdp = await evaluate(f"({ANSWER_JS})({json.dumps(request['sdp'])})")
                    print(json.dumps({"sdp": sdp}), flush=True)
                else:
                    print(json.dumps({"sdp": await evaluate(OFFER_JS)}), flush=True)
                    answer = json.loads(await readline())["sdp"]
                    await evaluate(f"pc.setRemoteDescription({{type: 'answer', sdp: {json.dumps(answer)}}})")
                report = {}
                for _ in range(250):
                    await asyncio.sleep(0.1)
                    report = json.loads(await evaluate(STATS_JS))
                    if report["inbound"] >= 25: break
                print(json.dumps(report), flush=True)
        finally:
            chrome.kill()
            chrome.wait()
            server.shutdown()

    asyncio.run(main())
    """#
}
