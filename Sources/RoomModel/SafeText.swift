/// Text from other people's clients made safe for a terminal: names, and the socketId shown when there is none.
///
/// The same rule as the signaling server's for display names (`SkyRTCDisplayName`), applied again here because a
/// socketId is never cleaned by anyone and a server may be the original one, which cleans nothing:
/// 1. drop control characters: C0 (U+0000–U+001F), DEL and C1 (U+007F–U+009F), so no escape sequence survives
///    (`ESC [ 2 J` loses its ESC; a C1 CSI, U+009B, is gone entirely);
/// 2. drop format characters (Unicode category Cf: the bidirectional controls of UAX #9 §2 such as U+202E, which
///    would make the rest of a label read backwards, zero-width spaces, U+FEFF) except the zero-width (non-)joiners
///    U+200C/U+200D that emoji sequences and several scripts need, and the line and paragraph separators
///    U+2028/U+2029;
/// 3. trim spaces at both ends and keep at most `maxCharacters` grapheme clusters (never cutting inside one).
public enum SafeText {
    public static func clean(_ raw: String, maxCharacters: Int = 32) -> String {
        String(stripped(raw).trimmingSpaces.prefix(maxCharacters)).trimmingSpaces
    }

    /// Rules 1 and 2 only: every scalar that could steer a terminal removed, nothing trimmed or cut.
    public static func stripped(_ raw: String) -> String {
        guard raw.unicodeScalars.contains(where: isStripped) else { return raw }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: raw.unicodeScalars.lazy.filter { !isStripped($0) })
        return String(scalars)
    }

    static func isStripped(_ s: Unicode.Scalar) -> Bool {
        let v = s.value
        if v < 0x20 || (v >= 0x7F && v < 0xA0) { return true }
        if v == 0x200C || v == 0x200D { return false }
        switch s.properties.generalCategory {
        case .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[first...last])
    }
}
