import Foundation
import Testing
@testable import Signaling
#if canImport(Glibc)
import Glibc
#endif

/// A real server on 127.0.0.1:0 and real clients; the exact JSON text on the wire is checked.
@Suite(.timeLimit(.minutes(1))) struct ServerIntegrationTests {
    static let sdpOffer = #"{"type":"offer","sdp":"v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\n"}"#
    static let sdpAnswer = #"{"type":"answer","sdp":"v=0\r\no=- 3 4 IN IP4 127.0.0.1\r\ns=-\r\n"}"#

    static func you(_ peersText: String) throws -> String {
        guard case .peers(let p) = try SkyRTCServerMessage.decode(Array(peersText.utf8)) else { throw SignalingError.timeout }
        return p.you.rawValue
    }

    /// The resume token a `_peers` carries (conftui format): 32 lowercase hex digits.
    static func token(_ peersText: String) throws -> String {
        guard case .peers(let p) = try SkyRTCServerMessage.decode(Array(peersText.utf8)), let token = p.resume,
              token.utf8.count == 32, token.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw SignalingError.timeout
        }
        return token
    }

    @Test func offerAnswerAndCandidatesOnTheWire() throws {
        let server = try TestServer.start()
        defer { server.stop() }
        let a = try SkyRTCClient(url: server.webSocketURL)
        let b = try SkyRTCClient(url: server.webSocketURL)
        let c = try SkyRTCClient(url: server.webSocketURL)

        try a.webSocket.send(text: #"{"eventName":"__join","data":{"room":"r1"}}"#)
        let peersA = try a.nextText()
        let idA = try Self.you(peersA)
        #expect(peersA == #"{"eventName":"_peers","data":{"connections":[],"you":"\#(idA)","resume":"\#(try Self.token(peersA))"}}"#)

        try b.webSocket.send(text: #"{"eventName":"__join","data":{"room":"r1"}}"#)
        let peersB = try b.nextText()
        let idB = try Self.you(peersB)
        #expect(peersB == #"{"eventName":"_peers","data":{"connections":["\#(idA)"],"you":"\#(idB)","resume":"\#(try Self.token(peersB))"}}"#)
        #expect(try Self.token(peersA) != Self.token(peersB))
        #expect(try a.nextText() == #"{"eventName":"_new_peer","data":{"socketId":"\#(idB)"}}"#)
        #expect(idA != idB && idA.count == 36)

        // The newcomer offers; the server rewrites socketId to the sender and keeps sdp verbatim.
        try b.webSocket.send(text: #"{"eventName":"__offer","data":{"socketId":"\#(idA)","sdp":\#(Self.sdpOffer)}}"#)
        #expect(try a.nextText() == #"{"eventName":"_offer","data":{"sdp":\#(Self.sdpOffer),"socketId":"\#(idB)"}}"#)
        try a.webSocket.send(text: #"{"eventName":"__answer","data":{"socketId":"\#(idB)","sdp":\#(Self.sdpAnswer)}}"#)
        #expect(try b.nextText() == #"{"eventName":"_answer","data":{"sdp":\#(Self.sdpAnswer),"socketId":"\#(idA)"}}"#)

        // iOS-style candidate with id → id first, then label, candidate, socketId, then our extension keys.
        let line = "candidate:842163049 1 udp 1677729535 203.0.113.7 48741 typ srflx raddr 10.0.0.5 rport 64289 generation 0"
        try b.webSocket.send(text: #"{"eventName":"__ice_candidate","data":{"id":"audio","label":0,"candidate":"\#(line)","socketId":"\#(idA)"}}"#)
        #expect(try a.nextText() == #"{"eventName":"_ice_candidate","data":{"id":"audio","label":0,"candidate":"\#(line)","socketId":"\#(idB)","sdpMLineIndex":0,"sdpMid":"audio"}}"#)
        // Browser-style candidate (label only).
        try a.webSocket.send(text: #"{"eventName":"__ice_candidate","data":{"label":1,"candidate":"candidate:1 1 udp 2122260223 192.0.2.1 5000 typ host","socketId":"\#(idB)"}}"#)
        #expect(try b.nextText() == #"{"eventName":"_ice_candidate","data":{"label":1,"candidate":"candidate:1 1 udp 2122260223 192.0.2.1 5000 typ host","socketId":"\#(idA)","sdpMLineIndex":1}}"#)

        // C in another room cannot reach A.
        try c.webSocket.send(text: #"{"eventName":"__join","data":{"room":"r2"}}"#)
        _ = try c.nextText()
        try c.webSocket.send(text: #"{"eventName":"__offer","data":{"socketId":"\#(idA)","sdp":\#(Self.sdpOffer)}}"#)
        let refused = try c.nextText()
        #expect(refused.hasPrefix(#"{"eventName":"_error","data":{"code":"unknown_target","message":"#))

        // B leaves by closing: A hears _remove_peer.
        b.close()
        #expect(try a.nextText() == #"{"eventName":"_remove_peer","data":{"socketId":"\#(idB)"}}"#)
        #expect(TestServer.eventually { server.stats.joined == 2 })
        a.close()
        c.close()
        #expect(TestServer.drained(server))
    }

    @Test func binaryPrettyPrintedJSONGetsTextReplies() throws {
        let server = try TestServer.start()
        defer { server.stop() }
        let ios = try SkyRTCClient(url: server.webSocketURL)
        try ios.webSocket.send(binary: Array("{\n  \"eventName\" : \"__join\",\n  \"data\" : {\n    \"room\" : \"100\"\n  }\n}".utf8))
        guard case .text(let text) = try ios.webSocket.receive(timeout: 3) else {
            Issue.record("reply was not a text frame")
            return
        }
        #expect(text.hasPrefix(#"{"eventName":"_peers","data":{"connections":[],"you":""#))
        #expect(TestServer.eventually { server.stats.rooms == 1 })
    }

    @Test func closeHandshakeIsEchoed() throws {
        let server = try TestServer.start()
        defer { server.stop() }
        let raw = try RawClient(port: server.port)
        #expect(raw.upgrade())
        raw.send(WebSocketFrameWriter.close(.normal, reason: "bye", maskKey: WebSocketFrameWriter.randomMaskKey()))
        #expect(raw.closeCode() == 1000)
        #expect(raw.waitForEOF())
        #expect(TestServer.drained(server))
    }

    @Test func pingsAreAnsweredWithTheSamePayload() throws {
        let server = try TestServer.start()
        defer { server.stop() }
        let raw = try RawClient(port: server.port)
        #expect(raw.upgrade())
        raw.sendFrame(.ping, Array("are you there".utf8))
        #expect(raw.next() == .message(.pong(Array("are you there".utf8))))
    }

    @Test func httpPageHealthAndNotFound() throws {
        let server = try TestServer.start()
        defer { server.stop() }
        func get(_ path: String) throws -> String {
            let raw = try RawClient(port: server.port)
            raw.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            return raw.readHTTPResponse()
        }
        let page = try get("/")
        #expect(page.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(page.contains("Content-Type: text/html; charset=utf-8\r\n"))
        #expect(page.hasSuffix("\r\n\r\n" + BrowserPage.html))
        #expect(try get("/index.html").hasSuffix(BrowserPage.html))
        let health = try get("/healthz")
        #expect(health.hasPrefix("HTTP/1.1 200 OK\r\n") && health.hasSuffix("\r\n\r\nok"))
        #expect(try get("/favicon.ico").hasPrefix("HTTP/1.1 404 Not Found\r\n"))
        #expect(try get("/ws").hasPrefix("HTTP/1.1 426 Upgrade Required\r\n"))
        #expect(TestServer.drained(server))
    }

    @Test func upgradeIsAcceptedOnAnyPath() throws {
        let server = try TestServer.start()
        defer { server.stop() }
        let raw = try RawClient(port: server.port)
        #expect(raw.upgrade(path: "/any/path?room=x"))
        let client = try SkyRTCClient(url: "ws://127.0.0.1:\(server.port)/socket.io/?x=1#room")
        #expect(try client.join(room: "").peers.connections == [])
    }

    @Test func badUpgradeGets400AndOversizedHeadGets431() throws {
        let server = try TestServer.start { $0.maxRequestHeadBytes = 1024 }
        defer { server.stop() }
        let bad = try RawClient(port: server.port)
        bad.send("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n")
        #expect(bad.readHTTPResponse().hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        let huge = try RawClient(port: server.port)
        huge.send("GET / HTTP/1.1\r\nHost: x\r\nX-Filler: " + String(repeating: "a", count: 4000) + "\r\n\r\n")
        #expect(huge.readHTTPResponse().hasPrefix("HTTP/1.1 431 "))
        #expect(try TestServer.stillServes(server))
        #expect(TestServer.drained(server))
    }

    @Test func tlsSelfSignedServesWSSAndHTTPS() throws {
        let server = try TestServer.start { $0.tls = .selfSigned }
        defer { server.stop() }
        #expect(server.webSocketURL.hasPrefix("wss://127.0.0.1:"))
        #expect(server.pageURL.hasPrefix("https://127.0.0.1:"))
        var insecure = WebSocketClientOptions()
        insecure.tlsVerification = .insecure
        var pinned = WebSocketClientOptions()
        pinned.tlsVerification = .pinnedSHA256(server.tlsCertificateSHA256!)
        let a = try SkyRTCClient(url: server.webSocketURL, options: insecure)
        let b = try SkyRTCClient(url: server.webSocketURL, options: pinned)
        let pa = try a.join(room: "tls").peers
        let pb = try b.join(room: "tls").peers
        #expect(pb.connections == [pa.you])
        #expect(try a.next(timeout: 3) == .newPeer(pb.you, name: nil))
        // A message bigger than one TLS record crosses intact.
        let big = String(repeating: "x", count: 100_000)
        try b.send(.offer(SkyRTCDescription(sdp: .object([("type", .string("offer")), ("sdp", .string(big))]), socketId: pa.you)))
        #expect(try a.nextText() == #"{"eventName":"_offer","data":{"sdp":{"type":"offer","sdp":"\#(big)"},"socketId":"\#(pb.you)"}}"#)

        // A wrong pin and the system trust store both refuse the self-signed certificate.
        var wrong = WebSocketClientOptions()
        wrong.tlsVerification = .pinnedSHA256([UInt8](repeating: 0, count: 32))
        #expect(throws: SignalingError.self) { try WebSocketClient(url: server.webSocketURL, options: wrong) }
        #expect(throws: SignalingError.self) { try WebSocketClient(url: server.webSocketURL) }

        // https:// GET of the page over the same port.
        let raw = try RawClient(port: server.port)
        SocketOptions.setNonBlocking(raw.fd)
        let tls = try TLSClientSession.connect(fd: dup(raw.fd), host: "localhost", verification: .insecure, timeout: 3)
        defer { tls.close() }
        let request = Array("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { tls.write($0) }
        var response: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        let deadline = MonotonicClock.now() + 3
        while MonotonicClock.now() < deadline {
            _ = SocketOptions.wait(tls.fd, events: Int16(POLLIN), timeout: 0.1)
            let r = buf.withUnsafeMutableBytes { tls.read(into: $0) }
            if case .bytes(let n) = r { response += buf[0..<n] }
            if case .endOfStream = r { break }
        }
        let text = String(decoding: response, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n") && text.hasSuffix("ok"))
        a.close()
        b.close()
    }

    @Test func compatOriginalWireFormat() throws {
        let server = try TestServer.start { $0.format = .original }
        defer { server.stop() }
        let a = try SkyRTCClient(url: server.webSocketURL)
        let b = try SkyRTCClient(url: server.webSocketURL)
        let pa = try a.join(room: "r1").peers
        let pb = try b.join(room: "r2").peers
        // Candidates: only label, candidate, socketId (id stripped, no extension keys); cross-room allowed.
        try b.webSocket.send(text: #"{"eventName":"__ice_candidate","data":{"id":"audio","label":0,"candidate":"candidate:1 1 udp 1 192.0.2.1 9 typ host","socketId":"\#(pa.you)"}}"#)
        #expect(try a.nextText() == #"{"eventName":"_ice_candidate","data":{"label":0,"candidate":"candidate:1 1 udp 1 192.0.2.1 9 typ host","socketId":"\#(pb.you)"}}"#)
        // Bad input and unknown events: silence, and the connection keeps working.
        try b.webSocket.send(text: "{not json")
        try b.webSocket.send(text: "null")
        try b.webSocket.send(text: #"{"eventName":"custom","data":{}}"#)
        try b.webSocket.send(text: #"{"eventName":"__offer","data":{"socketId":"nobody","sdp":{}}}"#)
        try b.webSocket.send(text: #"{"eventName":"__offer","data":{"socketId":"\#(pa.you)","sdp":{"type":"offer","sdp":"v=0"}}}"#)
        #expect(try a.nextText() == #"{"eventName":"_offer","data":{"sdp":{"type":"offer","sdp":"v=0"},"socketId":"\#(pb.you)"}}"#)
        #expect(throws: SignalingError.timeout) { try b.webSocket.receive(timeout: 0.3) }
    }

    @Test func serverPingsIdleClientsAndDropsSilentOnes() throws {
        let server = try TestServer.start { $0.pingInterval = 0.2 }
        defer { server.stop() }
        let silent = try RawClient(port: server.port)
        #expect(silent.upgrade())
        // §5.5.2 keep-alive: a ping arrives after one interval of silence.
        #expect(silent.next(timeout: 1) == .message(.ping([])))
        // No pong and no data: dropped after twice the interval.
        let start = MonotonicClock.now()
        #expect(silent.waitForEOF(timeout: 2))
        #expect(MonotonicClock.now() - start < 1.5)
        // Our client answers pings, so it survives several intervals.
        let alive = try SkyRTCClient(url: server.webSocketURL)
        usleep(1_000_000)
        #expect(try alive.join(room: "still-here").peers.connections == [])
    }

    @Test func stopClosesClientsWithGoingAway() throws {
        let server = try TestServer.start()
        let raw = try RawClient(port: server.port)
        #expect(raw.upgrade())
        #expect(TestServer.eventually { server.stats.webSockets == 1 })
        server.stop()
        #expect(raw.closeCode() == 1001)
        server.stop()  // idempotent
    }

    @Test func manyConcurrentConnections() throws {
        // Every test client comes from 127.0.0.1: lift the per-address cap (its own tests are in LimitsTests).
        let server = try TestServer.start { $0.maxConnectionsPerIP = 4000 }
        defer { server.stop() }
        let count = 2000
        var clients: [RawClient] = []
        // Upgrade request and first frame pipelined in one write: the server must keep the bytes
        // behind the request head for the frame parser.
        for i in 0..<count {
            let raw = try RawClient(port: server.port)
            raw.send(Array(RawClient.upgradeRequest().utf8)
                + WebSocketFrameWriter.frame(.text, payload: Array(#"{"eventName":"__join","data":{"room":"room\#(i % 200)"}}"#.utf8),
                                             maskKey: WebSocketFrameWriter.randomMaskKey()))
            clients.append(raw)
        }
        var upgraded = 0
        for raw in clients where raw.readHTTPResponse().hasPrefix("HTTP/1.1 101 ") { upgraded += 1 }
        #expect(upgraded == count)
        #expect(TestServer.eventually(10) { server.stats.joined == count && server.stats.rooms == 200 })
        clients.removeAll()
        #expect(TestServer.drained(server))
    }
}

@Suite(.timeLimit(.minutes(1))) struct WebSocketClientTests {
    @Test func clientCloseHandshakeThenReceiveThrowsClosed() throws {
        let server = try TestServer.start()
        defer { server.stop() }
        let client = try WebSocketClient(url: server.webSocketURL)
        try client.ping(Array("p".utf8))
        #expect(try client.receive(timeout: 3) == .pong(Array("p".utf8)))
        client.close(.normal, reason: "done")
        #expect(try client.receive(timeout: 3) == .close(code: .normal, reason: ""))
        #expect(client.isClosed)
        #expect(throws: SignalingError.closed) { try client.receive(timeout: 0.1) }
        #expect(throws: SignalingError.closed) { try client.send(text: "late") }
        #expect(TestServer.drained(server))
    }

    @Test func droppingAClientWithoutClosingLeavesTheRoom() throws {
        let server = try TestServer.start()
        defer { server.stop() }
        let a = try SkyRTCClient(url: server.webSocketURL)
        _ = try a.join(room: "drop")
        var idB: SocketID?
        do {
            let b = try SkyRTCClient(url: server.webSocketURL)
            idB = try b.join(room: "drop").peers.you
            #expect(try a.next(timeout: 3) == .newPeer(idB!, name: nil))
        }
        // b's reader thread noticed the drop, said 1001 and closed the socket.
        #expect(try a.nextText() == #"{"eventName":"_remove_peer","data":{"socketId":"\#(idB!)"}}"#)
        a.close()
        #expect(TestServer.drained(server))
    }

    @Test func clientFailsServerFramesThatAreMasked() throws {
        // A fake server that answers the upgrade, then sends a masked frame (forbidden by §5.1).
        let (listener, port) = loopbackListener()
        defer { close(listener) }
        let fake = Thread {
            let fd = accept(listener, nil, nil)
            var buf = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &buf, buf.count, 0)
            let request = String(decoding: buf[0..<max(0, n)], as: UTF8.self)
            let key = request.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }?
                .split(separator: ":")[1].trimmingCharacters(in: .whitespaces) ?? ""
            let reply = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(WebSocketAcceptKey.accept(forKey: key))\r\n\r\n"
            _ = send(fd, reply, reply.utf8.count, 0)
            let bad = WebSocketFrameWriter.frame(.text, payload: Array("hi".utf8), maskKey: (1, 2, 3, 4))
            _ = send(fd, bad, bad.count, 0)
            usleep(500_000)
            close(fd)
        }
        fake.start()
        let client = try WebSocketClient(url: "ws://127.0.0.1:\(port)/")
        #expect(try client.receive(timeout: 3) == .close(code: .protocolError, reason: "server frame is masked"))
    }
}
