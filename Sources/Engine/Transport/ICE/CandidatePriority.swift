/// Priority and foundation formulas of RFC 8445.
package enum CandidatePriority {
    /// §5.1.2.1: priority = 2^24 * type preference + 2^8 * local preference + (256 - component ID).
    package static func candidate(kind: IceCandidate.Kind, localPreference: UInt32, component: Int = 1) -> UInt32 {
        (kind.typePreference << 24) + (min(localPreference, 65535) << 8) + UInt32(256 - component)
    }

    /// §6.1.2.3: pair priority = 2^32 * MIN(G,D) + 2 * MAX(G,D) + (G > D ? 1 : 0), G the controlling agent's
    /// candidate priority and D the controlled one's.
    package static func pair(controlling g: UInt32, controlled d: UInt32) -> UInt64 {
        (UInt64(min(g, d)) << 32) + 2 * UInt64(max(g, d)) + (g > d ? 1 : 0)
    }

    /// §5.1.1.3: same type, same base IP address, same transport protocol (and STUN/TURN server) give the same
    /// foundation. A deterministic FNV-1a hash of those, printed in decimal as browsers do.
    package static func foundation(kind: IceCandidate.Kind, baseIP: IPAddress, transport: String = "udp") -> String {
        var hash: UInt32 = 2_166_136_261
        for byte in Array("\(kind.rawValue)|\(baseIP)|\(transport)".utf8) {
            hash = (hash ^ UInt32(byte)) &* 16_777_619
        }
        return String(hash)
    }
}
