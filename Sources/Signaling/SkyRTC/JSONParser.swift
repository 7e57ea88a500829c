/// A strict RFC 8259 JSON parser over UTF-8 bytes, producing `JSONValue` with object key order kept.
/// Written here (rather than JSONSerialization) for two reasons: key order must survive forwarding,
/// and nesting depth must be bounded — a 1 MiB frame of `[[[[…` would otherwise exhaust the stack of
/// the event-loop thread and take every connection down with it.
public struct JSONParser {
    public struct Failure: Error, Equatable, Sendable {
        public let offset: Int
        public let reason: String
    }

    public static let defaultMaxDepth = 64
    /// The longest number accepted, in characters. RFC 8259 §9: "An implementation may set limits
    /// on the range and precision of numbers." No SkyRTC field needs more than a few digits, and a
    /// cap keeps the conversion linear whatever a peer sends.
    public static let maxNumberLength = 400
    /// Objects with more members than this index their keys for the duplicate check.
    static let indexedMembers = 8

    public static func parse(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth) throws(Failure) -> JSONValue {
        var p = JSONParser(bytes: bytes, maxDepth: maxDepth)
        p.skipWhitespace()
        let value = try p.parseValue(depth: 0)
        p.skipWhitespace()
        guard p.index == bytes.count else { throw p.fail("trailing characters") }
        return value
    }

    /// A member value left as text: where it is in the input, and whether those bytes are exactly
    /// what `JSONWriter` would write for it (see `JSONCanonicalScanner`).
    public struct RawValue: Equatable, Sendable {
        public let range: Range<Int>
        public let isCanonical: Bool
    }

    /// What a reader needs of a message shaped `{…, outer: {…, inner: <value>}}`, for
    /// `parse(_:selecting:)`: the server reads a few known fields and forwards one value as text.
    public struct Selection: Sendable {
        /// Top-level members that are built; the others are validated and dropped.
        public var topLevel: [String]
        /// The top-level member whose object value is looked into.
        public var outer: String
        /// Members of `outer` that are built; the others (except `inner`) are validated and dropped.
        public var outerMembers: [String]
        /// The member of `outer` that is validated and kept as text (`RawValue`).
        public var inner: String

        public init(topLevel: [String], outer: String, outerMembers: [String], inner: String) {
            self.topLevel = topLevel
            self.outer = outer
            self.outerMembers = outerMembers
            self.inner = inner
        }
    }

    /// Like `parse`, but builds only what `selection` asks for: dropped members and the `inner`
    /// value are validated in one pass each (`JSONCanonicalScanner`) without allocating, so a
    /// message of 120,000 unknown keys costs a scan, not 120,000 strings. `inner` reads as `null`
    /// in the result and comes back as `RawValue`. Duplicate members follow the usual rule, the last
    /// one wins. The input must be valid UTF-8 wherever it is only scanned.
    public static func parse(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth,
                             selecting selection: Selection) throws(Failure) -> (value: JSONValue, raw: RawValue?) {
        var p = JSONParser(bytes: bytes, maxDepth: maxDepth)
        p.selection = selection
        p.skipWhitespace()
        let value = try p.parseValue(depth: 0, capture: .outer)
        p.skipWhitespace()
        guard p.index == bytes.count else { throw p.fail("trailing characters") }
        return (value, p.raw)
    }

    /// Which level of a `Selection`, if any, the object being parsed is.
    private enum Capture { case none, outer, inner }

    private let bytes: [UInt8]
    private let maxDepth: Int
    private var index = 0
    private var selection: Selection?
    private var raw: RawValue?

    private init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    private func fail(_ reason: String) -> Failure { Failure(offset: index, reason: reason) }

    private mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    private mutating func expect(_ literal: String, _ value: JSONValue) throws(Failure) -> JSONValue {
        let lit = Array(literal.utf8)
        guard index + lit.count <= bytes.count, Array(bytes[index..<(index + lit.count)]) == lit else { throw fail("invalid literal") }
        index += lit.count
        return value
    }

    private mutating func parseValue(depth: Int, capture: Capture = .none) throws(Failure) -> JSONValue {
        guard index < bytes.count else { throw fail("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1, capture: capture)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "n"): return try expect("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("unexpected character")
        }
    }

    /// Scans the value at `index` as raw text (see `parse(_:selecting:)`), leaving `index` past it.
    private mutating func scanRaw(depth: Int) throws(Failure) -> RawValue {
        let start = index
        let outcome: Result<(end: Int, canonical: Bool), Failure> = bytes.withUnsafeBufferPointer { buffer in
            var scanner = JSONCanonicalScanner(buffer, at: start, maxDepth: maxDepth)
            do throws(Failure) {
                let canonical = try scanner.scanValue(depth: depth)
                return .success((scanner.index, canonical))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let scanned):
            index = scanned.end
            return RawValue(range: start..<scanned.end, isCanonical: scanned.canonical)
        case .failure(let failure):
            throw failure
        }
    }

    private mutating func parseObject(depth: Int, capture: Capture = .none) throws(Failure) -> JSONValue {
        guard depth <= maxDepth else { throw fail("nesting deeper than \(maxDepth)") }
        index += 1
        var members: [(String, JSONValue)] = []
        // Duplicate keys: RFC 8259 §4 "The names within an object SHOULD be unique" and leaves the
        // rest to the implementation; JSON.parse (the original server, browsers) keeps the last value
        // in the first key's position, and so do we. Small objects (every SkyRTC message) look back
        // over their few members; past `Self.indexedMembers` a hash index takes over, so an object
        // of 120,000 keys costs linear time instead of 120,000²/2 comparisons.
        var positions: [String: Int] = [:]
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a key") }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipWhitespace()
            let value: JSONValue
            var keep = true
            if let selection, capture != .none {
                if capture == .inner && key == selection.inner {
                    raw = try scanRaw(depth: depth)
                    value = .null
                } else if capture == .outer && key == selection.outer {
                    raw = nil  // a later duplicate `outer` replaces the earlier one, raw member included
                    value = try parseValue(depth: depth, capture: .inner)
                } else if !(capture == .outer ? selection.topLevel : selection.outerMembers).contains(key) {
                    _ = try scanRaw(depth: depth)
                    keep = false
                    value = .null
                } else {
                    value = try parseValue(depth: depth)
                }
            } else {
                value = try parseValue(depth: depth)
            }
            if !keep {
                // Validated above; nothing to store.
            } else if members.count < Self.indexedMembers {
                if let existing = members.firstIndex(where: { $0.0 == key }) {
                    members[existing].1 = value
                } else {
                    members.append((key, value))
                }
            } else {
                if positions.isEmpty {
                    for (i, member) in members.enumerated() { positions[member.0] = i }
                }
                if let existing = positions[key] {
                    members[existing].1 = value
                } else {
                    positions[key] = members.count
                    members.append((key, value))
                }
            }
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end in object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            throw fail("expected ',' or '}'")
        }
    }

