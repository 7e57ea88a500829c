import Foundation
import Testing
@testable import Signaling
#if canImport(Glibc)
import Glibc
#endif

/// `conftui serve`'s policy flags reach the server: the built binary, when it sits next to the
/// test bundle (as in `ServeCommandTests`).
@Suite(.timeLimit(.minutes(1))) struct ServeFlagsTests {
    /// Starts `conftui serve --port 0 ARGS`, returns the process and its port (nil port: it exited).
    static func serve(_ arguments: [String]) throws -> (Process, UInt16?) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ServeCommandTests.binary!)
        process.arguments = ["serve", "--port", "0", "--log", "/dev/null"] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(out.fileHandleForReading.fileDescriptor, &byte, 1) == 1 && byte != 10 { line.append(byte) }
        let text = String(decoding: line, as: UTF8.self)
        guard let colon = text.range(of: "127.0.0.1:") else { return (process, nil) }
        return (process, UInt16(text[colon.upperBound...].prefix { $0.isNumber }))
    }

    @Test(.enabled(if: ServeCommandTests.binary != nil, "conftui binary not built"))
    func allowOriginIsRepeatableAndTheCapsAreApplied() throws {
        let (process, port) = try Self.serve(["--allow-origin", "https://a.example", "--allow-origin", "http://b.example:8080"])
        defer {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
        let p = try #require(port)
        func reply(_ origin: String) throws -> String {
            let raw = try RawClient(port: p)
            raw.send(RawClient.upgradeRequest(host: "127.0.0.1:\(p)", headers: ["Origin: \(origin)"]))
            return raw.readHTTPResponse()
        }
        #expect(try reply("https://a.example").hasPrefix("HTTP/1.1 101 "))
        #expect(try reply("http://b.example:8080").hasPrefix("HTTP/1.1 101 "))
        #expect(try reply("http://127.0.0.1:\(p)").hasPrefix("HTTP/1.1 101 "))
        #expect(try reply("http://c.example").hasPrefix("HTTP/1.1 403 "))
        // --max-per-ip 3: three held open, the fourth is refused. A server of its own, so the connections
        // above (closed by the client, reaped by the server a loop turn later) cannot count against the cap.
        let (capped, cappedPort) = try Self.serve(["--max-per-ip", "3"])
        defer {
            kill(capped.processIdentifier, SIGTERM)
            capped.waitUntilExit()
        }
        let c = try #require(cappedPort)
        let held = try (0..<3).map { _ in try RawClient(port: c) }
        for raw in held { #expect(raw.upgrade()) }
        let fourth = try RawClient(port: c)
        fourth.send(RawClient.upgradeRequest())
        #expect(!fourth.readHTTPResponse().hasPrefix("HTTP/1.1 101 "))
    }

    @Test(.enabled(if: ServeCommandTests.binary != nil, "conftui binary not built"))
    func aMalformedAllowOriginIsAUsageError() throws {
        let (process, port) = try Self.serve(["--allow-origin", "a.example"])
        process.waitUntilExit()
        #expect(port == nil)
        #expect(process.terminationStatus != 0)
    }
}
