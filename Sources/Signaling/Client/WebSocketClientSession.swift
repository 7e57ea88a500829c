import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The state shared by a `WebSocketClient` and its I/O thread.
///
/// Sends only queue: a caller frames (and masks) its message, appends it to a bounded outbox and wakes the I/O
/// thread through a pipe, which writes as much as the socket takes. So a server that stops reading costs the sender
/// nothing but queue space, instead of a lock held while a write blocks (the call's event thread sends candidates,
/// and everybody's audio and video would wait). The policy when the outbox is full (`maxQueuedBytes`), or when
/// queued output makes no progress for `writeStallTimeout`: the connection is failed (the send throws
/// `.sendQueueFull`, `receive` returns a 1006 close), which the caller handles like any lost connection.
final class WebSocketClientSession: Sendable {
    /// The stream, the parser and the bytes being written. Only the I/O thread touches them (the mutex only makes the
    /// class Sendable; nobody contends for it), so OpenSSL's SSL object is never used by two threads.
    final class Connection {
        let stream: ByteStream
        var parser: WebSocketFrameParser
        var output: [UInt8] = []
        var outputStart = 0
        init(stream: ByteStream, parser: WebSocketFrameParser) {
            self.stream = stream
            self.parser = parser
        }
        var pendingOutput: Int { output.count - outputStart }
    }

    /// What senders hand to the I/O thread.
    struct Outbox {
        var frames: [[UInt8]] = []
        /// Bytes queued and not yet written (here and in `Connection.output`).
        var bytes = 0
        /// A close frame has been queued: nothing may follow it (RFC 6455 §5.5.1).
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
    private let inbox = Mutex(Inbox())
    private let arrivals = DispatchSemaphore(value: 0)
    private let stopRequested = Atomic<Bool>(false)
    private let fd: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let maxQueuedBytes: Int
    private let writeStallTimeout: Double

    init(stream: sending ByteStream, parser: WebSocketFrameParser, options: WebSocketClientOptions) throws(SignalingError) {
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
        io = Mutex(Connection(stream: stream, parser: parser))
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
        // §5.3: every client frame gets a fresh unpredictable masking key.
        try enqueue(WebSocketFrameWriter.frame(opcode, payload: payload, maskKey: WebSocketFrameWriter.randomMaskKey()))
    }

    func sendRaw(_ bytes: [UInt8]) throws(SignalingError) { try enqueue(bytes) }

    private func enqueue(_ bytes: [UInt8], closing: Bool = false) throws(SignalingError) {
        try outbox.withLock { o throws(SignalingError) in
            guard !o.closing && !o.finished && !o.overflowed else { throw .closed }
            guard o.bytes + bytes.count <= maxQueuedBytes else {
                o.overflowed = true
                throw .sendQueueFull(bytes: o.bytes)
            }
            o.frames.append(bytes)
            o.bytes += bytes.count
            if closing { o.closing = true }
        }
        wake()
    }

