/// The per-connection state the event loop keeps. Owned by the event-loop thread only.
final class ServerConnection {
    enum Phase: Equatable {
        /// Reading the HTTP request head (the TLS handshake, if any, happens inside the reads).
        case http
        /// Framing (RFC 6455 §5) after a 101 reply.
        case webSocket
        /// We sent a close frame or an HTTP response: flush it, half-close, then wait for the peer's
        /// EOF (or `closeTimeout`), discarding what it still sends. Closing with unread bytes in the
        /// receive queue would make the kernel send a RST that can destroy our last bytes in flight
        /// (RFC 6455 §7.1.1: "the server SHOULD close the underlying TCP connection first").
        case closing
    }

    let fd: Int32
    let stream: ByteStream
    let openedAt: Double
    /// The peer's IPv4 address (network byte order) and its text form, for the per-IP cap and logs.
    var remoteAddress: UInt32 = 0
    var remoteText = "?"
    var phase: Phase = .http
    var httpBuffer: [UInt8] = []
    var parser: WebSocketFrameParser
    var socketID: SocketID?
    /// When the last complete message or control frame arrived (not the last byte: a slowloris
    /// trickling one frame must not look alive).
    var lastHeard: Double
    /// Messages per second, from the upgrade on.
    var rate: MessageRateLimit?
    /// What this connection counted for in the server's total of buffered bytes when last measured.
    var accountedBytes = 0
    var lastPing: Double
    var closingSince: Double = 0
    var halfClosed = false
    /// TLS asked for writability to make progress on a read.
    var readNeedsWrite = false
    var doomed = false
    /// The epoll events currently registered.
    var interest: UInt32 = 0

    private(set) var output: [UInt8] = []
    private(set) var outputStart = 0

    init(fd: Int32, stream: ByteStream, now: Double, maxMessageSize: Int) {
        self.fd = fd
        self.stream = stream
        self.openedAt = now
        self.lastHeard = now
        self.lastPing = now
        self.parser = WebSocketFrameParser(role: .server, maxMessageSize: maxMessageSize)
    }

    var pendingOutput: Int { output.count - outputStart }

    /// Bytes this connection makes the server hold: the unfinished request head, unparsed input and
    /// message fragments, and output the client has not read yet.
    var bufferedBytes: Int { httpBuffer.count + parser.bufferedByteCount + pendingOutput }

    func queue(_ bytes: [UInt8]) { output.append(contentsOf: bytes) }

    /// Appends one text/binary/control frame without building it apart first (one copy of the payload).
    func queueFrame(_ opcode: WebSocketOpcode, payload: [UInt8]) {
        WebSocketFrameWriter.appendFrame(opcode, payload: payload, to: &output)
    }

    /// Set while the connection waits in the event loop's end-of-turn flush list.
    var flushScheduled = false

    /// Writes as much queued output as the socket takes. Returns false when the stream failed.
    func flush() -> Bool {
        while pendingOutput > 0 {
            let result = output.withUnsafeBytes { raw in
                stream.write(UnsafeRawBufferPointer(rebasing: raw[outputStart..<min(output.count, outputStart + (256 << 10))]))
            }
            switch result {
            case .bytes(let n):
                outputStart += n
            case .wouldBlock, .wantsWrite:
                if outputStart > (1 << 20) {
                    output.removeFirst(outputStart)
                    outputStart = 0
                }
                return true
            case .endOfStream, .failed:
                return false
            }
        }
        output.removeAll(keepingCapacity: output.capacity <= 64 << 10)
        outputStart = 0
        return true
    }
}
