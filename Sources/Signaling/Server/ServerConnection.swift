/// The per-connection state the event loop keeps. Owned by the event-loop thread only.
final class ServerConnection {
    enum Phase: Equatable {
        /// Reading the HTTP request head (the TLS handshake, if any, happens inside the reads).
        case http
        /// After a 101 reply: `session` runs the WebSocket, its close handshake and timers included.
        case webSocket
        /// We sent an HTTP response instead of upgrading: flush it, half-close, then wait for the
        /// peer's EOF (or `closeTimeout`), discarding what it still sends.
        case responded
    }

    let fd: Int32
    let stream: ByteStream
    let openedAt: Double
    /// The peer's IPv4 address (network byte order) and its text form, for the per-IP cap and logs.
    var remoteAddress: UInt32 = 0
    var remoteText = "?"
    var phase: Phase = .http
    var httpBuffer: [UInt8] = []
    /// The WebSocket, from the upgrade on.
    var session: WebSocketSession?
    var socketID: SocketID?
    /// What this connection counted for in the server's total of buffered bytes when last measured.
    var accountedBytes = 0
    var respondedAt: Double = 0
    var halfClosed = false
    /// TLS asked for writability to make progress on a read.
    var readNeedsWrite = false
    var doomed = false
    /// The client went silent (no answer to our pings): its member may be on its way back over another network,
    /// so the room holds it for a resume. An end of stream or a reset is not this: the client's own TCP stack
    /// spoke (its process exited or was killed), and the member leaves at once, as before.
    var endedAbruptly = false
    /// The epoll events currently registered.
    var interest: UInt32 = 0
    /// Set while the connection waits in the event loop's end-of-turn flush list.
    var flushScheduled = false

    /// The HTTP response, then the session's frames, written straight into this buffer.
    var output = OutputBuffer(compactionThreshold: 1 << 20)

    init(fd: Int32, stream: ByteStream, now: Double) {
        self.fd = fd
        self.stream = stream
        self.openedAt = now
    }

    var pendingOutput: Int { output.pending }

    /// Bytes this connection makes the server hold: the unfinished request head, unparsed input and
    /// message fragments, and output the client has not read yet.
    var bufferedBytes: Int { httpBuffer.count + (session?.bufferedByteCount ?? 0) + pendingOutput }

    /// Our last bytes are queued: an HTTP response, or a WebSocket close frame (ours or our answer).
    /// Once they are written the server half-closes: RFC 6455 §7.1.1, "the server SHOULD close the
    /// underlying TCP connection first". It keeps reading until the peer's EOF, since closing with
    /// unread bytes in the receive queue would make the kernel send a RST that can destroy our last
    /// bytes in flight.
    var isClosing: Bool { phase == .responded || (phase == .webSocket && session?.isOpen == false) }
}