    func close(_ code: WebSocketCloseCode, _ reason: String) {
        try? enqueue(WebSocketFrameWriter.close(code, reason: reason, maskKey: WebSocketFrameWriter.randomMaskKey()), closing: true)
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

    /// A pong or close the I/O thread answers with: after the frames already queued, counted like them.
    private func control(_ conn: Connection, _ frame: [UInt8]) {
        conn.output += frame
        outbox.withLock { $0.bytes += frame.count }
    }

    /// Writes what the socket takes without blocking. Returns bytes written, or nil when the stream failed.
    private func flush(_ conn: Connection) -> Int? {
        var written = 0
        while conn.pendingOutput > 0 {
            let result = conn.output.withUnsafeBytes { raw in
                conn.stream.write(UnsafeRawBufferPointer(rebasing: raw[conn.outputStart..<min(conn.output.count, conn.outputStart + (256 << 10))]))
            }
            switch result {
            case .bytes(let n):
                conn.outputStart += n
                written += n
            case .wouldBlock, .wantsWrite:
                if conn.outputStart > (256 << 10) {
                    conn.output.removeFirst(conn.outputStart)
                    conn.outputStart = 0
                }
                return written
            case .endOfStream, .failed:
                return nil
            }
        }
        conn.output.removeAll(keepingCapacity: conn.output.capacity <= 64 << 10)
        conn.outputStart = 0
        return written
    }

    /// The I/O thread: until the connection ends or the client is dropped, moves queued frames to the socket and
    /// parses what arrives.
    func run() {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var closeRequestedAt: Double?
        var lastProgress = MonotonicClock.now()
        var ended: WebSocketMessage?
        while ended == nil {
            if stopRequested.load(ordering: .acquiring) && closeRequestedAt == nil {
                // The client was dropped without a close: §7.4.1 1001 "going away", then wait briefly for the echo.
                close(.goingAway, "")
                closeRequestedAt = MonotonicClock.now()
            }
            if let t = closeRequestedAt, MonotonicClock.now() - t > 1 { break }
            let (frames, overflowed) = outbox.withLock { o in
                defer { o.frames = [] }
                return (o.frames, o.overflowed)
            }
            if overflowed {
                ended = .close(code: .abnormal, reason: "send queue full: the server is not reading")
                break
            }
            var messages: [WebSocketMessage] = []
            let wantsOutput: Bool = io.withLock { conn in
                // The stall clock runs only while output waits: from when it was queued, or from the last progress.
                if conn.pendingOutput == 0 { lastProgress = MonotonicClock.now() }
                for f in frames { conn.output += f }
                guard let n = flush(conn) else {
                    ended = .close(code: .abnormal, reason: "connection lost")
                    return false
                }
                if n > 0 { lastProgress = MonotonicClock.now() }
                outbox.withLock { $0.bytes -= n }
                return conn.pendingOutput > 0
            }
            if ended != nil { break }
            if wantsOutput && MonotonicClock.now() - lastProgress > writeStallTimeout {
                ended = .close(code: .abnormal, reason: "send stalled: the server is not reading")
                break
            }
            var fds = [pollfd(fd: fd, events: Int16(POLLIN) | (wantsOutput ? Int16(POLLOUT) : 0), revents: 0),
                       pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            _ = Glibc.poll(&fds, 2, 50)
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
                        conn.parser.feed(buffer[0..<n])
                    case .wouldBlock, .wantsWrite:
                        break readLoop
                    case .endOfStream, .failed:
                        // Parse what came before the EOF first: it may hold the server's close frame.
                        lost = true
                        break readLoop
                    }
                }
                do throws(WebSocketProtocolError) {
                    while ended == nil, let m = try conn.parser.next() {
                        switch m {
                        case .ping(let payload):
                            // §5.5.2: answer with a Pong carrying the same data (written with the queued frames).
                            if !outbox.withLock({ $0.closing }) {
                                control(conn, WebSocketFrameWriter.frame(.pong, payload: payload, maskKey: WebSocketFrameWriter.randomMaskKey()))
                            }
                        case .close(let code, _):
                            // §5.5.1: answer a close with a close (echoing the code), unless we started it.
                            if !outbox.withLock({ o in defer { o.closing = true }; return o.closing }) {
                                control(conn, WebSocketFrameWriter.close(code, maskKey: WebSocketFrameWriter.randomMaskKey()))
                            }
                            ended = m
                        default:
                            messages.append(m)
                        }
                    }
                } catch {
                    // §7.1.7: fail the connection with the code the parser chose.
                    if !outbox.withLock({ o in defer { o.closing = true }; return o.closing }) {
                        control(conn, WebSocketFrameWriter.close(error.code, reason: error.reason, maskKey: WebSocketFrameWriter.randomMaskKey()))
                    }
                    ended = .close(code: error.code, reason: error.reason)
                }
                if ended == nil && lost {
                    // §7.1.5: closed without a close frame → 1006.
                    ended = .close(code: .abnormal, reason: "connection lost")
                }
            }
            for m in messages { deliver(m) }
        }
        outbox.withLock { $0.finished = true }
        io.withLock { conn in
            // Our close frame (an echo, or the parser's verdict) goes out if the socket takes it at once.
            for f in outbox.withLock({ o in defer { o.frames = [] }; return o.frames }) { conn.output += f }
            _ = flush(conn)
            conn.stream.shutdownWrite()
            conn.stream.close()
        }
        deliver(ended ?? .close(code: .goingAway, reason: "client dropped"))
    }
}
