import Testing
@testable import Signaling

/// One `WebSocketSession` and the peer at the other end of it, on a virtual clock: the peer's frames
/// are built by the frame writer (masked when the peer is a client), and what the session writes is
/// parsed back by a parser in the peer's role, which also checks the session's masking (§5.1).
struct SessionHarness {
    typealias Event = WebSocketSession.Event
    let role: WebSocketSession.Role
    var session: WebSocketSession
    var now = MonotonicInstant(seconds: 1000)
    var output: [UInt8] = []
    private var peerParser: WebSocketFrameParser

    init(_ role: WebSocketSession.Role, pingInterval: Double? = 10, closeTimeout: Double = 2, maxMessageSize: Int = 1024,
         rateLimit: MessageRateLimit? = nil) {
        self.role = role
        session = WebSocketSession(role: role, maxMessageSize: maxMessageSize,
                                   timers: .init(pingInterval: pingInterval, closeTimeout: closeTimeout),
                                   rateLimit: rateLimit, now: now)
        peerParser = WebSocketFrameParser(role: role == .server ? .client : .server, maxMessageSize: 1 << 20)
    }

    /// A client peer masks its frames (§5.1), a server peer does not.
    var peerMasks: Bool { role == .server }

    func frame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, masked: Bool? = nil) -> [UInt8] {
        WebSocketFrameWriter.frame(opcode, payload: payload, fin: fin,
                                   maskKey: masked ?? peerMasks ? (0x12, 0x34, 0x56, 0x78) : nil)
    }

    /// The peer's bytes arrive; returns every event they make.
    mutating func receive(_ bytes: [UInt8]) -> [Event] {
        session.receive(bytes)
        var events: [Event] = []
        while let event = session.nextEvent(now: now, into: &output) { events.append(event) }
        return events
    }

    mutating func peerSends(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, masked: Bool? = nil) -> [Event] {
        receive(frame(opcode, payload, fin: fin, masked: masked))
    }

    /// Moves the clock on and runs the timers.
    mutating func advance(_ seconds: Double) -> Event? {
        now = now + seconds
        return session.expire(now: now, into: &output)
    }

    /// The frames the session wrote since the last call, as the peer reads them.
    mutating func written() throws -> [WebSocketMessage] {
        peerParser.feed(output)
        output = []
        var messages: [WebSocketMessage] = []
        while let m = try peerParser.next() { messages.append(m) }
        return messages
    }
}

@Suite struct WebSocketSessionTests {
    static let roles: [WebSocketSession.Role] = [.server, .client]

    @Test(arguments: roles) func dataFramesBecomeMessagesAndSendsAreFramedForTheRole(_ role: WebSocketSession.Role) throws {
        var h = SessionHarness(role)
        #expect(h.peerSends(.text, Array("hi".utf8)) == [.message(Array("hi".utf8), isText: true)])
        #expect(h.peerSends(.binary, [0, 1, 2]) == [.message([0, 1, 2], isText: false)])
        #expect(h.session.send(.text, payload: Array("yo".utf8), into: &h.output))
        // The peer's parser fails a frame masked the wrong way (§5.1), so reading it back proves the rule.
        #expect(try h.written() == [.text("yo")])
        #expect((h.output.isEmpty))
    }

    @Test(arguments: roles) func aPingIsSentAfterTheIntervalAndAPeerThatNeverAnswersIsDropped(_ role: WebSocketSession.Role) throws {
        var h = SessionHarness(role, pingInterval: 10)
        #expect(h.session.nextDeadline == h.now + 10)
        #expect(h.advance(9.5) == nil)
        #expect(try h.written() == [])
        #expect(h.advance(0.5) == nil)
        // §5.5.2 keepalive, after one interval of silence.
        #expect(try h.written() == [.ping([])])
        #expect(h.session.nextDeadline == h.now + 10)
        #expect(h.advance(9.5) == nil)
        #expect(try h.written() == [])
        // No pong, nothing else: dropped at twice the interval.
        #expect(h.advance(0.5) == .dropped(.idle(silentFor: 20)))
        #expect(h.session.nextDeadline == nil)
        #expect(h.advance(100) == nil)
    }

    @Test(arguments: roles) func aPongOrAnyCompleteFrameKeepsThePeerAlive(_ role: WebSocketSession.Role) throws {
        var h = SessionHarness(role, pingInterval: 10)
        #expect(h.advance(10) == nil)
        #expect(try h.written() == [.ping([])])
        #expect(h.advance(5) == nil)
        #expect(h.peerSends(.pong, []) == [.pong([])])
        #expect(h.advance(9) == nil)
        #expect(h.advance(2) == nil)
        #expect(try h.written() == [.ping([])])
        #expect(h.peerSends(.text, Array("{}".utf8)).count == 1)
        #expect(h.advance(19) == nil)
        #expect(h.session.isOpen)
    }

