/// A bounds-checked big-endian reader for the RTP/RTCP parsers: every read either succeeds or
/// returns nil, so a hostile datagram cannot trap on an index. (Transport has its own `ByteReader`
/// with the same shape; this one is RTP's, kept separate so the two branches merge cleanly.)
struct WireReader {
    let bytes: [UInt8]
    private(set) var offset: Int
    let end: Int

    init(_ bytes: [UInt8], from offset: Int = 0, to end: Int? = nil) {
        self.bytes = bytes
        self.offset = offset
        self.end = min(end ?? bytes.count, bytes.count)
    }

    var remaining: Int { max(0, end - offset) }

    mutating func u8() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u16() -> UInt16? {
        guard remaining >= 2 else { return nil }
        defer { offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    mutating func u24() -> UInt32? {
        guard remaining >= 3 else { return nil }
        defer { offset += 3 }
        return UInt32(bytes[offset]) << 16 | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2])
    }

    mutating func u32() -> UInt32? {
        guard remaining >= 4 else { return nil }
        var v: UInt32 = 0
        for i in 0..<4 { v = v << 8 | UInt32(bytes[offset + i]) }
        offset += 4
        return v
    }

    mutating func u64() -> UInt64? {
        guard remaining >= 8 else { return nil }
        var v: UInt64 = 0
        for i in 0..<8 { v = v << 8 | UInt64(bytes[offset + i]) }
        offset += 8
        return v
    }

    mutating func take(_ n: Int) -> [UInt8]? {
        guard n >= 0, remaining >= n else { return nil }
        defer { offset += n }
        return Array(bytes[offset..<offset + n])
    }

    mutating func skip(_ n: Int) -> Bool {
        guard n >= 0, remaining >= n else { return false }
        offset += n
        return true
    }
}

/// Big-endian writer used by the RTP/RTCP serializers.
struct WireWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 64) { bytes.reserveCapacity(capacity) }

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u16(_ v: UInt16) { bytes.append(UInt8(v >> 8)); bytes.append(UInt8(truncatingIfNeeded: v)) }
    mutating func u24(_ v: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: v >> 16)); bytes.append(UInt8(truncatingIfNeeded: v >> 8))
        bytes.append(UInt8(truncatingIfNeeded: v))
    }
    mutating func u32(_ v: UInt32) {
        for s in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: v >> UInt32(s))) }
    }
    mutating func u64(_ v: UInt64) {
        for s in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: v >> UInt64(s))) }
    }
    mutating func append(_ b: [UInt8]) { bytes.append(contentsOf: b) }
    mutating func zeros(_ n: Int) { bytes.append(contentsOf: repeatElement(0, count: n)) }
    mutating func set(_ v: UInt8, at i: Int) { bytes[i] = v }
    mutating func set16(_ v: UInt16, at i: Int) { bytes[i] = UInt8(v >> 8); bytes[i + 1] = UInt8(truncatingIfNeeded: v) }
    var count: Int { bytes.count }
}
