import Glibc

/// An IPv4 or IPv6 address, stored by value so it is cheap to hash and compare.
public enum IPAddress: Hashable, Sendable, CustomStringConvertible {
    case v4(UInt32)
    case v6(UInt64, UInt64)

    /// Builds an address from 4 (IPv4) or 16 (IPv6) network-order bytes; nil for any other length.
    public init?(bytes: some Collection<UInt8>) {
        let b = Array(bytes)
        switch b.count {
        case 4:
            self = .v4(b.reduce(0) { $0 << 8 | UInt32($1) })
        case 16:
            let hi = b[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let lo = b[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            self = .v6(hi, lo)
        default:
            return nil
        }
    }

    /// Parses the textual form ("192.0.2.1", "2001:db8::1"); nil when it is neither.
    public init?(_ text: some StringProtocol) {
        let s = String(text)
        if s.contains(":") {
            var raw = in6_addr()
            guard inet_pton(AF_INET6, s, &raw) == 1 else { return nil }
            let bytes = withUnsafeBytes(of: &raw) { Array($0) }
            self.init(bytes: bytes)
        } else {
            var raw = in_addr()
            guard inet_pton(AF_INET, s, &raw) == 1 else { return nil }
            let bytes = withUnsafeBytes(of: &raw) { Array($0) }
            self.init(bytes: bytes)
        }
    }

    /// Network-order bytes (4 or 16).
    public var bytes: [UInt8] {
        switch self {
        case .v4(let a):
            return [UInt8(a >> 24), UInt8(truncatingIfNeeded: a >> 16), UInt8(truncatingIfNeeded: a >> 8), UInt8(truncatingIfNeeded: a)]
        case .v6(let hi, let lo):
            return (0..<8).map { UInt8(truncatingIfNeeded: hi >> (56 - 8 * UInt64($0))) }
                + (0..<8).map { UInt8(truncatingIfNeeded: lo >> (56 - 8 * UInt64($0))) }
        }
    }

    public var isIPv4: Bool { if case .v4 = self { return true } else { return false } }

    public var isLoopback: Bool {
        switch self {
        case .v4(let a): return a >> 24 == 127
        case .v6(let hi, let lo): return hi == 0 && lo == 1
        }
    }

    /// IPv6 link-local fe80::/10: unusable without a scope id, which SDP candidates do not carry.
    public var isLinkLocal: Bool {
        switch self {
        case .v4(let a): return a >> 16 == 0xA9FE
        case .v6(let hi, _): return hi >> 54 == 0x3FA
        }
    }

    public var description: String {
        switch self {
        case .v4(let a):
            return "\(a >> 24).\((a >> 16) & 0xFF).\((a >> 8) & 0xFF).\(a & 0xFF)"
        case .v6:
            var raw = in6_addr()
            let b = bytes
            withUnsafeMutableBytes(of: &raw) { dst in for i in 0..<16 { dst[i] = b[i] } }
            var out = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard inet_ntop(AF_INET6, &raw, &out, socklen_t(out.count)) != nil else { return "?" }
            return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}
