import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The client's I/O thread and what it shares with callers: a driver of `WebSocketSession` in the
/// client role, which owns framing, masking, pongs, the close handshake and its timers.
///
/// Sends only queue: a caller hands its message to a bounded outbox and wakes the I/O thread through a pipe; the
/// thread frames it into the session's output and writes as much as the socket takes. So a server that stops
/// reading costs the sender nothing but queue space, instead of a lock held while a write blocks (the call's event
/// thread sends candidates, and everybody's audio and video would wait). The policy when the queue is full
/// (`maxQueuedBytes`), or when queued output makes no progress for `writeStallTimeout`: the connection is failed
/// (the send throws `.sendQueueFull`, `receive` returns a 1006 close), which the caller handles like any lost
/// connection.
final class WebSocketClientSession: Sendable {
    /// The stream, the session and the bytes being written. Only the I/O thread touches them (the mutex only makes
    /// the class Sendable; nobody contends for it), so OpenSSL's SSL object is never used by two threads.
    final class Connection {
        let stream: ByteStream
        var session: WebSocketSession
        var output = OutputBuffer(compactionThreshold: 256 << 10)
        init(stream: ByteStream, session: WebSocketSession) {
            self.stream = stream
            self.session = session
        }
    }

    /// What a caller asks of the I/O thread.
    enum Request {
        case frame(WebSocketOpcode, [UInt8])
        /// Bytes sent as they are, unframed (tests break the protocol with them).
        case raw([UInt8])
        case close(WebSocketCloseCode, String)
    }

    /// What senders hand to the I/O thread.
    struct Outbox {
        var requests: [Request] = []
        /// Bytes the requests will take on the wire, at most (a frame header and masking key included).
        var bytes = 0
        /// A close has been asked for: nothing may follow it (RFC 6455 §5.5.1).
        var closing = false
        /// Set by a send that found the queue full: the I/O thread fails the connection.
        var overflowed = false
        /// The I/O thread has finished: sends fail at once.
        var finished = false
    }

    /// Messages not yet returned by `receive`; `ended` once the close (or loss) has been queued.
    struct Inbox {
        var messages: [WebSocketMessage] = []
        var ended = false
    }

    private let io: Mutex<Connection>
    private let outbox = Mutex(Outbox())
    /// Bytes framed into the session's output and not written yet, as the I/O thread last saw them.
    private let unwritten = Atomic<Int>(0)
    private let inbox = Mutex(Inbox())
    private let arrivals = DispatchSemaphore(value: 0)
    private let stopRequested = Atomic<Bool>(false)
    private let fd: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let maxQueuedBytes: Int
    private let writeStallTimeout: Double

