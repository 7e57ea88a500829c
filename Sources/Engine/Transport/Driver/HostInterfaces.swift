import Glibc

/// Host candidate addresses of this machine (RFC 8445 §5.1.1.1), read with getifaddrs. This is the OS-facing
/// part of gathering; the sans-IO `IceAgent` only receives the results as `.addLocalHost` commands after the
/// driver has bound a socket to each.
public enum HostInterfaces {
    public struct Address: Hashable, Sendable {
        public var interface: String
        public var ip: IPAddress
    }

    /// Addresses of interfaces that are up. Loopback only when asked (tests and same-machine interop, see
    /// docs/webrtc-interop.md §9); IPv6 link-local never, since SDP candidates carry no
    /// scope id (RFC 8445 §5.1.1.1: "MUST NOT be included ... link-local IPv6 addresses").
    public static func list(includeLoopback: Bool = false, includeIPv6: Bool = true) throws -> [Address] {
        var head: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&head) == 0, let first = head else {
            throw EngineError.library(name: "libc", call: "getifaddrs", code: errno)
        }
        defer { freeifaddrs(head) }
        var result: [Address] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            let flags = Int32(entry.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, let sa = entry.pointee.ifa_addr else { continue }
            let name = String(cString: entry.pointee.ifa_name)
            var ip: IPAddress?
            switch Int32(sa.pointee.sa_family) {
            case AF_INET:
                ip = sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                    IPAddress.v4(UInt32(bigEndian: sin.pointee.sin_addr.s_addr))
                }
            case AF_INET6 where includeIPv6:
                ip = sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
                    var raw = sin6.pointee.sin6_addr
                    return withUnsafeBytes(of: &raw) { IPAddress(bytes: $0) }
                }
            default:
                break
            }
            guard let ip, !ip.isLinkLocal else { continue }
            if ip.isLoopback && !includeLoopback { continue }
            if !result.contains(where: { $0.ip == ip }) { result.append(Address(interface: name, ip: ip)) }
        }
        // Non-loopback first: earlier addresses get the higher local preference in the agent.
        return result.filter { !$0.ip.isLoopback } + result.filter { $0.ip.isLoopback }
    }
}
