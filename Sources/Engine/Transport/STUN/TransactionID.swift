/// The 96-bit STUN transaction id (RFC 5389 §6), stored as two integers for cheap hashing.
public struct TransactionID: Hashable, Sendable, CustomStringConvertible {
    let high: UInt64
    let low: UInt32

    /// Exactly 12 bytes; nil otherwise.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 12 else { return nil }
        var it = bytes.makeIterator()
        var h: UInt64 = 0
        for _ in 0..<8 { h = h << 8 | UInt64(it.next()!) }
        var l: UInt32 = 0
        for _ in 0..<4 { l = l << 8 | UInt32(it.next()!) }
        high = h
        low = l
    }

    /// RFC 5389 §6: "The transaction ID MUST be uniformly and randomly chosen from the interval 0 .. 2**96-1".
    public static func random(using rng: inout some RandomNumberGenerator) -> TransactionID {
        var bytes = [UInt8](repeating: 0, count: 12)
        for i in 0..<12 { bytes[i] = UInt8.random(in: 0...255, using: &rng) }
        return TransactionID(bytes: bytes)!
    }

    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(12)
        out.appendBE(high)
        out.appendBE(low)
        return out
    }

    public var description: String { bytes.map { String($0, radix: 16).leftPadded(2) }.joined() }
}

extension String {
    func leftPadded(_ width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
