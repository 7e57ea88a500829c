import Foundation
import Glibc
import enum EngineTransport.MonotonicClock

/// A real peer (aiortc, or headless Chromium) run by a script of the Python test support (Tests/testsupport, shared
/// with the pytest suites) in a child process with the repository's `.venv` (`make py-deps`), talking JSON lines on
/// stdin/stdout: it answers our offer (`mode: answer`) or offers and takes our answer (`mode: offer`), then reports
/// what it received. It binds 127.0.0.1 only (docs/webrtc-interop.md §9) and ends itself after 40 s.
final class PythonPeer {
    /// The repository's root: this file is Tests/EngineTests/Transport/Interop/PythonPeer.swift.
    private static var repository: URL {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<5 { root.deleteLastPathComponent() }
        return root
    }

    /// The peer scripts: `aiortc_sdp_peer.py`, `chromium_sdp_peer.py`.
    static func script(_ name: String) -> String {
        repository.appendingPathComponent("Tests/testsupport/\(name)").path
    }

    /// `<repo>/.venv/bin/python` when `package` is installed there, else nil (the test is then skipped).
    static func python(with package: String) -> String? {
        let root = repository
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

    init(python: String, script: String) throws {
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script]
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
        let end = MonotonicClock.now() + seconds
        while MonotonicClock.now() < end {
            if let line = poll() { return line }
            usleep(10_000)
        }
        return nil
    }
}