    @Test(arguments: roles) func bytesOfAnUnfinishedFrameDoNotCountAsHeard(_ role: WebSocketSession.Role) throws {
        var h = SessionHarness(role, pingInterval: 10)
        let start = h.now
        // A frame announcing 100 bytes, trickled a byte every 0.125 s and never finished.
        for byte in h.frame(.text, Array(repeating: 0x20, count: 100)).dropLast() {
            #expect(h.receive([byte]) == [])
            h.now = h.now + 0.125
        }
        let event = h.advance(10)
        #expect(event == .dropped(.idle(silentFor: h.now - start)))
    }

    @Test(arguments: roles) func noTimersWithoutAPingInterval(_ role: WebSocketSession.Role) throws {
        var h = SessionHarness(role, pingInterval: nil)
        #expect(h.session.nextDeadline == nil)
        #expect(h.advance(1_000_000) == nil)
        #expect(try h.written() == [])
    }

    @Test(arguments: roles) func pingsAreAnsweredWithTheSamePayload(_ role: WebSocketSession.Role) throws {
        var h = SessionHarness(role)
        #expect(h.peerSends(.ping, Array("are you there".utf8)) == [])
        #expect(try h.written() == [.pong(Array("are you there".utf8))])
    }

    @Test(arguments: roles) func aPeerCloseIsEchoedWithItsCode(_ role: WebSocketSession.Role) throws {
        var h = SessionHarness(role)
        let close = WebSocketFrameWriter.close(.goingAway, reason: "bye", maskKey: h.peerMasks ? (1, 2, 3, 4) : nil)
        #expect(h.receive(close) == [.closed(code: .goingAway, reason: "bye")])
        // §5.5.1: the answer echoes the code.
        #expect(try h.written() == [.close(code: .goingAway, reason: "")])
        #expect(!h.session.isOpen)
        #expect(!h.session.send(.text, payload: [0x41], into: &h.output))
        // Anything after the close is moot.
        #expect(h.peerSends(.text, Array("late".utf8)) == [])
        #expect(try h.written() == [])
        // The session waits for the end of the stream at most `closeTimeout`; no second 1006 when it ends.
        #expect(h.session.nextDeadline == h.now + 2)
        #expect(h.session.streamEnded() == nil)
        #expect(h.session.nextDeadline == nil)
    }

    @Test(arguments: roles) func aCloseWithoutABodyIsAnsweredWithoutOne(_ role: WebSocketSession.Role) throws {
        var h = SessionHarness(role)
        #expect(h.peerSends(.close, []) == [.closed(code: .noStatus, reason: "")])
        #expect(try h.written() == [.close(code: .noStatus, reason: "")])
    }

    @Test(arguments: roles) func ourCloseWaitsForThePeersThenForTheTimeout(_ role: WebSocketSession.Role) throws {
        var h = SessionHarness(role, pingInterval: 10, closeTimeout: 2)
        #expect(h.session.close(.normal, reason: "done", now: h.now, into: &h.output))
        #expect(!h.session.close(.normal, reason: "again", now: h.now, into: &h.output))
        #expect(try h.written() == [.close(code: .normal, reason: "done")])
        // §5.5.1: no data after our close, and no pong either.
        #expect(!h.session.send(.text, payload: [0x41], into: &h.output))
        #expect(h.peerSends(.ping, []) == [])
        #expect(try h.written() == [])
        // Until the peer's close comes, what it sends still arrives (the server it closes may have been mid-message).
        #expect(h.peerSends(.text, Array("x".utf8)) == [.message(Array("x".utf8), isText: true)])
        #expect(h.session.nextDeadline == h.now + 2)
        // The peer's close completes the handshake and is not answered twice.
        #expect(h.peerSends(.close, [0x03, 0xE8]) == [.closed(code: .normal, reason: "")])
        #expect(try h.written() == [])
        #expect(h.advance(1.5) == nil)
        #expect(h.advance(0.5) == .dropped(.closeTimeout))
    }

    @Test(arguments: roles) func aPeerThatNeverAnswersOurCloseIsDroppedAtTheCloseTimeout(_ role: WebSocketSession.Role) throws {
        var h = SessionHarness(role, pingInterval: 10, closeTimeout: 2)
        #expect(h.session.close(.goingAway, reason: "", now: h.now, into: &h.output))
        // The close timer replaces the ping timer.
        #expect(h.advance(1.75) == nil)
        #expect(try h.written() == [.close(code: .goingAway, reason: "")])
        #expect(h.advance(0.25) == .dropped(.closeTimeout))
    }

    @Test(arguments: roles) func theStreamEndingWithoutACloseIs1006(_ role: WebSocketSession.Role) throws {
        var h = SessionHarness(role)
        #expect(h.session.streamEnded() == .closed(code: .abnormal, reason: "connection lost"))
        #expect(h.session.streamEnded() == nil)
        #expect(h.advance(100) == nil)
    }

