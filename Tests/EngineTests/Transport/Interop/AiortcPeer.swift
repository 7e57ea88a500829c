import Foundation
import Glibc

/// A real aiortc 1.x peer in a child process (the repository's `.venv`, `make py-deps`), talking JSON lines on
/// stdin/stdout: it answers our offer (`mode: answer`) or offers and takes our answer (`mode: offer`), then reports
/// what it received. It binds 127.0.0.1 only (aioice's host
/// gathering is patched to loopback, see webrtc-interop.md) and kills itself after 25 s.
final class AiortcPeer {
    static let script = #"""
    import asyncio, json, signal, sys
    signal.alarm(25)
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
        for _ in range(150):
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

    /// `<repo>/.venv/bin/python` when aiortc is installed there, else nil (the test is then skipped).
    static var python: String? {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<5 { root.deleteLastPathComponent() }   // drop Tests/EngineTests/Transport/Interop/AiortcPeer.swift
        let python = root.appendingPathComponent(".venv/bin/python").path
        let lib = root.appendingPathComponent(".venv/lib")
        let hasAiortc = (try? FileManager.default.contentsOfDirectory(atPath: lib.path))?.contains {
            FileManager.default.fileExists(atPath: lib.appendingPathComponent("\($0)/site-packages/aiortc").path)
        } ?? false
        return hasAiortc && FileManager.default.isExecutableFile(atPath: python) ? python : nil
    }

    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer: [UInt8] = []

    init(python: String) throws {
        let scriptURL = FileManager.default.temporaryDirectory.appendingPathComponent("conftui-aiortc-peer-\(getpid()).py")
        try Self.script.write(to: scriptURL, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [scriptURL.path]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let fd = output.fileHandleForReading.fileDescriptor
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    func send(_ object: [String: String]) throws {
        var data = try JSONSerialization.data(withJSONObject: object)
        data.append(0x0A)
        input.fileHandleForWriting.write(data)
    }

    /// A complete JSON line if one has arrived; never blocks.
    func poll() -> [String: Any]? {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = read(output.fileHandleForReading.fileDescriptor, &chunk, chunk.count)
        if n > 0 { buffer += chunk.prefix(n) }
        guard let newline = buffer.firstIndex(of: 0x0A) else { return nil }
        let line = Data(buffer[..<newline])
        buffer.removeSubrange(...newline)
        return (try? JSONSerialization.jsonObject(with: line)) as? [String: Any]
    }

    /// Polls until a line arrives or `seconds` pass.
    func waitForLine(seconds: Double) -> [String: Any]? {
        let end = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while ContinuousClock.now < end {
            if let line = poll() { return line }
            usleep(10_000)
        }
        return nil
    }
}
