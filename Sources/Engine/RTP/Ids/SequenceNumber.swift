/// The 16-bit RTP sequence number as carried on the wire (RFC 3550 §5.1).
public struct SequenceNumber: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ value: UInt16) { rawValue = value }
    public var description: String { String(rawValue) }

    /// The next number, wrapping after 65535.
    public var next: SequenceNumber { SequenceNumber(rawValue &+ 1) }
}

/// A sequence number extended to 64 bits so it never wraps during a call: comparisons and
/// differences are plain integer arithmetic.
public struct ExtendedSequenceNumber: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    public init(_ value: UInt64) { rawValue = value }
    public var description: String { String(rawValue) }
    public var wire: SequenceNumber { SequenceNumber(UInt16(truncatingIfNeeded: rawValue)) }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    public static func + (a: Self, n: UInt64) -> Self { Self(a.rawValue + n) }
    public static func - (a: Self, n: UInt64) -> Self { Self(a.rawValue - n) }
}

/// Extends 16-bit sequence numbers to 64 bits by picking, for each new number, the extension
/// closest to the highest one seen so far (the idea of RFC 3550 Appendix A.1: a jump of less than
/// half the space forward is new, backward is a reordered old packet).
///
/// The first number is placed in cycle 1 (value 65536 + seq), so a packet reordered across a wrap
/// *before* the first one still gets a smaller, non-negative number.
public struct SequenceUnwrapper: Sendable {
    private var highest: UInt64?

    public init() {}

    public mutating func unwrap(_ seq: SequenceNumber) -> ExtendedSequenceNumber {
        guard let h = highest else {
            let v = (1 << 16) + UInt64(seq.rawValue)
            highest = v
            return ExtendedSequenceNumber(v)
        }
        let delta = Int64(Int16(bitPattern: seq.rawValue &- UInt16(truncatingIfNeeded: h)))
        let candidate = Int64(h) + delta
        let v = UInt64(max(0, candidate))
        if v > h { highest = v }
        return ExtendedSequenceNumber(v)
    }
}