    /// `leftover`: bytes that arrived behind the 101 response (the server's first frames).
    init(stream: sending ByteStream, leftover: [UInt8], options: WebSocketClientOptions) throws(SignalingError) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            stream.close()
            throw .system(call: "pipe", errno: errno)
        }
        for f in fds { _ = fcntl(f, F_SETFL, fcntl(f, F_GETFL) | O_NONBLOCK) }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        fd = stream.fd
        maxQueuedBytes = max(1, options.maxQueuedBytes)
        writeStallTimeout = options.writeStallTimeout
        var session = WebSocketSession(role: .client, maxMessageSize: options.maxMessageSize,
                                       timers: .init(pingInterval: options.pingInterval, closeTimeout: options.closeTimeout),
                                       now: .now)
        session.receive(leftover)
        io = Mutex(Connection(stream: stream, session: session))
    }

    deinit {
        Glibc.close(wakeRead)
        Glibc.close(wakeWrite)
    }

    func stop() {
        stopRequested.store(true, ordering: .releasing)
        wake()
    }

    var isEnded: Bool { inbox.withLock { $0.ended } }

    private func wake() {
        var byte: UInt8 = 1
        _ = Glibc.write(wakeWrite, &byte, 1)   // a full pipe already guarantees a wake-up
    }

    func sendFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8]) throws(SignalingError) {
        // 14: the longest header (§5.2), masking key included.
        try enqueue(.frame(opcode, payload), bytes: payload.count + 14)
    }

    func sendRaw(_ bytes: [UInt8]) throws(SignalingError) { try enqueue(.raw(bytes), bytes: bytes.count) }

    func close(_ code: WebSocketCloseCode, _ reason: String) {
        try? enqueue(.close(code, reason), bytes: 0)
    }

    private func enqueue(_ request: Request, bytes: Int) throws(SignalingError) {
        try outbox.withLock { o throws(SignalingError) in
            guard !o.closing && !o.finished && !o.overflowed else { throw .closed }
            let queued = o.bytes + unwritten.load(ordering: .relaxed)
            guard queued + bytes <= maxQueuedBytes else {
                o.overflowed = true
                throw .sendQueueFull(bytes: queued)
            }
            o.requests.append(request)
            o.bytes += bytes
            if case .close = request { o.closing = true }
        }
        wake()
    }

    func receive(timeout: Double) throws(SignalingError) -> WebSocketMessage {
        if isEnded && inbox.withLock({ $0.messages.isEmpty }) { throw .closed }
        if arrivals.wait(timeout: .now() + timeout) == .timedOut {
            if inbox.withLock({ $0.ended && $0.messages.isEmpty }) { throw .closed }
            throw .timeout
        }
        return inbox.withLock { $0.messages.removeFirst() }
    }

    private func deliver(_ message: WebSocketMessage) {
        inbox.withLock {
            $0.messages.append(message)
            if case .close = message { $0.ended = true }
        }
        arrivals.signal()
    }

    /// Blocking write for the opening handshake only (before the I/O thread exists).
    static func writeAll(_ stream: ByteStream, _ bytes: [UInt8]) throws(SignalingError) {
        var offset = 0
        let deadline = MonotonicClock.now() + 10
        while offset < bytes.count {
            let r = bytes.withUnsafeBytes { stream.write(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            switch r {
            case .bytes(let n): offset += n
            case .wouldBlock, .wantsWrite:
                guard MonotonicClock.now() < deadline else { throw .timeout }
                _ = SocketOptions.wait(stream.fd, events: Int16(POLLOUT | POLLIN), timeout: 0.05)
            case .endOfStream: throw .closed
            case .failed(let why): throw .protocolViolation(why)
            }
        }
    }

    /// Hands the callers' requests to the session.
    private func perform(_ requests: [Request], _ conn: Connection, now: MonotonicInstant) {
        for request in requests {
            switch request {
            case .frame(let opcode, let payload):
                _ = conn.session.send(opcode, payload: payload, into: &conn.output.bytes)
            case .raw(let bytes):
                if conn.session.isOpen { conn.output.bytes += bytes }
            case .close(let code, let reason):
                conn.session.close(code, reason: reason, now: now, into: &conn.output.bytes)
            }
        }
    }

    /// What the client's reader gets for one session event; `ended` is set when the connection is over.
    private static func message(for event: WebSocketSession.Event, ended: inout WebSocketMessage?) -> WebSocketMessage? {
        switch event {
        case .message(let bytes, let isText):
            return WebSocketInbound.data(bytes, isText: isText).message
        case .pong(let payload):
            return .pong(payload)
        case .throttled:
            return nil  // the client sets no rate limit
        case .closed(let code, let reason):
            ended = .close(code: code, reason: reason)
        case .protocolError(let error):
            ended = .close(code: error.code, reason: error.reason)
        case .dropped(.idle(let silent)):
            ended = .close(code: .abnormal, reason: "no frame from the server for \(Int(silent)) s")
        case .dropped(.closeTimeout):
            ended = .close(code: .abnormal, reason: "no close from the server")
        }
        return nil
    }

    /// The I/O thread: until the connection ends or the client is dropped, moves requests into the session,
    /// writes its output and feeds it what arrives.
    func run() {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var stopping = false
        var lastProgress = MonotonicClock.now()
        var ended: WebSocketMessage?
        while ended == nil {
            if stopRequested.load(ordering: .acquiring) && !stopping {
                // The client was dropped without a close: §7.4.1 1001 "going away", then the session waits
                // `closeTimeout` for the echo.
                stopping = true
                close(.goingAway, "")
            }
            let (requests, overflowed) = outbox.withLock { o in
                defer {
                    o.requests = []
                    o.bytes = 0
                }
                return (o.requests, o.overflowed)
            }
            if overflowed {
                ended = .close(code: .abnormal, reason: "send queue full: the server is not reading")
                break
            }
            var messages: [WebSocketMessage] = []
            let (wantsOutput, deadline): (Bool, MonotonicInstant?) = io.withLock { conn in
                let now = MonotonicInstant.now
                // The stall clock runs only while output waits: from when it was queued, or from the last progress.
                if conn.output.pending == 0 { lastProgress = now.seconds }
                perform(requests, conn, now: now)
                if let event = conn.session.expire(now: now, into: &conn.output.bytes) {
                    _ = Self.message(for: event, ended: &ended)
                }
                guard let n = conn.output.write(to: conn.stream) else {
                    ended = .close(code: .abnormal, reason: "connection lost")
                    return (false, nil)
                }
                if n > 0 { lastProgress = MonotonicClock.now() }
                unwritten.store(conn.output.pending, ordering: .relaxed)
                return (conn.output.pending > 0, conn.session.nextDeadline)
            }
            if ended != nil { break }
            if wantsOutput && MonotonicClock.now() - lastProgress > writeStallTimeout {
                ended = .close(code: .abnormal, reason: "send stalled: the server is not reading")
                break
            }
            // At most 50 ms, so the stop flag and the stall clock are looked at often enough.
            let wait = min(0.05, max(0, (deadline?.seconds ?? .infinity) - MonotonicClock.now()))
            var fds = [pollfd(fd: fd, events: Int16(POLLIN) | (wantsOutput ? Int16(POLLOUT) : 0), revents: 0),
                       pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            _ = Glibc.poll(&fds, 2, Int32((wait * 1000).rounded(.up)))
            if fds[1].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while Glibc.read(wakeRead, &drain, drain.count) > 0 {}
            }
            guard fds[0].revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 else { continue }
            io.withLock { conn in
                var lost = false
                readLoop: while true {
                    let r = buffer.withUnsafeMutableBytes { conn.stream.read(into: $0) }
                    switch r {
                    case .bytes(let n):
                        // The stream never reports more than the buffer it was given; checked, since a slice past the
                        // end would trap.
                        guard n > 0 && n <= buffer.count else {
                            lost = true
                            break readLoop
                        }
                        conn.session.receive(buffer[0..<n])
                    case .wouldBlock, .wantsWrite:
                        break readLoop
                    case .endOfStream, .failed:
                        // Parse what came before the EOF first: it may hold the server's close frame.
                        lost = true
                        break readLoop
                    }
                }
                let now = MonotonicInstant.now
                while ended == nil, let event = conn.session.nextEvent(now: now, into: &conn.output.bytes) {
                    if let m = Self.message(for: event, ended: &ended) { messages.append(m) }
                }
                if lost, let event = conn.session.streamEnded() {
                    // §7.1.5: closed without a close frame → 1006.
                    _ = Self.message(for: event, ended: &ended)
                }
                unwritten.store(conn.output.pending, ordering: .relaxed)
            }
            for m in messages { deliver(m) }
        }
        outbox.withLock { $0.finished = true }
        io.withLock { conn in
            // Our close frame (an echo, or the session's verdict) goes out if the socket takes it at once.
            _ = conn.output.write(to: conn.stream)
            conn.stream.shutdownWrite()
            conn.stream.close()
        }
        deliver(ended ?? .close(code: .goingAway, reason: "client dropped"))
    }
}
