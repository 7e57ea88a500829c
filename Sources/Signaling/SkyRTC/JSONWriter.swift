/// A deterministic JSON writer: members in the order given, no `\/` escaping, the shortest escapes
/// that `JSON.stringify` uses, integers without a fraction. Output is byte-identical to what the
/// original Node server would send for the same value, which the wire tests rely on.
///
/// It writes UTF-8 into a byte buffer, copying each run of characters that need no escape in one
/// go: the server writes every forwarded SDP through here, so the cost per byte is what matters.
public enum JSONWriter {
    public static func string(_ value: JSONValue) -> String {
        String(decoding: bytes(value), as: UTF8.self)
    }

    public static func bytes(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        write(value, into: &out)
        return out
    }

    static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: append("null", to: &out)
        case .bool(let b): append(b ? "true" : "false", to: &out)
        case .integer(let i): append(String(i), to: &out)
        case .number(let d):
            if d.rounded() == d && abs(d) < 1e21 {
                // JS prints integral doubles without ".0".
                append(Int64(exactly: d).map(String.init) ?? "\(d)", to: &out)
            } else {
                append("\(d)", to: &out)
            }
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(item, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, (key, item)) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(item, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Appends text that needs no escaping (literals, numbers, already-quoted keys).
    static func append(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { out.append(contentsOf: $0) }
    }

    /// ECMA-262 `QuoteJSONString`: escapes `"` `\` and the controls U+0000…U+001F; `/`, U+2028/2029 and
    /// all other non-ASCII stay as they are. Every byte that needs an escape is ASCII, and no byte of a
    /// multi-byte UTF-8 sequence is below 0x80, so the scan can run over bytes.
    static func writeString(_ s: String, into out: inout [UInt8]) {
        var s = s
        s.withUTF8 { writeString(utf8: $0, into: &out) }
    }

    static func writeString(utf8 bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var runStart = 0
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            guard b < 0x20 || b == 0x22 || b == 0x5C else {
                i += 1
                continue
            }
            if runStart < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
            out.append(UInt8(ascii: "\\"))
            switch b {
            case 0x22: out.append(UInt8(ascii: "\""))
            case 0x5C: out.append(UInt8(ascii: "\\"))
            case 0x08: out.append(UInt8(ascii: "b"))
            case 0x0C: out.append(UInt8(ascii: "f"))
            case 0x0A: out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "t"))
            default:
                // JSON.stringify writes the other controls as lowercase `\u00xx`.
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(b >> 4)], hex[Int(b & 0xF)]])
            }
            i += 1
            runStart = i
        }
        if runStart < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
        out.append(UInt8(ascii: "\""))
    }
}
