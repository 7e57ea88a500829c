import Foundation
import Testing
@testable import Signaling

/// The Origin check on the WebSocket upgrade (cross-site WebSocket hijacking): the pure policy
/// table, then the real server answering 403 or 101.
@Suite(.timeLimit(.minutes(1))) struct OriginPolicyTests {
    static func policy(_ allowed: [String] = [], tls: Bool = false, host: String = "127.0.0.1", port: UInt16 = 3000) throws -> OriginPolicy {
        try OriginPolicy(allowing: allowed, tls: tls, host: host, port: port)
    }

    @Test(arguments: [
        // (Origin, Host, accepted?)
        (nil, "127.0.0.1:3000", true),                                   // not a browser
        ("http://127.0.0.1:3000", "127.0.0.1:3000", true),               // our page
        ("http://localhost:3000", "localhost:3000", true),               // our page under its other name
        ("HTTP://LOCALHOST:3000", "LocalHost:3000", true),               // case-insensitive
        ("http://127.0.0.1:3000", "localhost:3000", true),               // the configured address and port
        ("http://127.0.0.1:8000", "127.0.0.1:8000", true),               // through an ssh -L 8000:127.0.0.1:3000 tunnel
        ("http://[::1]:3000", "[::1]:3000", true),
        ("http://192.168.1.20", "192.168.1.20", true),                    // port 80 implied on both sides
        ("http://192.168.1.20:80", "192.168.1.20", true),
        ("https://127.0.0.1:3000", "127.0.0.1:3000", false),             // wrong scheme without TLS
        ("http://evil.example", "127.0.0.1:3000", false),                // another site
        ("http://evil.example:3000", "evil.example:3000", false),        // DNS rebinding: names need --allow-origin
        ("http://localhost:3001", "localhost:3000", false),              // another port on this machine
        ("null", "127.0.0.1:3000", false),                                // file:// page, sandboxed frame
        ("http://127.0.0.1:3000/path", "127.0.0.1:3000", false),         // not an origin
        ("http://user@127.0.0.1:3000", "127.0.0.1:3000", false),
        ("http://127.0.0.1:99999", "127.0.0.1:99999", false),
        ("http://127.0.0.1:3000\u{1B}[2J", "127.0.0.1:3000", false),
        ("", "127.0.0.1:3000", false),
    ] as [(String?, String, Bool)])
    func defaultPolicy(origin: String?, host: String, accepted: Bool) throws {
        #expect((try Self.policy().check(origin: origin, host: host) == .accept) == accepted)
    }

    @Test func allowedOriginsAndStar() throws {
        let listed = try Self.policy(["https://conf.example.org", "http://Other.Example:8080"])
        #expect(listed.check(origin: "https://conf.example.org:443", host: "x:3000") == .accept)
        #expect(listed.check(origin: "http://other.example:8080", host: "x:3000") == .accept)
        #expect(listed.check(origin: "http://conf.example.org", host: "x:3000") != .accept)
        #expect(try Self.policy(["*"]).check(origin: "http://evil.example", host: "127.0.0.1:3000") == .accept)
        #expect(try Self.policy(["null"]).check(origin: "null", host: "127.0.0.1:3000") == .accept)
        #expect(throws: SignalingError.self) { try Self.policy(["conf.example.org"]) }
        #expect(throws: SignalingError.self) { try Self.policy(["ftp://conf.example.org"]) }
    }

    @Test func tlsPagesAreHTTPS() throws {
        let p = try Self.policy(tls: true)
        #expect(p.check(origin: "https://127.0.0.1:3000", host: "127.0.0.1:3000") == .accept)
        #expect(p.check(origin: "http://127.0.0.1:3000", host: "127.0.0.1:3000") != .accept)
        #expect(p.check(origin: "https://10.0.0.7:3000", host: "10.0.0.7:3000") == .accept)
    }

    // MARK: through the server

    static func upgradeReply(_ server: SignalingServer, host: String? = nil, _ headers: [String]) throws -> String {
        let raw = try RawClient(port: server.port)
        raw.send(RawClient.upgradeRequest(host: host ?? "127.0.0.1:\(server.port)", headers: headers))
        return raw.readHTTPResponse()
    }

    @Test func foreignOriginGets403AndOneLogLine() throws {
        let logPath = FileManager.default.temporaryDirectory.appendingPathComponent("conftui-origin-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: logPath) }
        let server = try TestServer.start(log: try SignalingLog(path: logPath))
        defer { server.stop() }
        let reply = try Self.upgradeReply(server, ["Origin: http://evil.example"])
        #expect(reply.hasPrefix("HTTP/1.1 403 Forbidden\r\n"))
        #expect(!reply.contains("Sec-WebSocket-Accept"))
        let rebinding = try Self.upgradeReply(server, host: "evil.example:\(server.port)", ["Origin: http://evil.example:\(server.port)"])
        #expect(rebinding.hasPrefix("HTTP/1.1 403 Forbidden\r\n"))
        #expect(TestServer.eventually { server.stats.refusedOrigins == 2 })
        #expect(server.stats.webSockets == 0)
        let lines = ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").split(separator: "\n")
        #expect(lines.filter { $0.contains("refused (403)") }.count == 2)
        #expect(try TestServer.stillServes(server))
        #expect(TestServer.drained(server))
    }

    @Test func ownOriginAllowedOriginAndNoOriginAreAccepted() throws {
        let server = try TestServer.start { $0.allowedOrigins = ["https://conf.example.org"] }
        defer { server.stop() }
        let port = server.port
        // What Chromium sends after loading http://127.0.0.1:PORT/ or http://localhost:PORT/ from this server.
        #expect(try Self.upgradeReply(server, ["Origin: http://127.0.0.1:\(port)"]).hasPrefix("HTTP/1.1 101 "))
        #expect(try Self.upgradeReply(server, host: "localhost:\(port)", ["Origin: http://localhost:\(port)"]).hasPrefix("HTTP/1.1 101 "))
        #expect(try Self.upgradeReply(server, ["Origin: https://conf.example.org"]).hasPrefix("HTTP/1.1 101 "))
        #expect(try Self.upgradeReply(server, []).hasPrefix("HTTP/1.1 101 "))
        #expect(try Self.upgradeReply(server, ["Origin: http://conf.example.org"]).hasPrefix("HTTP/1.1 403 "))
        // conftui's own client sends no Origin.
        let client = try SkyRTCClient(url: server.webSocketURL)
        #expect(try client.join(room: "own").peers.connections == [])
        #expect(TestServer.eventually { server.stats.refusedOrigins == 1 })
    }

    @Test func starAllowsEveryOrigin() throws {
        let server = try TestServer.start { $0.allowedOrigins = ["*"] }
        defer { server.stop() }
        #expect(try Self.upgradeReply(server, ["Origin: http://evil.example"]).hasPrefix("HTTP/1.1 101 "))
    }

    @Test func aMistypedAllowOriginStopsTheServerFromStarting() {
        #expect(throws: SignalingError.self) { try TestServer.start { $0.allowedOrigins = ["example.org"] } }
    }
}
