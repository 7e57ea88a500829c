/// Why a message (or one entry of it) from Janus was dropped. The reason is ours, never the peer's text.
struct JanusDropped: Error, Equatable {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

/// The checks every value from Janus goes through before arithmetic, conversion or indexing.
enum JanusChecked {
    /// Janus ids are random integers below 2^53 (they must survive JavaScript's doubles).
    static let maxID: Int64 = 1 << 53

    /// An id in 1...2^53. With `string_ids` on, Janus sends ids as strings: this client accepts only integers.
    static func id(_ value: JSONValue?, _ field: String) throws(JanusDropped) -> UInt64 {
        switch value {
        case .integer(let i)?:
            guard i >= 1, i <= maxID else { throw JanusDropped("\(field) \(i) is outside 1...2^53") }
            return UInt64(i)
        case .string?:
            throw JanusDropped("\(field) is a string: string ids (string_ids) are not supported, only integers")
        case nil, .null?:
            throw JanusDropped("\(field) is missing")
        default:
            throw JanusDropped("\(field) is not an integer in 1...2^53")
        }
    }

    /// An optional id: nil when absent, dropped when present but bad.
    static func optionalID(_ value: JSONValue?, _ field: String) throws(JanusDropped) -> UInt64? {
        if value == nil || value == .null { return nil }
        return try id(value, field)
    }

    /// A string of at most `maxBytes` UTF-8 bytes.
    static func text(_ value: JSONValue?, _ field: String, maxBytes: Int) throws(JanusDropped) -> String {
        guard case .string(let s)? = value else { throw JanusDropped("\(field) is missing or not a string") }
        let count = s.utf8.count
        guard count <= maxBytes else { throw JanusDropped("\(field) is \(count) bytes, over \(maxBytes)") }
        return s
    }

    static func optionalText(_ value: JSONValue?, _ field: String, maxBytes: Int) throws(JanusDropped) -> String? {
        if value == nil || value == .null { return nil }
        return try text(value, field, maxBytes: maxBytes)
    }

    /// An array of at most `maxCount` elements.
    static func array(_ value: JSONValue?, _ field: String, maxCount: Int) throws(JanusDropped) -> [JSONValue] {
        guard case .array(let items)? = value else { throw JanusDropped("\(field) is missing or not an array") }
        guard items.count <= maxCount else { throw JanusDropped("\(field) has \(items.count) entries, over \(maxCount)") }
        return items
    }

    /// An error code in 0...9999 (Janus's are three digits).
    static func code(_ value: JSONValue?, _ field: String) throws(JanusDropped) -> Int {
        guard case .integer(let i)? = value, i >= 0, i <= 9999 else { throw JanusDropped("\(field) is not a code in 0...9999") }
        return Int(i)
    }

    static func bool(_ value: JSONValue?) -> Bool? {
        if case .bool(let b)? = value { return b }
        return nil
    }

    /// Text cut to `maxBytes` (on a character boundary) and escaped for one log line.
    static func shown(_ text: String, maxBytes: Int) -> String {
        var cut = ""
        var bytes = 0
        for c in text {
            let n = String(c).utf8.count
            if bytes + n > maxBytes { cut += "…"; break }
            cut.append(c)
            bytes += n
        }
        return LogEscaping.escape(cut)
    }
}
