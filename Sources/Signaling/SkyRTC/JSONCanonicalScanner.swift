#if canImport(Glibc)
import Glibc
#endif

/// Validates one JSON value in a single pass without building it, and tells whether its text is
/// already *canonical*: exactly the bytes `JSONWriter` (that is, `JSON.stringify`) would write for
/// the parsed value. The server forwards a canonical SDP object as the bytes the client sent — what
/// every browser sends, since it comes out of `JSON.stringify` — and re-serialises only the rest.
///
/// Canonical means: no whitespace between tokens (RFC 8259 §2 allows it, JSON.stringify writes none);
/// strings whose escapes are the ones JSON.stringify writes (`\"` `\\` `\b` `\f` `\n` `\r` `\t`, other
/// controls as `\u00xx` in lowercase; so `\/`, `\u00e9` or `\u2028` are not); integers of at most 15
/// digits without a leading zero and not `-0` (any fraction or exponent counts as not canonical, the
/// writer's own rule decides their text); objects of at most `maxCanonicalMembers` members with no
/// duplicate key (JSON.parse would collapse a duplicate). Anything else is still validated here, and
/// the caller parses and writes it the slow, exact way.
///
/// The bytes must be valid UTF-8 already (a text frame is checked by the frame parser, a binary
/// one by the caller), so runs of string bytes are skipped, never decoded.
struct JSONCanonicalScanner {
    static let maxCanonicalMembers = 8

    /// The keys of the object being scanned, up to `maxCanonicalMembers`, kept inline (no allocation
    /// for every SDP object).
    private struct KeyRanges {
        private var storage: (Range<Int>, Range<Int>, Range<Int>, Range<Int>, Range<Int>, Range<Int>, Range<Int>, Range<Int>) =
            (0..<0, 0..<0, 0..<0, 0..<0, 0..<0, 0..<0, 0..<0, 0..<0)
        private(set) var count = 0

        subscript(i: Int) -> Range<Int> {
            precondition(i >= 0 && i < count)
            return withUnsafeBytes(of: storage) { $0.load(fromByteOffset: i * MemoryLayout<Range<Int>>.stride, as: Range<Int>.self) }
        }

