import Foundation
import Testing
@testable import Signaling
#if canImport(Glibc)
import Glibc
#endif

/// Resuming on a new connection through a real server on 127.0.0.1:0 (docs/skyrtc-protocol.md §10).
@Suite(.timeLimit(.minutes(1))) struct ResumeServerTests {
    typealias I = ServerIntegrationTests

    static let sdp = #"{"type":"offer","sdp":"v=0\r\n"}"#

    static func offer(from: String, to: String) -> (sent: String, forwarded: String) {
        (#"{"eventName":"__offer","data":{"socketId":"\#(to)","sdp":\#(sdp)}}"#,
         #"{"eventName":"_offer","data":{"sdp":\#(sdp),"socketId":"\#(from)"}}"#)
    }

    @Test func aNewConnectionWithTheTokenBecomesTheMember() throws {
        let server = try TestServer.start { $0.resumeGrace = 10 }
        defer { server.stop() }
        // A on a raw connection (to speak on it after it was replaced), B on the typed client.
        let old = try RawClient(port: server.port)
        let peersA = try #require(old.upgradeAndJoin("r"))
        let idA = try I.you(peersA)
        let token = try I.token(peersA)
        let b = try SkyRTCClient(url: server.webSocketURL)
        defer { b.close() }
        let pb = try b.join(room: "r").peers
        #expect(pb.resume != nil && pb.resume != token)
        #expect(old.next() == .message(.text(#"{"eventName":"_new_peer","data":{"socketId":"\#(pb.you)"}}"#)))

        let new = try SkyRTCClient(url: server.webSocketURL)
        defer { new.close() }
        try new.webSocket.send(text: #"{"eventName":"__join","data":{"room":"r","name":"Ada","resume":"\#(token)"}}"#)
        #expect(try new.nextText() == #"{"eventName":"_peers","data":{"connections":["\#(pb.you)"],"you":"\#(idA)","resume":"\#(token)"}}"#)
        // What the old connection still says is not A's any more; it is closed with 1000.
        old.sendFrame(.text, Array(Self.offer(from: idA, to: pb.you.rawValue).sent.utf8))
        #expect(old.next() == .message(.close(code: .normal, reason: "resumed on a new connection")))
        #expect(old.waitForEOF())
        // B heard nothing: no `_remove_peer`, no `_new_peer`, not the old connection's offer.
        #expect(throws: SignalingError.timeout) { try b.webSocket.receive(timeout: 0.3) }

        // B's offer to A reaches the new connection; its answer reaches B as A's.
        let (sent, forwarded) = Self.offer(from: pb.you.rawValue, to: idA)
        try b.webSocket.send(text: sent)
        #expect(try new.nextText() == forwarded)
        try new.send(.answer(SkyRTCDescription(sdp: .object([("type", .string("answer")), ("sdp", .string("v=0"))]), socketId: pb.you)))
        #expect(try b.next(timeout: 3) == .answer(SkyRTCDescription(sdp: .object([("type", .string("answer")), ("sdp", .string("v=0"))]),
                                                                     socketId: SocketID(idA))))
        #expect(TestServer.eventually { server.stats.resumed == 1 && server.stats.joined == 2 && server.stats.webSockets == 2 })

        // A later joiner sees the name the resuming join gave.
        let c = try SkyRTCClient(url: server.webSocketURL)
        defer { c.close() }
        #expect(try c.join(room: "r").peers.names == [SocketID(idA): "Ada"])
    }

    @Test func aDropWithoutACloseIsHeldAndResumedWithWhatWasSentMeanwhile() throws {
        let logPath = FileManager.default.temporaryDirectory.appendingPathComponent("conftui-resume-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: logPath) }
        let server = try TestServer.start(log: try SignalingLog(path: logPath)) { $0.resumeGrace = 10; $0.pingInterval = 0.3 }
        defer { server.stop() }
        let old = try RawClient(port: server.port)
        let peersA = try #require(old.upgradeAndJoin("r", resumable: true))
        let idA = try I.you(peersA)
        let token = try I.token(peersA)
        let b = try SkyRTCClient(url: server.webSocketURL)
        defer { b.close() }
        let pb = try b.join(room: "r").peers
        #expect(old.next() == .message(.text(#"{"eventName":"_new_peer","data":{"socketId":"\#(pb.you)"}}"#)))

        // A's network goes away: it is held, still a member.
        // A goes silent (a RawClient answers no pings): two ping intervals later the server drops it, unheard from.
        #expect(TestServer.eventually { server.stats.held == 1 })
        #expect(server.stats.joined == 2 && server.stats.webSockets == 1)
        let (sent, forwarded) = Self.offer(from: pb.you.rawValue, to: idA)
        try b.webSocket.send(text: sent)

        let new = try SkyRTCClient(url: server.webSocketURL)
        defer { new.close() }
        let (peers, earlier) = try new.join(room: "r", resume: token)
        #expect(earlier.isEmpty)
        #expect(peers == SkyRTCPeers(connections: [pb.you], you: SocketID(idA), resume: token))
        #expect(try new.nextText() == forwarded)
        #expect(throws: SignalingError.timeout) { try b.webSocket.receive(timeout: 0.3) }
        #expect(server.stats.held == 0 && server.stats.resumed == 1 && server.stats.joined == 2)

        // One line for the hold, one for the resume; the token, a capability, is never written.
        let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        #expect(log.contains("hold \(idA) room=\"r\""))
        #expect(log.contains("resumed \(idA) room=\"r\" (connection "))
        #expect(log.contains("held messages: 1 delivered, 0 dropped"))
        #expect(!log.contains(token))
    }

    @Test func theGraceEndsInARemovePeerAndACloseFrameLeavesAtOnce() throws {
        let server = try TestServer.start { $0.resumeGrace = 1; $0.pingInterval = 0.3 }
        defer { server.stop() }
        let old = try RawClient(port: server.port)
        let idA = try I.you(try #require(old.upgradeAndJoin("r", resumable: true)))
        let b = try SkyRTCClient(url: server.webSocketURL)
        defer { b.close() }
        #expect(try b.join(room: "r").peers.connections == [SocketID(idA)])
        // A goes silent (a RawClient answers no pings): two ping intervals later the server drops it, unheard from.
        #expect(TestServer.eventually { server.stats.held == 1 })
        #expect(throws: SignalingError.timeout) { try b.webSocket.receive(timeout: 0.3) }
        #expect(try b.nextText() == #"{"eventName":"_remove_peer","data":{"socketId":"\#(idA)"}}"#)
        // The server publishes its stats after flushing the iteration's messages: the _remove_peer can come first.
        #expect(TestServer.eventually { server.stats.held == 0 && server.stats.joined == 1 })

        // A client that says goodbye (a close frame) leaves at once, grace or not.
        let c = try SkyRTCClient(url: server.webSocketURL)
        let pc = try c.join(room: "r").peers
        #expect(try b.next(timeout: 3) == .newPeer(pc.you, name: nil))
        c.close()
        let start = MonotonicClock.now()
        #expect(try b.nextText() == #"{"eventName":"_remove_peer","data":{"socketId":"\#(pc.you)"}}"#)
        #expect(MonotonicClock.now() - start < 0.4)
        #expect(TestServer.eventually { server.stats.held == 0 })

        // So does one whose TCP connection ends (its process exited or was killed): its own stack said goodbye.
        let d = try RawClient(port: server.port)
        let idD = try I.you(try #require(d.upgradeAndJoin("r", resumable: true)))
        #expect(try b.next(timeout: 3) == .newPeer(SocketID(idD), name: nil))
        shutdown(d.fd, Int32(SHUT_RDWR))
        let dropped = MonotonicClock.now()
        #expect(try b.nextText() == #"{"eventName":"_remove_peer","data":{"socketId":"\#(idD)"}}"#)
        #expect(MonotonicClock.now() - dropped < 0.4)
        #expect(TestServer.eventually { server.stats.held == 0 })
    }

    @Test func aHeldMemberKeepsItsAddressesConnectionSlotUntilItResumes() throws {
        let server = try TestServer.start {
            $0.resumeGrace = 10
            $0.pingInterval = 0.3
            $0.maxConnectionsPerIP = 2
        }
        defer { server.stop() }
        let a = try RawClient(port: server.port)
        let peersA = try #require(a.upgradeAndJoin("r", resumable: true))
        // B answers the server's pings (its client's I/O thread does); A goes silent (a RawClient answers none).
        let b = try SkyRTCClient(url: server.webSocketURL)
        defer { b.close() }
        _ = try b.join(room: "r")
        #expect(TestServer.eventually { server.stats.held == 1 && server.stats.connections == 1 })
        // A dropped connection's member still counts for 127.0.0.1: a third connection is refused.
        let refused = try RawClient(port: server.port)
        refused.send(RawClient.upgradeRequest())
        #expect(!refused.readHTTPResponse().hasPrefix("HTTP/1.1 101 "))
        #expect(TestServer.eventually { server.stats.refusedConnections == 1 })
        // The member comes back from another address (its new network); its old address's slot is free again.
        let moved = try RawClient(port: server.port, source: "127.0.0.2")
        #expect(moved.upgrade())
        moved.sendFrame(.text, Array(#"{"eventName":"__join","data":{"room":"r","resume":"\#(try I.token(peersA))"}}"#.utf8))
        guard case .message(.text(let peers)) = moved.next() else {
            Issue.record("no _peers")
            return
        }
        #expect(try I.you(peers) == I.you(peersA))
        let again = try RawClient(port: server.port)
        #expect(again.upgradeAndJoin("r") != nil)
        #expect(server.stats.refusedConnections == 1)
    }
}
