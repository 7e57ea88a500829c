/// Any JSON value, keeping object keys in their original order so that opaque payloads (the SDP
/// object) are forwarded exactly as the sender wrote them, like `JSON.stringify(JSON.parse(x))` in
/// the original Node server.
public enum JSONValue: Equatable, Sendable, Codable {
    case null
    case bool(Bool)
    /// Integers are kept apart from fractions so `"label":0` is written back as `0`, never `0.0`.
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// Ordered members. Duplicate keys are collapsed at parse time, the last one winning (as JS does).
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.integer(x), .integer(y)): return x == y
        case let (.number(x), .number(y)): return x == y
        case let (.integer(x), .number(y)), let (.number(y), .integer(x)): return Double(x) == y
        case let (.string(x), .string(y)): return x == y
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// The member `key` of an object, nil for other values or a missing key.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last(where: { $0.0 == key })?.1
    }

    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }

    /// An integral number as Int (JSON `3` or `3.0`), nil otherwise.
    public var integerValue: Int? {
        switch self {
        case .integer(let i): return Int(exactly: i)
        case .number(let d): return d.rounded() == d && abs(d) < 9.0e15 ? Int(d) : nil
        default: return nil
        }
    }

    /// JavaScript truthiness, needed for the original's `room || "__default"` rule.
    public var isTruthy: Bool {
        switch self {
        case .null: return false
        case .bool(let b): return b
        case .integer(let i): return i != 0
        case .number(let d): return d != 0 && !d.isNaN
        case .string(let s): return !s.isEmpty
        case .array, .object: return true
        }
    }

    // Codable through the standard containers, so the typed messages can embed it. (Key order is
    // not guaranteed through JSONEncoder; the wire path uses JSONWriter, which keeps it.)
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null; return }
        if let b = try? c.decode(Bool.self) { self = .bool(b); return }
        if let i = try? c.decode(Int64.self) { self = .integer(i); return }
        if let d = try? c.decode(Double.self) { self = .number(d); return }
        if let s = try? c.decode(String.self) { self = .string(s); return }
        if let a = try? c.decode([JSONValue].self) { self = .array(a); return }
        let o = try c.decode([String: JSONValue].self)
        self = .object(o.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .integer(let i): try c.encode(i)
        case .number(let d): try c.encode(d)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let members):
            var dict: [String: JSONValue] = [:]
            for (k, v) in members { dict[k] = v }
            try c.encode(dict)
        }
    }
}
