/// An RFC 4648 §4 base64 decoder fed in pieces that may split anywhere, even inside a quad, so a file arriving
/// in chunks of any size is decoded as it comes without holding its text.
public struct StreamingBase64Decoder: Sendable {
    public enum Failure: Error, Equatable, Sendable {
        /// A byte outside the alphabet, `=` where no padding may be, or anything after the padding.
        case invalidCharacter(UInt8)
        /// The input ended inside a quad that padding cannot complete (one character over a multiple of four).
        case truncated
    }

    private var bits: UInt32 = 0
    private var sextets = 0
    private var padding = 0
    private var ended = false

    public init() {}

    /// Decodes `text`, appending whole bytes to `out`; a partial quad waits for the next call.
    public mutating func decode(_ text: some Sequence<UInt8>, into out: inout [UInt8]) throws(Failure) {
        for c in text {
            if c == UInt8(ascii: "=") {
                // Padding completes a quad of 2 or 3 characters; nothing but more padding may follow it.
                guard !ended || padding > 0, sextets >= 2, sextets + padding < 4 else { throw .invalidCharacter(c) }
                padding += 1
                ended = true
                if sextets + padding == 4 { flush(into: &out) }
                continue
            }
            guard !ended, let v = Self.value(c) else { throw .invalidCharacter(c) }
            bits = bits << 6 | UInt32(v)
            sextets += 1
            if sextets == 4 { flush(into: &out) }
        }
    }

    /// Ends the input: a tail of 2 or 3 characters without padding is decoded too (padding is optional,
    /// §3.2), 1 character or unfinished padding is an error.
    public mutating func finish(into out: inout [UInt8]) throws(Failure) {
        guard sextets != 1, padding == 0 || sextets == 0 else { throw .truncated }
        if sextets > 0 { flush(into: &out) }
    }

    /// Writes the bytes of the `sextets` characters held: 4 → 3 bytes, 3 → 2, 2 → 1.
    private mutating func flush(into out: inout [UInt8]) {
        let value = bits << (6 * UInt32(4 - sextets))
        let count = sextets - 1
        if count >= 1 { out.append(UInt8(truncatingIfNeeded: value >> 16)) }
        if count >= 2 { out.append(UInt8(truncatingIfNeeded: value >> 8)) }
        if count >= 3 { out.append(UInt8(truncatingIfNeeded: value)) }
        bits = 0
        sextets = 0
        padding = 0
    }

    private static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return c - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return nil
        }
    }
}
