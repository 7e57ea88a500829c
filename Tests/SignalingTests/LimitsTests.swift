import Foundation
import Testing
@testable import Signaling
#if canImport(Glibc)
import Glibc
#endif

/// The server's caps through a real server: each refuses the offender cleanly while the others
/// keep being served.
@Suite(.timeLimit(.minutes(1))) struct LimitsTests {
    static let rateLimitedText =
        #"{"eventName":"_error","data":{"code":"rate_limited","message":"too many messages per second: messages are being dropped"}}"#

    /// Sends `count` same-room rejoins as fast as it can and collects what comes back until the close.
    static func flood(_ raw: RawClient, room: String, count: Int) -> (peers: Int, errors: [String], others: [String], close: UInt16?) {
        let join = Array(#"{"eventName":"__join","data":{"room":"\#(room)"}}"#.utf8)
        var burst: [UInt8] = []
        for _ in 0..<count { burst += WebSocketFrameWriter.frame(.text, payload: join, maskKey: WebSocketFrameWriter.randomMaskKey()) }
        raw.send(burst)
        var peers = 0
        var errors: [String] = []
        var others: [String] = []
        while true {
            switch raw.next(timeout: 3) {
            case .message(.text(let text)) where text.hasPrefix(#"{"eventName":"_peers""#): peers += 1
            case .message(.text(let text)) where text.hasPrefix(#"{"eventName":"_error""#): errors.append(text)
            case .message(.text(let text)): others.append(text)
            case .message(.close(let code, _)): return (peers, errors, others, code.rawValue)
            case .message: continue
            case .timeout, .closed: return (peers, errors, others, nil)
            }
        }
    }

    @Test func aClientOverItsRateIsToldThenClosedWhileAnotherRoomIsServed() throws {
        let server = try TestServer.start {
            $0.messagesPerSecond = 1
            $0.messageBurst = 10
            $0.rateRefusalsBeforeClose = 20
        }
        defer { server.stop() }
        let calm = try SkyRTCClient(url: server.webSocketURL)
        defer { calm.close() }
        let calmPeers = try calm.join(room: "calm").peers
        let calmID = calmPeers.you
        let loud = try RawClient(port: server.port)
        #expect(loud.upgrade())
        let result = Self.flood(loud, room: "loud", count: 60)
        // The burst is served, the first message over it gets rate_limited, the rest are dropped
        // silently until the 20th refusal closes the connection with 1008 (policy violation).
        #expect(result.peers == 10)
        #expect(result.errors == [Self.rateLimitedText])
        #expect(result.others.isEmpty)
        #expect(result.close == 1008)
        #expect(loud.waitForEOF())
        #expect(TestServer.eventually { server.stats.rateLimited == 20 })
        // The calm client in another room is still served, and so is everyone else.
        #expect(try calm.join(room: "calm").peers == SkyRTCPeers(connections: [], you: calmID, resume: calmPeers.resume))
        #expect(try TestServer.stillServes(server))
    }

    @Test func aShortBurstPastTheBucketLosesOnlyTheExcess() throws {
        let server = try TestServer.start {
            $0.messagesPerSecond = 20
            $0.messageBurst = 5
            $0.rateRefusalsBeforeClose = 50
        }
        defer { server.stop() }
        let raw = try RawClient(port: server.port)
        #expect(raw.upgrade())
        let join = Array(#"{"eventName":"__join","data":{"room":"b"}}"#.utf8)
        var burst: [UInt8] = []
        for _ in 0..<8 { burst += WebSocketFrameWriter.frame(.text, payload: join, maskKey: WebSocketFrameWriter.randomMaskKey()) }
        raw.send(burst)
        var texts: [String] = []
        while case .message(.text(let t)) = raw.next(timeout: 0.5) { texts.append(t) }
        #expect(texts.filter { $0.hasPrefix(#"{"eventName":"_peers""#) }.count == 5)
        #expect(texts.filter { $0 == Self.rateLimitedText }.count == 1)
        // Quiet long enough to refill, the client is served again.
        usleep(400_000)
        raw.sendFrame(.text, join)
        guard case .message(.text(let again)) = raw.next() else { Issue.record("no reply after the pause"); return }
        #expect(again.hasPrefix(#"{"eventName":"_peers""#))
    }

    @Test func compatOriginalDropsSilentlyThenCloses() throws {
        let server = try TestServer.start {
            $0.format = .original
            $0.messagesPerSecond = 2
            $0.messageBurst = 10
            $0.rateRefusalsBeforeClose = 20
        }
        defer { server.stop() }
        let loud = try RawClient(port: server.port)
        #expect(loud.upgrade())
        let result = Self.flood(loud, room: "loud", count: 60)
        #expect(result.peers == 10)
        #expect(result.errors.isEmpty)
        #expect(result.close == 1008)
    }

    @Test func thePerAddressCapRefusesTheNextConnectionOnly() throws {
        let server = try TestServer.start { $0.maxConnectionsPerIP = 2 }
        defer { server.stop() }
        let a = try RawClient(port: server.port)
        let b = try RawClient(port: server.port)
        #expect(a.upgradeAndJoin("ip") != nil)
        #expect(b.upgradeAndJoin("ip") != nil)
        #expect(TestServer.eventually { server.stats.joined == 2 })
        // A third connection from 127.0.0.1: a 503 (or at least a close), never an upgrade.
        let c = try RawClient(port: server.port)
        c.send(RawClient.upgradeRequest())
        let reply = c.readHTTPResponse()
        #expect(reply.isEmpty || reply.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"))
        #expect(c.waitForEOF())
        #expect(TestServer.eventually { server.stats.refusedConnections == 1 })
        // Another address is not affected, nor are the two already in.
        let other = try RawClient(port: server.port, source: "127.0.0.2")
        #expect(other.upgradeAndJoin("ip") != nil)
        #expect(a.upgradeAndJoinAgain("ip"))
        #expect(b.upgradeAndJoinAgain("ip"))
        #expect(server.stats.refusedConnections == 1)
    }

    @Test func aSlotFreedIsASlotToTakeAgain() throws {
        let server = try TestServer.start { $0.maxConnectionsPerIP = 1 }
        defer { server.stop() }
        var first: RawClient? = try RawClient(port: server.port)
        #expect(first?.upgradeAndJoin("again") != nil)
        first = nil
        #expect(TestServer.eventually { server.stats.connections == 0 })
        let second = try RawClient(port: server.port)
        #expect(second.upgradeAndJoin("again") != nil)
        #expect(server.stats.refusedConnections == 0)
    }

    @Test func theTotalCapRefusesTheNextConnectionAndFreesOnClose() throws {
        let server = try TestServer.start {
            $0.maxConnections = 3
            $0.maxConnectionsPerIP = 100
        }
        defer { server.stop() }
        var clients: [RawClient] = []
        for _ in 0..<3 {
            let raw = try RawClient(port: server.port)
            #expect(raw.upgradeAndJoin("total") != nil)
            clients.append(raw)
        }
        let refused = try RawClient(port: server.port)
        refused.send(RawClient.upgradeRequest())
        let reply = refused.readHTTPResponse()
        #expect(reply.isEmpty || reply.hasPrefix("HTTP/1.1 503 "))
        #expect(refused.waitForEOF())
        #expect(TestServer.eventually { server.stats.refusedConnections == 1 })
        // The three inside keep working.
        for raw in clients { #expect(raw.upgradeAndJoinAgain("total")) }
        // One leaves: its slot is free again.
        clients.removeLast()
        #expect(TestServer.eventually { server.stats.connections == 2 })
        let next = try RawClient(port: server.port)
        #expect(next.upgradeAndJoin("total") != nil)
    }

    @Test func roomAndMemberCaps() throws {
        let server = try TestServer.start {
            $0.maxRooms = 2
            $0.maxMembersPerRoom = 2
        }
        defer { server.stop() }
        let a = try SkyRTCClient(url: server.webSocketURL)
        let b = try SkyRTCClient(url: server.webSocketURL)
        let c = try SkyRTCClient(url: server.webSocketURL)
        let d = try SkyRTCClient(url: server.webSocketURL)
        defer { a.close(); b.close(); c.close(); d.close() }
        let idA = try a.join(room: "r1").peers.you
        let idB = try b.join(room: "r1").peers.you
        #expect(try a.next(timeout: 3) == .newPeer(idB, name: nil))
        _ = try c.join(room: "r2")
        // A third room: refused, and no room appears.
        try d.webSocket.send(text: #"{"eventName":"__join","data":{"room":"r3"}}"#)
        #expect(try d.nextText() == #"{"eventName":"_error","data":{"code":"too_many_rooms","message":"__join: the server has its most rooms (2)"}}"#)
        // A third member of r1: refused, and r1's members hear nothing.
        try d.webSocket.send(text: #"{"eventName":"__join","data":{"room":"r1"}}"#)
        #expect(try d.nextText() == #"{"eventName":"_error","data":{"code":"room_full","message":"__join: the room is full (2 members)"}}"#)
        #expect(throws: SignalingError.timeout) { try a.webSocket.receive(timeout: 0.3) }
        #expect(TestServer.eventually { server.stats.rooms == 2 && server.stats.joined == 3 })
        // The typed client reports the refusal at once (no `_peers` will come).
        #expect(throws: SignalingError.badMessage(.roomFull, "__join: the room is full (2 members)")) {
            try d.join(room: "r1", timeout: 2)
        }
        // The refused socket is still usable: r2 has room for it.
        let peersD = try d.join(room: "r2").peers
        #expect(peersD.connections.count == 1)
        // A member of r1 still reaches the other.
        try b.send(.offer(SkyRTCDescription(sdp: .object([("type", .string("offer"))]), socketId: idA)))
        #expect(try a.nextText().hasPrefix(#"{"eventName":"_offer""#))
    }

    @Test func aSlowlorisTricklingOneFrameIsDroppedAtTheIdleTimeout() throws {
        let server = try TestServer.start { $0.pingInterval = 0.3 }
        defer { server.stop() }
        let slow = try RawClient(port: server.port)
        #expect(slow.upgradeAndJoin("slow") != nil)
        // A text frame announcing 100 bytes, then one byte every 100 ms: bytes keep arriving, but
        // no frame ever completes (and a pong cannot be sent inside a frame).
        let frame = WebSocketFrameWriter.frame(.text, payload: [UInt8](repeating: 0x20, count: 100), maskKey: WebSocketFrameWriter.randomMaskKey())
        let start = MonotonicClock.now()
        var dropped = false
        for byte in frame {
            guard slow.send([byte]) else { dropped = true; break }
            if slow.waitForEOF(timeout: 0.1) { dropped = true; break }
        }
        let elapsed = MonotonicClock.now() - start
        #expect(dropped)
        // Twice the interval without a complete frame (0.6 s), plus a sweep.
        #expect(elapsed > 0.4 && elapsed < 2.5)
        #expect(TestServer.eventually { server.stats.joined == 0 })
        #expect(try TestServer.stillServes(server))
    }

    @Test func theBufferCapDropsTheBiggestHolderOnly() throws {
        let server = try TestServer.start { $0.maxBufferedBytes = 2 << 20 }
        defer { server.stop() }
        // Three clients each start a fragmented message and never finish it (§5.4: the server must
        // hold the fragments until the last one).
        func hold(_ bytes: Int) throws -> RawClient {
            let raw = try RawClient(port: server.port)
            #expect(raw.upgradeAndJoin("hoard") != nil)
            raw.sendFrame(.text, [UInt8](repeating: 0x20, count: bytes), fin: false)
            return raw
        }
        let big = try hold(900_000)
        let medium = try hold(600_000)
        #expect(TestServer.eventually { server.stats.joined == 2 })
        usleep(200_000)
        #expect(server.stats.droppedOverBudget == 0)
        let last = try hold(700_000)
        #expect(big.waitForEOF())
        #expect(TestServer.eventually { server.stats.droppedOverBudget == 1 })
        // The other two are still served: a ping between fragments is answered (§5.4 allows it).
        for raw in [medium, last] {
            raw.sendFrame(.ping, Array("alive".utf8))
            var pong = false
            while case .message(let m) = raw.next(timeout: 2) {
                if m == .pong(Array("alive".utf8)) { pong = true; break }
            }
            #expect(pong)
        }
        #expect(server.stats.droppedOverBudget == 1)
    }
}

@Suite(.timeLimit(.minutes(1))) struct LogFloodTests {
    @Test func aJoinFloodDoesNotBecomeALogFlood() throws {
        let logPath = FileManager.default.temporaryDirectory.appendingPathComponent("conftui-flood-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: logPath) }
        let server = try TestServer.start(log: try SignalingLog(path: logPath)) {
            $0.messagesPerSecond = 1_000_000
            $0.messageBurst = 1_000_000
        }
        defer { server.stop() }
        // 3000 joins alternating between two rooms: 3000 joins and 2999 leaves, 5999 events.
        let raw = try RawClient(port: server.port)
        #expect(raw.upgrade())
        var burst: [UInt8] = []
        for i in 0..<3000 {
            let join = Array(#"{"eventName":"__join","data":{"room":"r\#(i % 2)"}}"#.utf8)
            burst += WebSocketFrameWriter.frame(.text, payload: join, maskKey: WebSocketFrameWriter.randomMaskKey())
        }
        raw.send(burst)
        var replies = 0
        while case .message(.text) = raw.next(timeout: 2) { replies += 1 }
        #expect(replies == 3000)
        usleep(100_000)
        raw.send(WebSocketFrameWriter.close(.normal, reason: "", maskKey: WebSocketFrameWriter.randomMaskKey()))
        #expect(raw.waitForEOF())
        #expect(TestServer.drained(server))
        let lines = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n")
        // The burst of 1000, what the flood's own duration refilled (100 a second), and the last leave,
        // which says how many were left out.
        #expect(lines.count >= 1000 && lines.count < 1600)
        #expect(lines.last?.contains(" leave ") == true && lines.last?.contains("more like it not logged)") == true)
    }
}

extension RawClient {
    /// Rejoins `room` on an already upgraded connection and checks the `_peers` reply.
    func upgradeAndJoinAgain(_ room: String) -> Bool {
        sendFrame(.text, Array(#"{"eventName":"__join","data":{"room":"\#(room)"}}"#.utf8))
        while true {
            switch next() {
            case .message(.text(let text)) where text.hasPrefix(#"{"eventName":"_peers""#): return true
            case .message(.text): continue
            default: return false
            }
        }
    }
}
