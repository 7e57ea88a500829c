/// One WebSocket connection after the opening handshake (RFC 6455 §5–§7), for either end, sans-IO:
/// the server's event loop and the client's I/O thread both drive it. It owns the frame parser, the
/// masking rule of its role, pings and the idle timeout, the close handshake and its timeout, and the
/// optional message rate. It never touches a socket, a thread or a clock: the driver passes bytes in
/// (`receive`), pulls events (`nextEvent`), passes `now` into everything time-dependent, calls
/// `expire` at `nextDeadline`, and writes the frames the session appends to the driver's output buffer.
struct WebSocketSession {
    /// Which end this session is (the parser's role names the same thing).
    typealias Role = WebSocketFrameParser.Role

    struct Timers: Sendable {
        /// Seconds without a complete frame from the peer before we ping it (§5.5.2: a Ping "may serve
        /// either as a keepalive or as a means to verify that the remote endpoint is still responsive");
        /// nil: never ping, never drop a quiet peer.
        var pingInterval: Double?
        /// Seconds without a complete frame before the peer is dropped (a peer that never answers our
        /// pings). Only complete frames count: a peer trickling one frame a byte at a time stays silent.
        var idleTimeout: Double
        /// Seconds from our close frame until the session gives up on the peer's close and the end of
        /// the stream.
        var closeTimeout: Double

        /// `idleTimeout` defaults to twice the ping interval: one ping, one interval to answer it.
        init(pingInterval: Double?, idleTimeout: Double? = nil, closeTimeout: Double) {
            self.pingInterval = pingInterval
            self.idleTimeout = idleTimeout ?? 2 * (pingInterval ?? 0)
            self.closeTimeout = closeTimeout
        }
    }

    enum Event: Equatable, Sendable {
        /// A complete data message, as its bytes (a text one already checked to be UTF-8, §8.1).
        case message([UInt8], isText: Bool)
        case pong([UInt8])
        /// A data message or ping over the rate limit, dropped; `warn` on the first of an episode.
        case throttled(warn: Bool)
        /// The peer's close frame (`.noStatus` when it had no body). Our answer is queued already,
        /// unless we had sent our close first. Nothing more will arrive.
        case closed(code: WebSocketCloseCode, reason: String)
        /// We failed the connection (§7.1.7): a close frame with `error.code` is queued, unless we had
        /// sent a close before. Nothing more will arrive.
        case protocolError(WebSocketProtocolError)
        /// The session gave up: the driver ends the stream now, without waiting for anything.
        case dropped(DropReason)
    }

    enum DropReason: Equatable, Sendable {
        /// No complete frame for this many seconds (`Timers.idleTimeout`).
        case idle(silentFor: Double)
        /// No close from the peer, or no end of the stream, within `Timers.closeTimeout` of our close.
        case closeTimeout
    }

    let role: Role
    let timers: Timers
    private var parser: WebSocketFrameParser
    private var rate: MessageRateLimit?
    /// When the last complete frame arrived (not the last byte: a slowloris trickling one frame must
    /// not look alive).
    private var lastHeard: MonotonicInstant
    private var lastPing: MonotonicInstant
    /// When our close frame was queued (we started the close, answered the peer's, or failed).
    private(set) var closingSince: MonotonicInstant?
    private(set) var closeReceived = false
    /// The parser threw: §7.1.7, it must not be used again.
    private var failed = false
    /// A timeout fired or the stream ended: the session is over.
    private(set) var ended = false

    /// `rateLimit` counts data messages and pings (not pongs, answers to our pings, nor closes).
    init(role: Role, maxMessageSize: Int, timers: Timers, rateLimit: MessageRateLimit? = nil, now: MonotonicInstant) {
        self.role = role
        self.timers = timers
        self.parser = WebSocketFrameParser(role: role, maxMessageSize: maxMessageSize)
        self.rate = rateLimit
        self.lastHeard = now
        self.lastPing = now
    }

    /// Data frames may still be sent: no close frame has been queued (§5.5.1: "After sending a Close
    /// frame, the endpoint MUST NOT send any more data frames").
    var isOpen: Bool { closingSince == nil && !ended }

    /// Bytes received but not yet consumed as frames, plus the fragments of an unfinished message.
    var bufferedByteCount: Int { parser.bufferedByteCount }

    /// Whether received bytes still matter: not once the peer's close arrived, or the parser failed.
    private var readsFrames: Bool { !ended && !closeReceived && !failed }

    // MARK: input

