import Foundation
import Testing
@testable import Signaling

/// Client-supplied text in the server's log: escaped in one place, one line per event.
@Suite(.timeLimit(.minutes(1))) struct LogEscapingTests {
    /// What must never reach the log raw: ESC, CSI (C1), CR, LF, NUL, DEL, NEL, bidi overrides and
    /// isolates, line and paragraph separators, zero-width and BOM.
    static let dangerous: [Unicode.Scalar] = [
        "\u{1B}", "\u{9B}", "\r", "\n", "\u{0}", "\u{7F}", "\u{85}", "\u{7}", "\u{202E}", "\u{202A}", "\u{2066}",
        "\u{200F}", "\u{61C}", "\u{2028}", "\u{2029}", "\u{200B}", "\u{FEFF}",
    ]

    static func containsDangerous(_ text: String) -> Bool {
        text.unicodeScalars.contains { dangerous.contains($0) }
    }

    @Test func escapesControlsBidiAndSeparatorsKeepsText() {
        #expect(LogEscaping.escape("join room=\"r1\" members=2") == "join room=\"r1\" members=2")
        #expect(LogEscaping.escape("\u{1B}[2J") == "\\u{1B}[2J")
        #expect(LogEscaping.escape("a\r\nb") == "a\\u{D}\\u{A}b")
        #expect(LogEscaping.escape("\u{9B}31m") == "\\u{9B}31m")
        #expect(LogEscaping.escape("\u{202E}exe.txt") == "\\u{202E}exe.txt")
        #expect(LogEscaping.escape("Zoë 李 🎉") == "Zoë 李 🎉")
        // A client cannot type a look-alike of an escape.
        #expect(LogEscaping.escape("\\u{1B}") == "\\u{5C}u{1B}")
        for scalar in Self.dangerous {
            #expect(!Self.containsDangerous(LogEscaping.escape("x\(scalar)y")))
        }
    }

    @Test func longLinesAreCut() {
        let line = LogEscaping.escape(String(repeating: "r", count: 1 << 20))
        #expect(line.utf8.count <= LogEscaping.maxLineBytes + 16)
        #expect(line.hasSuffix("…(cut)"))
    }

    @Test func hostileRoomsNamesAndHeadersLeaveOneInertLinePerEvent() throws {
        let logPath = FileManager.default.temporaryDirectory.appendingPathComponent("conftui-escape-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: logPath) }
        let server = try TestServer.start(log: try SignalingLog(path: logPath))
        defer { server.stop() }
        // A room name that clears the screen, forges a log line and flips the rest of the line.
        let forged = #"\u001b[2J\u009b31m\r\n2026-01-01T00:00:00.000Z join forged room=\"x\"\u202e\u2028"#
        let client = try SkyRTCClient(url: server.webSocketURL)
        try client.webSocket.send(text: #"{"eventName":"__join","data":{"room":"\#(forged)","name":"\#(forged)"}}"#)
        _ = try client.nextText()
        // An error message quoting client input (the unknown event name).
        try client.webSocket.send(text: #"{"eventName":"\#(forged)","data":{}}"#)
        _ = try client.nextText()
        client.close()
        // An HTTP header with raw control bytes, refused for its Origin.
        let raw = try RawClient(port: server.port)
        raw.send(RawClient.upgradeRequest(headers: ["Origin: http://evil\u{1B}[2J\u{9B}\u{202E}.example"]))
        #expect(raw.readHTTPResponse().hasPrefix("HTTP/1.1 403 "))
        #expect(TestServer.eventually { ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").contains("leave ") })
        let text = try String(contentsOfFile: logPath, encoding: .utf8)
        #expect(text.hasSuffix("\n"))
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(!lines.contains { Self.containsDangerous(String($0)) })
        // Every line is one of ours: a timestamp, then an event.
        #expect(lines.allSatisfy { $0.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z "#, options: .regularExpression) != nil })
        func events(_ name: String) -> Int { lines.filter { $0.range(of: #"^\S+Z \#(name) "#, options: .regularExpression) != nil }.count }
        #expect(events("join") == 1)
        #expect(events("leave") == 1)
        #expect(lines.count == 4)
        #expect(lines.filter { $0.contains("unknown_event") }.count == 1)
        #expect(lines.filter { $0.contains("refused (403)") }.count == 1)
        #expect(!lines.contains { $0.hasPrefix("2026-01-01T00:00:00.000Z") })
    }
}
