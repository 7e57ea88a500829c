/// Makes any text safe to write as one log line. Every `SignalingLog.write` goes through it, so a
/// room name, display name, socket id, error message or HTTP header a client chose can never put
/// an escape sequence into the operator's terminal, forge a second log line, or reorder what is
/// shown with bidirectional controls: there is no call site that could forget it.
///
/// Escaped as `\u{XX}` (the hex code point): every scalar of general category Cc (C0 controls
/// including TAB, CR and LF, DEL, C1 controls such as U+009B CSI and U+0085 NEL), Cf (format
/// characters: the bidi embeddings, overrides and isolates U+202A–U+202E, U+2066–U+2069, the marks
/// U+200E/F and U+061C, zero-width characters, U+FEFF), Zl and Zp (U+2028, U+2029). A backslash
/// that already starts `\u{` is escaped too, so a client cannot type a look-alike escape.
/// Everything else (printable text in any script) is kept.
public enum LogEscaping {
    /// Lines longer than this (in UTF-8 bytes, after escaping) are cut: a client that sends a
    /// 1 MiB room name must not turn each of its joins into 1 MiB of log.
    public static let maxLineBytes = 4096

    public static func escape(_ text: String, maxBytes: Int = maxLineBytes) -> String {
        if text.utf8.count <= maxBytes && text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x5C }) { return text }
        var out = ""
        out.reserveCapacity(min(text.utf8.count, maxBytes) + 16)
        var bytes = 0
        let scalars = Array(text.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            let piece: String
            if needsEscape(scalar) {
                piece = "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else if scalar == "\\" && index + 2 < scalars.count && scalars[index + 1] == "u" && scalars[index + 2] == "{" {
                piece = "\\u{5C}"
            } else {
                piece = String(scalar)
            }
            let size = piece.utf8.count
            guard bytes + size <= maxBytes else {
                out += "…(cut)"
                return out
            }
            out += piece
            bytes += size
        }
        return out
    }

    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x20 || scalar.value == 0x7F { return true }
        if scalar.isASCII { return false }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }
}