    @Test(arguments: roles) func theWrongMaskingFailsWith1002(_ role: WebSocketSession.Role) throws {
        var h = SessionHarness(role)
        // §5.1: a server MUST close the connection upon a frame that is not masked; a client, upon one that is.
        let events = h.peerSends(.text, Array("hi".utf8), masked: !h.peerMasks)
        guard case .protocolError(let error) = try #require(events.first) else {
            Issue.record("expected a protocol error, got \(events)")
            return
        }
        #expect(events.count == 1)
        #expect(error.code == .protocolError)
        #expect(try h.written() == [.close(code: .protocolError, reason: error.reason)])
        // §7.1.7: the failed parser is not used again; the stream's end is no second close.
        #expect(h.peerSends(.text, Array("hi".utf8)) == [])
        #expect(h.session.streamEnded() == nil)
    }

    @Test(arguments: roles) func fragmentsAreReassembledWithControlFramesBetweenThem(_ role: WebSocketSession.Role) throws {
        var h = SessionHarness(role, pingInterval: 10)
        #expect(h.peerSends(.text, Array("Hel".utf8), fin: false) == [])
        // §5.4: "Control frames MAY be injected in the middle of a fragmented message."
        #expect(h.peerSends(.ping, [7]) == [])
        #expect(try h.written() == [.pong([7])])
        #expect(h.peerSends(.pong, []) == [.pong([])])
        #expect(h.peerSends(.continuation, Array("lo".utf8), fin: false) == [])
        #expect(h.peerSends(.continuation, Array(" ☃".utf8), fin: true) == [.message(Array("Hello ☃".utf8), isText: true)])
        // A code point split across fragments is fine (§8.1 is checked on the whole message).
        let snowman = Array("☃".utf8)
        #expect(h.peerSends(.text, Array(snowman[0..<1]), fin: false) == [])
        #expect(h.peerSends(.continuation, Array(snowman[1...]), fin: true) == [.message(snowman, isText: true)])
    }

    @Test(arguments: roles) func aNewMessageInsideAFragmentedOneFailsWith1002(_ role: WebSocketSession.Role) throws {
        var h = SessionHarness(role)
        #expect(h.peerSends(.binary, [1], fin: false) == [])
        let events = h.peerSends(.text, [0x41])
        #expect(events.count == 1 && { if case .protocolError(let e) = events[0] { e.code == .protocolError } else { false } }())
        #expect(try h.written().first == .close(code: .protocolError, reason: "new data frame while a fragmented message is open"))
    }

    @Test(arguments: roles) func anOversizeMessageFailsWith1009(_ role: WebSocketSession.Role) throws {
        var h = SessionHarness(role, maxMessageSize: 100)
        #expect(h.peerSends(.binary, [UInt8](repeating: 1, count: 100)).count == 1)
        #expect(h.peerSends(.binary, [UInt8](repeating: 1, count: 60), fin: false) == [])
        // The second fragment makes the message 120 bytes: failed on its declared length.
        let events = h.peerSends(.continuation, [UInt8](repeating: 1, count: 60))
        #expect(events == [.protocolError(WebSocketProtocolError(.messageTooBig, "message larger than 100 bytes"))])
        #expect(try h.written() == [.close(code: .messageTooBig, reason: "message larger than 100 bytes")])
    }

    @Test(arguments: roles) func invalidUTF8FailsWith1007(_ role: WebSocketSession.Role) throws {
        var h = SessionHarness(role)
        // An overlong "/" (0xC0 0xAF), §8.1.
        let events = h.peerSends(.text, [0x61, 0xC0, 0xAF])
        #expect(events == [.protocolError(WebSocketProtocolError(.invalidPayload, "text message is not valid UTF-8"))])
        #expect(try h.written() == [.close(code: .invalidPayload, reason: "text message is not valid UTF-8")])
        // Binary messages are not text: not checked (§8.1 is about text frames).
        var b = SessionHarness(role)
        #expect(b.peerSends(.binary, [0xC0, 0xAF]) == [.message([0xC0, 0xAF], isText: false)])
    }

    @Test(arguments: roles) func theRateLimitDropsWarnsThenFailsWith1008(_ role: WebSocketSession.Role) throws {
        var h = SessionHarness(role, rateLimit: MessageRateLimit(perSecond: 1, burst: 2, refusalsBeforeClose: 3, now: 1000))
        #expect(h.peerSends(.text, [0x31]).count == 1)
        #expect(h.peerSends(.ping, []) == [])
        #expect(try h.written() == [.pong([])])
        #expect(h.peerSends(.text, [0x33]) == [.throttled(warn: true)])
        // A refused ping is not answered; pongs are never counted.
        #expect(h.peerSends(.ping, []) == [.throttled(warn: false)])
        #expect(h.peerSends(.pong, []) == [.pong([])])
        #expect(try h.written() == [])
        #expect(h.peerSends(.text, [0x35]) == [.protocolError(WebSocketProtocolError(.policyViolation, "message rate exceeded"))])
        #expect(try h.written() == [.close(code: .policyViolation, reason: "message rate exceeded")])
    }
}
