import Testing
@testable import Signaling

@Suite struct HandshakeAndHTTPTests {
    static func head(_ text: String) -> HTTPRequestHead {
        guard case .complete(let h, _) = HTTPRequestParser.parse(Array(text.utf8), maxHeadBytes: 16384) else {
            fatalError("test request did not parse")
        }
        return h
    }

    static let upgradeRequest = "GET /chat HTTP/1.1\r\nHost: server.example.com\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nOrigin: http://example.com\r\nSec-WebSocket-Version: 13\r\n\r\n"

    @Test func acceptKeyMatchesRFCSample() {
        // RFC 6455 §1.3.
        #expect(WebSocketAcceptKey.accept(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        #expect(WebSocketAcceptKey.isValidKey(WebSocketAcceptKey.randomKey()))
        #expect(!WebSocketAcceptKey.isValidKey("c2hvcnQ="))
    }

    @Test func validUpgradeGets101WithTheAcceptKey() {
        guard case .upgrade(let response) = HTTPRouter.route(Self.head(Self.upgradeRequest), page: "P") else {
            Issue.record("not an upgrade")
            return
        }
        let text = String(decoding: response.serialized(), as: UTF8.self)
        #expect(text == "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n")
    }

    @Test func upgradeHeadersAreCaseInsensitiveAndTokenLists() {
        let req = "GET /?room=1 HTTP/1.1\r\nhost: x\r\nUPGRADE: WebSocket\r\nconnection: keep-alive, Upgrade\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n\r\n"
        guard case .upgrade = HTTPRouter.route(Self.head(req), page: "") else {
            Issue.record("expected an upgrade")
            return
        }
    }

    @Test func aSubprotocolTheServerDoesNotSpeakGetsNoHeaderBack() {
        // §4.2.2: a server that agrees to none of the client's subprotocols "MUST NOT send back a
        // |Sec-WebSocket-Protocol| header field in its response".
        let asking = Self.upgradeRequest.replacingOccurrences(of: "Sec-WebSocket-Version: 13\r\n",
                                                              with: "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: janus-protocol, chat\r\n")
        guard case .upgrade(let response) = HTTPRouter.route(Self.head(asking), page: "") else {
            Issue.record("not an upgrade")
            return
        }
        #expect(!response.headers.contains { $0.0.lowercased() == "sec-websocket-protocol" })
    }

    static func status(_ request: String) -> Int? {
        switch HTTPRouter.route(head(request), page: "<html>page</html>") {
        case .upgrade(let r): return r.status
        case .respond(let r, _): return r.status
        }
    }

    @Test func badUpgradesGet400And426() {
        let base = Self.upgradeRequest
        #expect(Self.status(base.replacingOccurrences(of: "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n", with: "")) == 400)
        #expect(Self.status(base.replacingOccurrences(of: "dGhlIHNhbXBsZSBub25jZQ==", with: "c2hvcnQ=")) == 400)
        #expect(Self.status(base.replacingOccurrences(of: "GET", with: "POST")) == 400)
        #expect(Self.status(base.replacingOccurrences(of: "Connection: Upgrade\r\n", with: "")) == 400)
        #expect(Self.status(base.replacingOccurrences(of: "Host: server.example.com\r\n", with: "")) == 400)
        // §4.2.2: unknown version → 426 with the versions we speak.
        let v8 = HTTPRouter.route(Self.head(base.replacingOccurrences(of: "Version: 13", with: "Version: 8")), page: "")
        guard case .respond(let r, _) = v8 else { Issue.record("no response"); return }
        #expect(r.status == 426)
        #expect(r.headers.contains { $0.0 == "Sec-WebSocket-Version" && $0.1 == "13" })
    }

    @Test func plainHTTPRoutes() {
        guard case .respond(let page, false) = HTTPRouter.route(Self.head("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), page: "<html>page</html>") else {
            Issue.record("no page")
            return
        }
        #expect(page.status == 200)
        #expect(page.body == Array("<html>page</html>".utf8))
        #expect(page.headers.contains { $0.0 == "Content-Type" && $0.1 == "text/html; charset=utf-8" })
        #expect(Self.status("GET /index.html HTTP/1.1\r\nHost: x\r\n\r\n") == 200)
        #expect(Self.status("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n") == 200)
        #expect(Self.status("GET /nope HTTP/1.1\r\nHost: x\r\n\r\n") == 404)
        #expect(Self.status("GET /ws HTTP/1.1\r\nHost: x\r\n\r\n") == 426)
        #expect(Self.status("DELETE / HTTP/1.1\r\nHost: x\r\n\r\n") == 405)
    }

    @Test func requestHeadParserLimits() {
        #expect(HTTPRequestParser.parse(Array("GET / HTTP/1.1\r\nHost: x\r\n".utf8), maxHeadBytes: 100) == .incomplete)
        #expect(HTTPRequestParser.parse([UInt8](repeating: 0x41, count: 200), maxHeadBytes: 100) == .tooLarge)
        if case .invalid = HTTPRequestParser.parse(Array("HELLO\r\n\r\n".utf8), maxHeadBytes: 100) {} else { Issue.record("expected invalid") }
        if case .invalid = HTTPRequestParser.parse(Array("GET / HTTP/1.1\r\nno colon\r\n\r\n".utf8), maxHeadBytes: 100) {} else { Issue.record("expected invalid") }
        // Bytes after the head are left for the WebSocket parser.
        guard case .complete(_, let consumed) = HTTPRequestParser.parse(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\nXYZ".utf8), maxHeadBytes: 100) else {
            Issue.record("expected complete")
            return
        }
        #expect(consumed == 27)
    }

    @Test func webSocketURLs() throws {
        let u = try WebSocketURL("wss://localhost:8443/path?q=1#room")
        #expect(u == WebSocketURL(secureForTest: true, host: "localhost", port: 8443, resource: "/path?q=1"))
        let v = try WebSocketURL("ws://127.0.0.1:3000")
        #expect(v.resource == "/" && v.port == 3000 && !v.secure)
        #expect(throws: SignalingError.self) { try WebSocketURL("ftp://x") }
    }
}

extension WebSocketURL {
    init(secureForTest: Bool, host: String, port: UInt16, resource: String) {
        try! self.init("ws://placeholder:1/")
        self.secure = secureForTest
        self.host = host
        self.port = port
        self.resource = resource
    }
}
