#if canImport(Glibc)
import Glibc
#endif

/// The outcome of one non-blocking read or write on a `ByteStream`.
enum StreamResult: Equatable {
    case bytes(Int)
    /// Nothing now; wait for the socket to become readable (plain sockets: ready in the asked direction).
    case wouldBlock
    /// TLS only: the operation needs the socket to become *writable* first (e.g. a handshake
    /// message must go out before application data can be read).
    case wantsWrite
    /// The peer closed its side.
    case endOfStream
    case failed(String)
}

/// A bidirectional, non-blocking byte stream over a socket: plain TCP or TLS. The server and the
/// client both drive WebSocket framing over this one interface.
protocol ByteStream: AnyObject {
    var fd: Int32 { get }
    func read(into buffer: UnsafeMutableRawBufferPointer) -> StreamResult
    func write(_ bytes: UnsafeRawBufferPointer) -> StreamResult
    /// Ends our sending direction (TLS: close_notify, then TCP FIN).
    func shutdownWrite()
    /// Frees everything and closes the descriptor. Called once.
    func close()
}

/// Plain TCP.
final class PlainStream: ByteStream {
    let fd: Int32
    init(fd: Int32) { self.fd = fd }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> StreamResult {
        while true {
            let n = Glibc.recv(fd, buffer.baseAddress, buffer.count, 0)
            if n > 0 { return .bytes(n) }
            if n == 0 { return .endOfStream }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock }
            return .failed("recv: \(String(cString: strerror(errno)))")
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> StreamResult {
        while true {
            // MSG_NOSIGNAL: a peer that went away must not raise SIGPIPE (docs/toolchain-pitfalls.md §4a).
            let n = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            if n >= 0 { return .bytes(n) }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock }
            return .failed("send: \(String(cString: strerror(errno)))")
        }
    }

    func shutdownWrite() { _ = Glibc.shutdown(fd, Int32(SHUT_WR)) }
    func close() { _ = Glibc.close(fd) }
}

/// Socket helpers shared by the server and the client.
enum SocketOptions {
    static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    }

    /// Signaling messages are small and latency-bound: do not let Nagle hold them back.
    static func setNoDelay(_ fd: Int32) {
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Waits until `fd` is ready for `events` or `timeout` seconds pass. Returns false on timeout.
    static func wait(_ fd: Int32, events: Int16, timeout: Double) -> Bool {
        var p = pollfd(fd: fd, events: events, revents: 0)
        let ms = Int32(max(0, min(timeout, 3600)) * 1000)
        while true {
            let r = Glibc.poll(&p, 1, ms)
            if r < 0 && errno == EINTR { continue }
            return r > 0
        }
    }

    /// IPv4 address of a host given as a dotted quad or "localhost".
    static func ipv4(_ host: String) -> in_addr? {
        let name = host == "localhost" ? "127.0.0.1" : host
        var addr = in_addr()
        return inet_pton(AF_INET, name, &addr) == 1 ? addr : nil
    }

    /// How many connections the process's open-file limit leaves room for, keeping 64 descriptors
    /// for everything else (listener, epoll, pipes, log and certificate files, the process's own
    /// clients). A connection cap above it would make accept(2) fail with EMFILE instead, over and
    /// over, on a listener that stays readable.
    static func connectionCeiling() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return Int.max }
        let current = limit.rlim_cur > rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
        return max(1, current - 64)
    }

    /// The dotted-quad text of an IPv4 address (for log lines).
    static func text(_ address: in_addr) -> String {
        let octets = withUnsafeBytes(of: address.s_addr) { Array($0) }
        return octets.map(String.init).joined(separator: ".")
    }
}
