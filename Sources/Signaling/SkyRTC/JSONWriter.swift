/// A deterministic JSON writer: members in the order given, no `\/` escaping, the shortest escapes
/// that `JSON.stringify` uses, integers without a fraction. Output is byte-identical to what the
/// original Node server would send for the same value, which the wire tests rely on.
public enum JSONWriter {
    public static func string(_ value: JSONValue) -> String {
        var out = ""
        write(value, into: &out)
        return out
    }

    static func write(_ value: JSONValue, into out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .integer(let i): out += String(i)
        case .number(let d):
            if d.rounded() == d && abs(d) < 1e21 {
                // JS prints integral doubles without ".0".
                out += String(Int64(exactly: d).map(String.init) ?? "\(d)")
            } else {
                out += "\(d)"
            }
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                write(item, into: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, (key, item)) in members.enumerated() {
                if i > 0 { out += "," }
                writeString(key, into: &out)
                out += ":"
                write(item, into: &out)
            }
            out += "}"
        }
    }

    /// ECMA-262 `QuoteJSONString`: escapes `"` `\` and controls; `/` and non-ASCII stay as they are.
    static func writeString(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{00}"..."\u{1F}":
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
