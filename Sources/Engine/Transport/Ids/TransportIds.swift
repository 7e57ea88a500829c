/// Typed ids of the transport layer, so a payload type cannot be passed where an SSRC is expected.

/// RTP synchronization source (RFC 3550 §3).
public struct SSRC: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ value: UInt32) { rawValue = value }
    public var description: String { String(rawValue) }
}

/// RTP payload type, 0...127 (RFC 3550 §5.1).
public struct PayloadType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init?(rawValue: UInt8) {
        guard rawValue < 128 else { return nil }
        self.rawValue = rawValue
    }
    public var description: String { String(rawValue) }
}

/// Media stream identification (`a=mid`, RFC 9143 §4/RFC 8843 BUNDLE).
public struct Mid: RawRepresentable, Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }
    public var description: String { rawValue }
}
