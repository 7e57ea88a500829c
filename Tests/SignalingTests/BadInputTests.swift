import Foundation
import Testing
@testable import Signaling
#if canImport(Glibc)
import Glibc
#endif

/// One test per kind of bad input: the offender gets `_error` or a close with the right code,
/// a second well-behaved client is still served afterwards, and every room/socket entry is gone
/// once the clients leave.
@Suite(.timeLimit(.minutes(1))) struct BadInputTests {
    /// Sends `text` from a joined client and returns the exact reply; then proves the same
    /// connection still works (a rejoin answers `_peers`) and that others are still served.
    static func replyTo(_ text: String, joinFirst: Bool = true) throws -> String {
        let server = try TestServer.start()
        defer { server.stop() }
        let offender = try SkyRTCClient(url: server.webSocketURL)
        if joinFirst { _ = try offender.join(room: "bad") }
        try offender.webSocket.send(text: text)
        let reply = try offender.nextText()
        // The offender keeps its connection.
        #expect(try offender.join(room: "bad").peers.connections == [])
        #expect(try TestServer.stillServes(server))
        offender.close()
        #expect(TestServer.drained(server))
        return reply
    }

    static func error(_ code: SkyRTCErrorCode, _ message: String) -> String {
        SkyRTCServerMessage.error(SkyRTCErrorReply(code: code, message: message)).jsonText()
    }

    @Test func malformedJSON() throws {
        #expect(try Self.replyTo("{\"eventName\":") == Self.error(.badJSON, "not JSON: unexpected end at byte 13"))
    }

    @Test func jsonThatIsNotAnObject() throws {
        #expect(try Self.replyTo("null") == Self.error(.badEnvelope, "a message must be a JSON object"))
        #expect(try Self.replyTo("[1,2,3]") == Self.error(.badEnvelope, "a message must be a JSON object"))
        #expect(try Self.replyTo(#"{"data":{}}"#) == Self.error(.badEnvelope, "missing string field eventName"))
    }

    @Test func unknownEventName() throws {
        #expect(try Self.replyTo(#"{"eventName":"error","data":{}}"#) == Self.error(.unknownEvent, "unknown eventName 'error'"))
    }

    @Test func missingOrMistypedFields() throws {
        #expect(try Self.replyTo(#"{"eventName":"__join"}"#) == Self.error(.badField, "__join: data must be an object"))
        #expect(try Self.replyTo(#"{"eventName":"__offer","data":{"socketId":42,"sdp":{}}}"#)
            == Self.error(.badField, "__offer: socketId must be a non-empty string"))
        #expect(try Self.replyTo(#"{"eventName":"__ice_candidate","data":{"socketId":"x","label":"0","candidate":"c"}}"#)
            == Self.error(.badField, "__ice_candidate: label must be a small non-negative integer"))
    }

    @Test func targetNotInTheSendersRoom() throws {
        #expect(try Self.replyTo(#"{"eventName":"__answer","data":{"socketId":"nobody","sdp":{}}}"#)
            == Self.error(.unknownTarget, "__answer: nobody is not another member of your room"))
    }

    @Test func forwardingBeforeJoining() throws {
        #expect(try Self.replyTo(#"{"eventName":"__offer","data":{"socketId":"x","sdp":{}}}"#, joinFirst: false)
            == Self.error(.notJoined, "__offer before __join"))
    }

    /// Raw-socket offenders: the close code, then the TCP close, then a healthy server.
    static func closeCodeFor(_ tweak: (inout SignalingServerConfiguration) -> Void = { _ in },
                             _ attack: (RawClient) -> Void) throws -> UInt16? {
        let server = try TestServer.start(tweak)
        defer { server.stop() }
        let raw = try RawClient(port: server.port)
        #expect(raw.upgrade())
        raw.sendFrame(.text, Array(#"{"eventName":"__join","data":{"room":"bad"}}"#.utf8))
        guard case .message(.text(let peers)) = raw.next(), peers.contains("_peers") else {
            Issue.record("no _peers")
            return nil
        }
        #expect(TestServer.eventually { server.stats.joined == 1 })
        attack(raw)
        let code = raw.closeCode()
        #expect(raw.waitForEOF())
        #expect(try TestServer.stillServes(server))
        #expect(TestServer.drained(server))
        return code
    }

    @Test func oversizedFrameCloses1009() throws {
        let code = try Self.closeCodeFor({ $0.maxMessageSize = 64 << 10 }) { raw in
            // Declares 2 MiB and starts sending it: refused on the header, before buffering.
            let frame = WebSocketFrameWriter.frame(.text, payload: [UInt8](repeating: 0x61, count: 2 << 20), maskKey: WebSocketFrameWriter.randomMaskKey())
            raw.send(Array(frame.prefix(200_000)))
        }
        #expect(code == 1009)
    }

    @Test func oversizedFragmentedMessageCloses1009() throws {
        let code = try Self.closeCodeFor({ $0.maxMessageSize = 64 << 10 }) { raw in
            raw.sendFrame(.text, [UInt8](repeating: 0x61, count: 30_000), fin: false)
            for _ in 0..<2 { raw.sendFrame(.continuation, [UInt8](repeating: 0x61, count: 30_000), fin: false) }
        }
        #expect(code == 1009)
    }

    @Test func invalidUTF8Closes1007() throws {
        #expect(try Self.closeCodeFor { $0.sendFrame(.text, [0x7B, 0xC3, 0x28, 0x7D]) } == 1007)
    }

    @Test func unmaskedFrameCloses1002() throws {
        #expect(try Self.closeCodeFor { $0.sendFrame(.text, Array("{}".utf8), masked: false) } == 1002)
    }

    @Test func reservedBitsAndOpcodesClose1002() throws {
        #expect(try Self.closeCodeFor { $0.send([0xC1, 0x80, 1, 2, 3, 4]) } == 1002)
        #expect(try Self.closeCodeFor { $0.send([0x83, 0x80, 1, 2, 3, 4]) } == 1002)
    }

    @Test func tooManyBadMessagesClose1008() throws {
        let code = try Self.closeCodeFor { raw in
            for _ in 0..<SkyRTCRooms.maxErrorsPerSocket { raw.sendFrame(.text, Array("nope".utf8)) }
        }
        #expect(code == 1008)
    }

    @Test func clientThatNeverCompletesTheHandshakeIsClosed() throws {
        let server = try TestServer.start { $0.handshakeTimeout = 0.3 }
        defer { server.stop() }
        let idle = try RawClient(port: server.port)
        let slow = try RawClient(port: server.port)
        slow.send("GET / HTTP/1.1\r\nHost: x\r\n")  // never finishes the head
        let start = MonotonicClock.now()
        #expect(TestServer.eventually { server.stats.connections == 2 })
        #expect(idle.waitForEOF(timeout: 3))
        #expect(slow.waitForEOF(timeout: 3))
        let elapsed = MonotonicClock.now() - start
        #expect(elapsed >= 0.25 && elapsed < 2)
        #expect(try TestServer.stillServes(server))
        #expect(TestServer.drained(server))
    }

    @Test func clientThatReadsNothingIsDropped() throws {
        let server = try TestServer.start { $0.maxOutgoingBytes = 256 << 10 }
        defer { server.stop() }
        // A joined client with a tiny receive window that never reads again.
        let sink = try RawClient(port: server.port, receiveBuffer: 4096)
        #expect(sink.upgrade())
        sink.sendFrame(.text, Array(#"{"eventName":"__join","data":{"room":"flood"}}"#.utf8))
        guard case .message(.text(let peersText)) = sink.next(), case .peers(let sinkPeers) = try SkyRTCServerMessage.decode(Array(peersText.utf8)) else {
            Issue.record("sink did not join")
            return
        }
        // The sender floods faster than the server forwards: its client must queue it all rather than fail itself.
        var roomy = WebSocketClientOptions()
        roomy.maxQueuedBytes = 64 << 20
        let sender = try SkyRTCClient(url: server.webSocketURL, options: roomy)
        #expect(try sender.join(room: "flood").peers.connections == [sinkPeers.you])
        // Forward ~100 KB candidates to the sink until the server gives up on it.
        let blob = String(repeating: "c", count: 100_000)
        var sent = 0
        while server.stats.droppedSlowConsumers == 0 && sent < 400 {
            try sender.send(.iceCandidate(SkyRTCCandidate(id: "0", label: 0, candidate: blob, socketId: sinkPeers.you)))
            sent += 1
            if sent % 20 == 0 { usleep(5_000) }
        }
        #expect(TestServer.eventually { server.stats.droppedSlowConsumers == 1 })
        // The sender is told the sink is gone and is still served.
        #expect(try sender.nextText() == #"{"eventName":"_remove_peer","data":{"socketId":"\#(sinkPeers.you)"}}"#)
        #expect(try TestServer.stillServes(server))
        sender.close()
        #expect(TestServer.drained(server))
    }
}