    private mutating func parseArray(depth: Int) throws(Failure) -> JSONValue {
        guard depth <= maxDepth else { throw fail("nesting deeper than \(maxDepth)") }
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
        while true {
            skipWhitespace()
            items.append(try parseValue(depth: depth))
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end in array") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            throw fail("expected ',' or ']'")
        }
    }

    private mutating func parseNumber() throws(Failure) -> JSONValue {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        func digits(_ p: inout JSONParser) -> Int {
            let s = p.index
            while p.index < p.bytes.count, p.bytes[p.index] >= 0x30, p.bytes[p.index] <= 0x39 { p.index += 1 }
            return p.index - s
        }
        guard index < bytes.count else { throw fail("bad number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1  // RFC 8259 §6: no leading zeros
        } else if digits(&self) == 0 {
            throw fail("bad number")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard digits(&self) > 0 else { throw fail("bad fraction") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits(&self) > 0 else { throw fail("bad exponent") }
        }
        guard index - start <= Self.maxNumberLength else { throw fail("number longer than \(Self.maxNumberLength) characters") }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let i = Int64(text) { return .integer(i) }
        guard let d = Double(text), d.isFinite else { throw fail("number out of range") }
        return .number(d)
    }

    /// One pass: runs of plain bytes are found first and copied in one go; a string without escapes
    /// (nearly all of them, the SDP included) becomes a `String` straight from the input bytes.
    private mutating func parseString() throws(Failure) -> String {
        index += 1  // opening quote
        var out: [UInt8] = []
        var escaped = false
        while true {
            let runStart = index
            while index < bytes.count {
                let c = bytes[index]
                if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 { break }
                index += 1
            }
            guard index < bytes.count else { throw fail("unterminated string") }
            let b = bytes[index]
            if b == UInt8(ascii: "\"") && !escaped {
                index += 1
                // The frame was UTF-8-validated already for text frames; binary frames are checked here.
                return try string(bytes[runStart..<(index - 1)])
            }
            escaped = true
            out.append(contentsOf: bytes[runStart..<index])
            index += 1
            switch b {
            case UInt8(ascii: "\""):
                return try string(out[...])
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw fail("unterminated escape") }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        // RFC 8259 §7: a character outside the BMP is a surrogate pair.
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw fail("lone high surrogate")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail("bad low surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw fail("lone low surrogate")
                    }
                    guard let u = Unicode.Scalar(scalar), let encoded = UTF8.encode(u) else { throw fail("bad escape") }
                    out.append(contentsOf: encoded)
                default:
                    throw fail("bad escape")
                }
            default:
                // The inner loop stops only at a quote, a backslash or a control character (RFC 8259
                // §7: "the control characters (U+0000 through U+001F)" MUST be escaped).
                throw fail("control character in string")
            }
        }
    }

    /// A string from its unescaped UTF-8, refused if not valid (text frames were checked already,
    /// binary frames and other callers are checked here). `UTF8Validation` plus `String(decoding:)`
    /// rather than `String(validating:)`, whose generic path costs more than the whole envelope.
    private func string(_ utf8: ArraySlice<UInt8>) throws(Failure) -> String {
        let valid = utf8.withUnsafeBufferPointer { UTF8Validation.isValid($0) }
        guard valid else { throw fail("string is not valid UTF-8") }
        return String(decoding: utf8, as: UTF8.self)
    }

    /// One HEXDIG of a `\u` escape (RFC 8259 §7: "\u" followed by four hexadecimal digits, either case),
    /// nil for any other byte; shared with `JSONCanonicalScanner`.
    static func hexDigit(_ c: UInt8) -> UInt32? {
        switch c {
        case 0x30...0x39: return UInt32(c - 0x30)
        case 0x41...0x46: return UInt32(c - 0x41 + 10)
        case 0x61...0x66: return UInt32(c - 0x61 + 10)
        default: return nil
        }
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("short \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard let d = JSONParser.hexDigit(bytes[index]) else { throw fail("bad hex digit") }
            index += 1
            v = v << 4 | d
        }
        return v
    }
}
