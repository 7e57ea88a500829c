/// Reads an input as a stream of small decisions and length-prefixed chunks, so one byte string drives a whole
/// sequence of operations (and libFuzzer's mutations of a byte change one decision, not the whole parse).
/// Running out of bytes yields zeros and empty chunks: every input is valid.
struct FuzzInput {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isEmpty: Bool { index >= bytes.count }
    var remaining: Int { max(0, bytes.count - index) }

    mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func uint16() -> UInt16 { UInt16(byte()) << 8 | UInt16(byte()) }

    /// A chunk whose length is the next two bytes (big-endian), cut to what is left.
    mutating func chunk() -> [UInt8] {
        let n = min(Int(uint16()), remaining)
        defer { index += n }
        return Array(bytes[index..<index + n])
    }

    /// Everything not yet read.
    mutating func rest() -> [UInt8] {
        defer { index = bytes.count }
        return index < bytes.count ? Array(bytes[index...]) : []
    }
}
