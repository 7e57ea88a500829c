/// A bounds-checked big-endian reader over a byte array: every read either succeeds or returns nil,
/// so parsers of hostile datagrams cannot trap on an out-of-range index.
package struct ByteReader {
    package let bytes: [UInt8]
    package private(set) var offset: Int
    package let end: Int

    package init(_ bytes: [UInt8], from offset: Int = 0, to end: Int? = nil) {
        self.bytes = bytes
        self.offset = offset
        self.end = min(end ?? bytes.count, bytes.count)
    }

    package var remaining: Int { max(0, end - offset) }

    package mutating func u8() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    package mutating func u16() -> UInt16? {
        guard remaining >= 2 else { return nil }
        defer { offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    package mutating func u24() -> UInt32? {
        guard remaining >= 3 else { return nil }
        defer { offset += 3 }
        return UInt32(bytes[offset]) << 16 | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2])
    }

    package mutating func u32() -> UInt32? {
        guard remaining >= 4 else { return nil }
        var v: UInt32 = 0
        for i in 0..<4 { v = v << 8 | UInt32(bytes[offset + i]) }
        offset += 4
        return v
    }

    package mutating func u64() -> UInt64? {
        guard remaining >= 8 else { return nil }
        var v: UInt64 = 0
        for i in 0..<8 { v = v << 8 | UInt64(bytes[offset + i]) }
        offset += 8
        return v
    }

    package mutating func take(_ n: Int) -> ArraySlice<UInt8>? {
        guard n >= 0, remaining >= n else { return nil }
        defer { offset += n }
        return bytes[offset..<offset + n]
    }

    package mutating func skip(_ n: Int) -> Bool {
        guard n >= 0, remaining >= n else { return false }
        offset += n
        return true
    }
}

/// Big-endian appenders used by the wire encoders.
extension Array where Element == UInt8 {
    package mutating func appendBE(_ v: UInt16) {
        append(UInt8(v >> 8)); append(UInt8(truncatingIfNeeded: v))
    }

    package mutating func appendBE(_ v: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { append(UInt8(truncatingIfNeeded: v >> UInt32(shift))) }
    }

    package mutating func appendBE(_ v: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { append(UInt8(truncatingIfNeeded: v >> UInt64(shift))) }
    }

    package mutating func storeBE(_ v: UInt16, at i: Int) {
        self[i] = UInt8(v >> 8); self[i + 1] = UInt8(truncatingIfNeeded: v)
    }
}
