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

    /// Why no unicast peer can have this address, or nil when one can. A relay asked to send to such an address
    /// fails the send (coturn 4.6 gets EACCES for a broadcast address) and then deletes the whole allocation, so
    /// such remote candidates are refused before anything is sent or permitted for them: RFC 1122 §3.2.1.3 (0/8
    /// and limited broadcast are never destinations of a unicast peer), RFC 5771 (224/4 multicast), RFC 1112 §4
    /// (240/4 reserved), RFC 4291 §2.5.2 and §2.7 (:: and ff00::/8), and the IPv4-mapped forms of the IPv4 ones.
    public var notUnicastReason: String? {
        switch self {
        case .v4(let a): return Self.notUnicastReason(v4: a)
        case .v6(let hi, let lo):
            if hi == 0 && lo == 0 { return "unspecified (::)" }
            if hi >> 56 == 0xFF { return "multicast (ff00::/8)" }
            if hi == 0, lo >> 32 == 0xFFFF, let reason = Self.notUnicastReason(v4: UInt32(truncatingIfNeeded: lo)) {
                return "IPv4-mapped \(reason)"
            }
            return nil
        }
    }

    private static func notUnicastReason(v4 a: UInt32) -> String? {
        if a == 0 { return "unspecified (0.0.0.0)" }
        if a >> 24 == 0 { return "\"this network\" (0.0.0.0/8)" }
        if a == .max { return "limited broadcast (255.255.255.255)" }
        if a >> 28 == 0xE { return "multicast (224.0.0.0/4)" }
        if a >> 28 == 0xF { return "reserved (240.0.0.0/4)" }
        return nil
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
