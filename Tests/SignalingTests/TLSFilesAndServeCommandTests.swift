import Foundation
import Testing
@testable import Signaling
#if canImport(Glibc)
import Glibc
#endif

@Suite(.timeLimit(.minutes(1))) struct TLSFilesTests {
    @Test func serverLoadsCertificateAndKeyFiles() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conftui-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (cert, key) = try LocalhostCertificate.generatePEM()
        #expect(cert.hasPrefix("-----BEGIN CERTIFICATE-----"))
        let certPath = dir.appendingPathComponent("cert.pem").path
        let keyPath = dir.appendingPathComponent("key.pem").path
        try cert.write(toFile: certPath, atomically: true, encoding: .utf8)
        try key.write(toFile: keyPath, atomically: true, encoding: .utf8)
        let server = try TestServer.start { $0.tls = .files(certificate: certPath, key: keyPath) }
        defer { server.stop() }
        var options = WebSocketClientOptions()
        options.tlsVerification = .pinnedSHA256(server.tlsCertificateSHA256!)
        let client = try SkyRTCClient(url: server.webSocketURL, options: options)
        #expect(try client.join(room: "files").peers.connections == [])
        // A missing file is an error at start, not later.
        #expect(throws: SignalingError.self) {
            try SignalingServer({ var c = SignalingServerConfiguration(); c.port = 0; c.tls = .files(certificate: "/nonexistent", key: keyPath); return c }())
        }
    }
}

/// The `conftui serve` stdout contract, exercised on the built binary when it sits next to the
/// test bundle (`swift build` builds it; `swift test` alone may not).
@Suite(.timeLimit(.minutes(1))) struct ServeCommandTests {
    static var binary: String? {
        let dir = Bundle.main.bundleURL.deletingLastPathComponent()
        for candidate in [dir.appendingPathComponent("conftui"), Bundle.main.bundleURL.appendingPathComponent("conftui")] {
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
        }
        return nil
    }

    @Test(.enabled(if: binary != nil, "conftui binary not built"))
    func servePrintsOneLineServesAndStopsOnSIGTERM() throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("conftui-serve-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary!)
        process.arguments = ["serve", "--port", "0", "--log", log]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        // Read the first line byte by byte (no buffering games).
        var line: [UInt8] = []
        let fd = out.fileHandleForReading.fileDescriptor
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1 && byte != 10 { line.append(byte) }
        let text = String(decoding: line, as: UTF8.self)
        let pattern = #"^conftui serve: listening on http://127\.0\.0\.1:(\d+)/ \(ws://127\.0\.0\.1:(\d+)/\)$"#
        let match = text.range(of: pattern, options: .regularExpression)
        #expect(match != nil, "stdout line was: \(text)")
        let afterHost = text.range(of: "127.0.0.1:").map { text[$0.upperBound...] } ?? ""
        let port = UInt16(afterHost.prefix { $0.isNumber }) ?? 0
        let client = try SkyRTCClient(url: "ws://127.0.0.1:\(port)/")
        _ = try client.join(room: "cli")
        client.close()
        #expect(TestServer.eventually { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("leave ") })
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        // Nothing else was printed to stdout.
        let rest = out.fileHandleForReading.readDataToEndOfFile()
        #expect(rest.isEmpty)
        let logText = try String(contentsOfFile: log, encoding: .utf8)
        #expect(logText.contains(#"join "#) && logText.contains(#"room="cli""#))
    }
}
