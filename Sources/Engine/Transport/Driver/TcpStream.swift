import Glibc

/// A non-blocking TCP connection to one server (a TURN server over TCP, RFC 8656 §3.1), owned by one thread (the
/// call's event thread); not Sendable. Writes queue whole messages behind a bound and leave as the socket takes them,
/// so a slow server delays this connection only; `read` returns what is there without waiting.
public final class TcpStream {
    public enum ReadResult: Equatable {
        case bytes([UInt8])
        case nothing
        /// The server closed the connection or it failed (`reason` says which).
        case closed(reason: String)
    }

    public let fd: Int32
    public let remote: TransportAddress
    /// Bytes queued and not yet taken by the kernel. Media over a stream is better dropped than late: beyond this a
    /// message is refused whole (`write` returns false), which the caller counts as loss.
    public static let maxQueuedBytes = 256 * 1024
    private var queued: [UInt8] = []
    private var sentOfQueue = 0
    /// Kept between reads: media over TCP means a read per packet, which should not allocate and zero 64 KB each.
    private var readBuffer = [UInt8](repeating: 0, count: 65536)

    /// Starts connecting; the connection is usable at once (writes queue until it is up).
    public init(connectTo remote: TransportAddress) throws(EngineError) {
        self.remote = remote
        let fd = socket(remote.ip.isIPv4 ? AF_INET : AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw .library(name: "libc", call: "socket", code: errno) }
        self.fd = fd
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        // Small messages (connectivity checks, audio) must not wait for Nagle's algorithm.
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var storage = SocketAddress.storage(for: remote)
        let result = withUnsafePointer(to: &storage.0) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, storage.1) }
        }
        guard result == 0 || errno == EINPROGRESS else {
            let code = errno
            Glibc.close(fd)
            throw .library(name: "libc", call: "connect \(remote)", code: code)
        }
    }

    deinit { Glibc.close(fd) }

    /// Whether bytes wait for the socket to become writable (poll for POLLOUT too).
    public var wantsWrite: Bool { sentOfQueue < queued.count }

    /// Queues one whole message and sends what the socket takes now. False when it was refused (queue bound).
    @discardableResult
    public func write(_ message: [UInt8]) -> Bool {
        guard queued.count - sentOfQueue + message.count <= Self.maxQueuedBytes else { return false }
        queued += message
        flush()
        return true
    }

    /// Sends queued bytes until the socket would block (or the connection is still being set up).
    public func flush() {
        while sentOfQueue < queued.count {
            let n = queued.withUnsafeBytes { buffer in
                send(fd, buffer.baseAddress! + sentOfQueue, queued.count - sentOfQueue, Int32(MSG_NOSIGNAL))
            }
            guard n > 0 else { break }   // EAGAIN, ENOTCONN while connecting, or an error `read` reports
            sentOfQueue += n
        }
        if sentOfQueue == queued.count {
            queued.removeAll(keepingCapacity: true)
            sentOfQueue = 0
        } else if sentOfQueue > 64 * 1024 {
            queued.removeFirst(sentOfQueue)
            sentOfQueue = 0
        }
    }

    /// Reads what is available (up to 64 KB).
    public func read() -> ReadResult {
        let n = readBuffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 { return .bytes(Array(readBuffer.prefix(n))) }
        if n == 0 { return .closed(reason: "the server closed the connection") }
        let code = errno
        if code == EAGAIN || code == EWOULDBLOCK || code == EINTR { return .nothing }
        return .closed(reason: String(cString: strerror(code)))
    }

    /// The pending socket error after poll reported POLLERR/POLLHUP (a refused or failed connect), if any.
    public func pendingError() -> String? {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) == 0, code != 0 else { return nil }
        return String(cString: strerror(code))
    }
}
