import Foundation
import Glibc

/// A real aiortc 1.x peer in a child process (the repository's `.venv`, `make py-deps`), talking JSON lines on
/// stdin/stdout: it answers our offer (`mode: answer`) or offers and takes our answer (`mode: offer`), then reports
/// what it received. It binds 127.0.0.1 only (aioice's host
/// gathering is patched to loopback, see docs/webrtc-interop.md §9) and kills itself after 25 s.
final class PythonPeer {


    /// `<repo>/.venv/bin/python` when `package` is installed there, else nil (the test is then skipped).
    static func python(with package: String) -> String? {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<5 { root.deleteLastPathComponent() }   // drop Tests/EngineTests/Transport/Interop/AiortcPeer.swift
        let python = root.appendingPathComponent(".venv/bin/python").path
        let lib = root.appendingPathComponent(".venv/lib")
        let hasPackage = (try? FileManager.default.contentsOfDirectory(atPath: lib.path))?.contains {
            FileManager.default.fileExists(atPath: lib.appendingPathComponent("\($0)/site-packages/\(package)").path)
        } ?? false
        return hasPackage && FileManager.default.isExecutableFile(atPath: python) ? python : nil
    }

    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer: [UInt8] = []

    init(python: String, script: String, name: String) throws {
        let scriptURL = FileManager.default.temporaryDirectory.appendingPathComponent("conftui-\(name)-\(getpid()).py")
        try script.write(to: scriptURL, atomically: true, encoding: .utf8)
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
