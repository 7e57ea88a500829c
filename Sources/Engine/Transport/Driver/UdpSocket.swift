import Glibc

/// A non-blocking UDP socket bound to one local address: the driver side of a host candidate.
/// Owned by one thread (the call's event thread); not Sendable.
public final class UdpSocket {
    public let fd: Int32
    public let localAddress: TransportAddress

    /// Binds to `address`; port 0 picks a free port (tests bind 127.0.0.1:0).
    public init(bind address: TransportAddress) throws {
        let family = address.ip.isIPv4 ? AF_INET : AF_INET6
        let fd = socket(family, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw EngineError.library(name: "libc", call: "socket", code: errno) }
        self.fd = fd
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        // The first SIOCGSTAMPNS on a socket turns the kernel's receive timestamps on (and fails: nothing received
        // yet); from then on every datagram is stamped as it arrives, for `ageOfLastDatagram`. (SO_TIMESTAMPNS would
        // deliver the stamps as control messages instead, and the ioctl then reports none.) When this is the first
        // timestamping socket on the machine, the kernel switches stamping on from a workqueue, so a few datagrams
        // right after may come unstamped and be dated when read: harmless for congestion control, which then sees a
        // few late arrivals at the very start of a call.
        var primer = timespec()
        _ = ioctl(fd, 0x8907, &primer)
        var storage = SocketAddress.storage(for: address)
        let bound = withUnsafePointer(to: &storage.0) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, storage.1) }
        }
        guard bound == 0 else {
            let code = errno
            Glibc.close(fd)
            throw EngineError.library(name: "libc", call: "bind \(address)", code: code)
        }
        var actual = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        localAddress = SocketAddress.transportAddress(actual) ?? address
    }

    deinit { Glibc.close(fd) }

    /// Sends one datagram; returns false when the kernel refused it (full buffer, unreachable), which UDP
    /// callers treat as loss.
    @discardableResult
    public func send(_ bytes: [UInt8], to address: TransportAddress) -> Bool {
        var storage = SocketAddress.storage(for: address)
        let sent = bytes.withUnsafeBytes { buffer in
            withUnsafePointer(to: &storage.0) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL), $0, storage.1)
                }
            }
        }
        return sent == bytes.count
    }

    /// Reads one pending datagram, nil when none is queued.
    public func receive() -> (bytes: [UInt8], from: TransportAddress)? {
        var buffer = [UInt8](repeating: 0, count: 2048)
        var from = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let n = buffer.withUnsafeMutableBytes { b in
            withUnsafeMutablePointer(to: &from) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, b.baseAddress, b.count, 0, $0, &length) }
            }
        }
        guard n >= 0, let source = SocketAddress.transportAddress(from) else { return nil }
        return (Array(buffer.prefix(n)), source)
    }

    /// How long ago the kernel received the datagram `receive()` returned last, from its own receive timestamp
    /// (SIOCGSTAMPNS, CLOCK_REALTIME), or nil when there is none. Congestion control measures delay from arrival
    /// times: a busy event thread that reads a burst late must not look like a queue on the network.
    public func ageOfLastDatagram() -> Duration? {
        var stamp = timespec()
        // SIOCGSTAMPNS (0x8907, linux/sockios.h): the timestamp of the last packet this socket received.
        guard ioctl(fd, 0x8907, &stamp) == 0 else { return nil }
        var wall = timespec()
        clock_gettime(CLOCK_REALTIME, &wall)
        let age = (Int64(wall.tv_sec) - Int64(stamp.tv_sec)) * 1_000_000_000 + (Int64(wall.tv_nsec) - Int64(stamp.tv_nsec))
        // A wall-clock step between the two readings would give nonsense: only ages within a second are believed.
        guard age >= 0, age < 1_000_000_000 else { return nil }
        return .nanoseconds(age)
    }

    /// Waits until any of `sockets` is readable or `timeoutMilliseconds` passes (-1: forever).
    /// Returns the indexes of readable sockets.
    public static func wait(_ sockets: [UdpSocket], timeoutMilliseconds: Int32) -> [Int] {
        var fds = sockets.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        let ready = Glibc.poll(&fds, nfds_t(fds.count), timeoutMilliseconds)
        guard ready > 0 else { return [] }
        return fds.indices.filter { fds[$0].revents & Int16(POLLIN) != 0 }
    }
}

/// sockaddr conversions for `TransportAddress`.
enum SocketAddress {
    static func storage(for address: TransportAddress) -> (sockaddr_storage, socklen_t) {
        var storage = sockaddr_storage()
        switch address.ip {
        case .v4(let a):
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = address.port.bigEndian
            sin.sin_addr.s_addr = a.bigEndian
            withUnsafeMutableBytes(of: &storage) { dst in withUnsafeBytes(of: &sin) { dst.copyMemory(from: $0) } }
            return (storage, socklen_t(MemoryLayout<sockaddr_in>.size))
        case .v6:
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = address.port.bigEndian
            let bytes = address.ip.bytes
            withUnsafeMutableBytes(of: &sin6.sin6_addr) { for i in 0..<16 { $0[i] = bytes[i] } }
            withUnsafeMutableBytes(of: &storage) { dst in withUnsafeBytes(of: &sin6) { dst.copyMemory(from: $0) } }
            return (storage, socklen_t(MemoryLayout<sockaddr_in6>.size))
        }
    }

    static func transportAddress(_ storage: sockaddr_storage) -> TransportAddress? {
        var s = storage
        switch Int32(s.ss_family) {
        case AF_INET:
            return withUnsafeBytes(of: &s) { raw in
                let sin = raw.load(as: sockaddr_in.self)
                return TransportAddress(ip: .v4(UInt32(bigEndian: sin.sin_addr.s_addr)), port: UInt16(bigEndian: sin.sin_port))
            }
        case AF_INET6:
            return withUnsafeBytes(of: &s) { raw in
                var sin6 = raw.load(as: sockaddr_in6.self)
                let ip = withUnsafeBytes(of: &sin6.sin6_addr) { IPAddress(bytes: $0) }
                return ip.map { TransportAddress(ip: $0, port: UInt16(bigEndian: sin6.sin6_port)) }
            }
        default:
            return nil
        }
    }
}