        mutating func append(_ range: Range<Int>) {
            precondition(count < JSONCanonicalScanner.maxCanonicalMembers)
            let offset = count * MemoryLayout<Range<Int>>.stride
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: range, toByteOffset: offset, as: Range<Int>.self) }
            count += 1
        }
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private let maxDepth: Int
    private(set) var index: Int

    init(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, maxDepth: Int) {
        self.bytes = bytes
        self.index = index
        self.maxDepth = maxDepth
    }

    private func fail(_ reason: String) -> JSONParser.Failure { JSONParser.Failure(offset: index, reason: reason) }

    private func isWhitespace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }

    /// Skips whitespace; false if there was any (so the text is not canonical).
    private mutating func skipWhitespace() -> Bool {
        let start = index
        while index < bytes.count, isWhitespace(bytes[index]) { index += 1 }
        return index == start
    }

    /// Scans the value at `index` (`depth` = the nesting of the container holding it) and leaves
    /// `index` just past it. Returns whether its text is canonical.
    mutating func scanValue(depth: Int) throws(JSONParser.Failure) -> Bool {
        guard index < bytes.count else { throw fail("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try scanObject(depth: depth + 1)
        case UInt8(ascii: "["): return try scanArray(depth: depth + 1)
        case UInt8(ascii: "\""): return try scanString()
        case UInt8(ascii: "t"): return try literal("true")
        case UInt8(ascii: "f"): return try literal("false")
        case UInt8(ascii: "n"): return try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try scanNumber()
        default: throw fail("unexpected character")
        }
    }

    private mutating func literal(_ text: StaticString) throws(JSONParser.Failure) -> Bool {
        let count = text.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw fail("invalid literal") }
        let p = text.utf8Start
        for i in 0..<count where bytes[index + i] != p[i] { throw fail("invalid literal") }
        index += count
        return true
    }

    private mutating func scanObject(depth: Int) throws(JSONParser.Failure) -> Bool {
        guard depth <= maxDepth else { throw fail("nesting deeper than \(maxDepth)") }
        index += 1
        var canonical = skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            index += 1
            return canonical
        }
        // Key ranges, to find duplicates among the first few; a longer object is simply not
        // canonical (so it costs no table here, and the exact parser's hash index handles it).
        var keys = KeyRanges()
        while true {
            canonical = skipWhitespace() && canonical
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a key") }
            let keyStart = index
            canonical = try scanString() && canonical
            let key = keyStart..<index
            if canonical {
                if keys.count >= Self.maxCanonicalMembers {
                    canonical = false
                } else {
                    // Canonical keys are equal as strings exactly when their bytes are equal.
                    for i in 0..<keys.count {
                        let other = keys[i]
                        if other.count == key.count, let base = bytes.baseAddress,
                           memcmp(base + other.lowerBound, base + key.lowerBound, key.count) == 0 {
                            canonical = false
                        }
                    }
                    keys.append(key)
                }
            }
            canonical = skipWhitespace() && canonical
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            canonical = skipWhitespace() && canonical
            canonical = try scanValue(depth: depth) && canonical
            canonical = skipWhitespace() && canonical
            guard index < bytes.count else { throw fail("unexpected end in object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return canonical }
            throw fail("expected ',' or '}'")
        }
    }

    private mutating func scanArray(depth: Int) throws(JSONParser.Failure) -> Bool {
        guard depth <= maxDepth else { throw fail("nesting deeper than \(maxDepth)") }
        index += 1
        var canonical = skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
            return canonical
        }
        while true {
            canonical = skipWhitespace() && canonical
            canonical = try scanValue(depth: depth) && canonical
            canonical = skipWhitespace() && canonical
            guard index < bytes.count else { throw fail("unexpected end in array") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return canonical }
            throw fail("expected ',' or ']'")
        }
    }

    /// The grammar of RFC 8259 §6; canonical only for a short integer as JS would print it.
    private mutating func scanNumber() throws(JSONParser.Failure) -> Bool {
        let start = index
        var canonical = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw fail("bad number") }
        let intStart = index
        if bytes[index] == UInt8(ascii: "0") {
            index += 1  // RFC 8259 §6: no leading zeros
            // JSON.stringify(-0) is "0".
            if intStart != start { canonical = false }
        } else if digits() == 0 {
            throw fail("bad number")
        }
        if index - intStart > 15 { canonical = false }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            canonical = false
            index += 1
            guard digits() > 0 else { throw fail("bad fraction") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            canonical = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw fail("bad exponent") }
        }
        guard index - start <= JSONParser.maxNumberLength else { throw fail("number longer than \(JSONParser.maxNumberLength) characters") }
        return canonical
    }

    private mutating func digits() -> Int {
        let start = index
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
        return index - start
    }

    /// RFC 8259 §7. Plain bytes are skipped eight at a time: a word with no `"`, no `\` and no byte
    /// below 0x20 needs no look at its bytes one by one.
    private mutating func scanString() throws(JSONParser.Failure) -> Bool {
        index += 1  // opening quote
        var canonical = true
        guard let base = bytes.baseAddress else { throw fail("unterminated string") }
        let raw = UnsafeRawPointer(base)
        while true {
            while bytes.count - index >= 8 {
                let w = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                let special = Self.specialBytes(w)
                if special != 0 {
                    #if _endian(little)
                    // The lowest flagged byte is exact (borrows only run towards higher bytes), and on
                    // a little-endian load it is the first in memory: jump straight to it.
                    index += special.trailingZeroBitCount / 8
                    #endif
                    break
                }
                index += 8
            }
            while index < bytes.count {
                let c = bytes[index]
                if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 { break }
                index += 1
            }
            guard index < bytes.count else { throw fail("unterminated string") }
            let b = bytes[index]
            index += 1
            if b == UInt8(ascii: "\"") { return canonical }
            // RFC 8259 §7: "All Unicode characters may be placed within the quotation marks, except
            // for the characters that MUST be escaped: quotation mark, reverse solidus, and the
            // control characters (U+0000 through U+001F)."
            guard b == UInt8(ascii: "\\") else { throw fail("control character in string") }
            guard index < bytes.count else { throw fail("unterminated escape") }
            let e = bytes[index]
            index += 1
            switch e {
            case UInt8(ascii: "r"), UInt8(ascii: "n"):
                // An SDP is lines ending in `\r\n`: take the pair at once.
                if bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "n") { index += 2 }
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "t"):
                break
            case UInt8(ascii: "/"):
                canonical = false  // JSON.stringify writes "/" as itself
            case UInt8(ascii: "u"):
                let hexStart = index
                let scalar = try hex4()
                // JSON.stringify writes `\u00xx` (lowercase) only for controls without a short form.
                let lowercase = (hexStart..<index).allSatisfy { bytes[$0] < UInt8(ascii: "A") || bytes[$0] > UInt8(ascii: "F") }
                switch scalar {
                case 0x08, 0x09, 0x0A, 0x0C, 0x0D: canonical = false  // written as \b \t \n \f \r
                case 0x00..<0x20: if !lowercase { canonical = false }
                default: canonical = false
                }
                if (0xD800...0xDBFF).contains(scalar) {
                    guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                        throw fail("lone high surrogate")
                    }
                    index += 2
                    guard (0xDC00...0xDFFF).contains(try hex4()) else { throw fail("bad low surrogate") }
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw fail("lone low surrogate")
                }
            default:
                throw fail("bad escape")
            }
        }
    }

    private mutating func hex4() throws(JSONParser.Failure) -> UInt32 {
        guard bytes.count - index >= 4 else { throw fail("short \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard let d = JSONParser.hexDigit(bytes[index]) else { throw fail("bad hex digit") }
            index += 1
            v = v << 4 | d
        }
        return v
    }

    /// Nonzero when a byte of `w` is `"`, `\` or below 0x20: the classic "has zero byte" and "has byte
    /// less than n" word tests, whose high bits flag such bytes (exact for the lowest one flagged).
    @inline(__always)
    static func specialBytes(_ w: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = w ^ (ones &* 0x22)
        let backslash = w ^ (ones &* 0x5C)
        let hasQuote = (quote &- ones) & ~quote & highs
        let hasBackslash = (backslash &- ones) & ~backslash & highs
        let hasControl = (w &- ones &* 0x20) & ~w & highs
        return hasQuote | hasBackslash | hasControl
    }
}