    /// Bytes read from the stream. Then pull events with `nextEvent` until it returns nil.
    mutating func receive<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        // §5.5.1: after the close handshake (or a failure) what the peer still sends is moot.
        guard readsFrames else { return }
        parser.feed(bytes)
    }

    /// The next event from the bytes received so far, or nil when more are needed. Pings are answered
    /// here; a close is answered here; a violation fails the connection here.
    mutating func nextEvent(now: MonotonicInstant, into output: inout [UInt8]) -> Event? {
        while readsFrames {
            let inbound: WebSocketInbound
            do {
                guard let next = try parser.nextInbound() else { return nil }
                inbound = next
            } catch {
                return fail(error, now: now, into: &output)
            }
            lastHeard = now
            switch inbound {
            case .data(let bytes, let isText):
                if let refusal = refusal(now: now, into: &output) { return refusal }
                return .message(bytes, isText: isText)
            case .control(.ping(let payload)):
                if let refusal = refusal(now: now, into: &output) { return refusal }
                // §5.5.2: "Upon receipt of a Ping frame, an endpoint MUST send a Pong frame in response
                // ... with identical Application data" — not after our close (§5.5.1: nothing follows it).
                if isOpen { WebSocketFrameWriter.appendFrame(.pong, payload: payload, maskKey: maskKey(), to: &output) }
            case .control(.pong(let payload)):
                return .pong(payload)
            case .control(.close(let code, let reason)):
                closeReceived = true
                // §5.5.1: "If an endpoint receives a Close frame and did not previously send a Close frame,
                // the endpoint MUST send a Close frame in response ... typically echoing the status code it
                // received". 1005 means "no code", answered with an empty body.
                if isOpen { queueClose(code, reason: "", now: now, into: &output) }
                return .closed(code: code, reason: reason)
            case .control(.text), .control(.binary):
                // The parser yields data as `.data`; never reached.
                continue
            }
        }
        return nil
    }

    /// The stream ended (EOF or an error). Returns §7.1.5's 1006 "abnormal" close when the peer had not
    /// sent a close frame (and no other event already ended the session).
    mutating func streamEnded() -> Event? {
        defer { ended = true }
        guard !ended && !closeReceived && !failed else { return nil }
        return .closed(code: .abnormal, reason: "connection lost")
    }

    // MARK: the application's side

    /// Queues a data frame (or a ping). False once our close is queued.
    mutating func send(_ opcode: WebSocketOpcode, payload: [UInt8], into output: inout [UInt8]) -> Bool {
        guard isOpen else { return false }
        WebSocketFrameWriter.appendFrame(opcode, payload: payload, maskKey: maskKey(), to: &output)
        return true
    }

    /// Starts the close handshake (§7.1.2) with `code`. False when a close was queued already.
    @discardableResult
    mutating func close(_ code: WebSocketCloseCode, reason: String, now: MonotonicInstant, into output: inout [UInt8]) -> Bool {
        guard isOpen else { return false }
        queueClose(code, reason: reason, now: now, into: &output)
        return true
    }

    // MARK: timers

    /// When `expire` has something to do, if ever.
    var nextDeadline: MonotonicInstant? {
        if ended { return nil }
        if let closingSince { return closingSince + timers.closeTimeout }
        guard let interval = timers.pingInterval else { return nil }
        // A ping is due once the peer has been quiet for an interval and our last ping is that old too.
        return min(lastHeard + timers.idleTimeout, max(lastHeard, lastPing) + interval)
    }

    /// Runs the timers due at `now`: a keepalive ping (appended to `output`), or a drop.
    mutating func expire(now: MonotonicInstant, into output: inout [UInt8]) -> Event? {
        guard !ended else { return nil }
        if let closingSince {
            guard now - closingSince >= timers.closeTimeout else { return nil }
            ended = true
            return .dropped(.closeTimeout)
        }
        guard let interval = timers.pingInterval else { return nil }
        let silent = now - lastHeard
        if silent >= timers.idleTimeout {
            ended = true
            return .dropped(.idle(silentFor: silent))
        }
        if silent >= interval && now - lastPing >= interval {
            lastPing = now
            WebSocketFrameWriter.appendFrame(.ping, payload: [], maskKey: maskKey(), to: &output)
        }
        return nil
    }

    // MARK: helpers

    /// §5.3: every client frame carries a fresh, unpredictable masking key; §5.1: "A server MUST NOT
    /// mask any frames that it sends to the client".
    private func maskKey() -> (UInt8, UInt8, UInt8, UInt8)? {
        role == .client ? WebSocketFrameWriter.randomMaskKey() : nil
    }

    private mutating func queueClose(_ code: WebSocketCloseCode, reason: String, now: MonotonicInstant, into output: inout [UInt8]) {
        WebSocketFrameWriter.appendFrame(.close, payload: WebSocketFrameWriter.closeBody(code, reason: reason),
                                         maskKey: maskKey(), to: &output)
        closingSince = now
    }

    /// §7.1.7 _Fail the WebSocket Connection_: send a close frame with the code, then close.
    private mutating func fail(_ error: WebSocketProtocolError, now: MonotonicInstant, into output: inout [UInt8]) -> Event {
        failed = true
        if isOpen { queueClose(error.code, reason: error.reason, now: now, into: &output) }
        return .protocolError(error)
    }

    /// The rate limit's verdict on one data message or ping: nil to handle it. Only while open: once
    /// closing, nothing more is forwarded or answered anyway.
    private mutating func refusal(now: MonotonicInstant, into output: inout [UInt8]) -> Event? {
        guard isOpen else { return nil }
        switch rate?.admit(now: now.seconds) ?? .accept {
        case .accept:
            return nil
        case .refuse(let warn):
            return .throttled(warn: warn)
        case .close:
            // §7.4.1 1008: "a message that violates its policy".
            return fail(WebSocketProtocolError(.policyViolation, "message rate exceeded"), now: now, into: &output)
        }
    }
}
