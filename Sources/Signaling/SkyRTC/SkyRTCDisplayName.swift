/// The display-name extension's cleaning rule: what the server keeps of the `name` a client puts in
/// `__join` before it shows that name to anyone else (in `_peers.names` and `_new_peer.name`).
///
/// Names end up in other people's terminals and browser tiles, so nothing that can steer a display
/// survives: an escape sequence (`ESC [ 2 J` clears a terminal) loses its ESC, and a right-to-left
/// override (U+202E) that would make "Bob" render as "boB" followed by the rest of a label is
/// removed. The rule, in order:
/// 1. drop control characters: C0 (U+0000–U+001F), DEL (U+007F) and C1 (U+0080–U+009F);
/// 2. drop the bidirectional controls (Unicode UAX #9 §2: U+061C, U+200E, U+200F, U+202A–U+202E,
///    U+2066–U+2069), the line/paragraph separators U+2028/U+2029, and the invisible format
///    characters that only serve to hide or spoof text (U+200B, U+2060–U+2064, U+206A–U+206F,
///    U+FEFF, U+FFF9–U+FFFB). Zero-width (non-)joiners U+200C/U+200D stay: emoji sequences and
///    several scripts need them;
/// 3. trim white space at both ends;
/// 4. keep at most `maxBytes` bytes of UTF-8, cutting only between characters (grapheme clusters),
///    never inside one; trim trailing white space again;
/// 5. nothing left means no name (clients then show a short socketId).
public enum SkyRTCDisplayName {
    public static let maxBytes = 64

    public static func clean(_ raw: String) -> String? {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: raw.unicodeScalars.lazy.filter { !isStripped($0) })
        var kept = ""
        var bytes = 0
        for character in String(scalars).trimmingWhiteSpace {
            let size = character.utf8.count
            guard bytes + size <= maxBytes else { break }
            kept.append(character)
            bytes += size
        }
        let name = kept.trimmingWhiteSpace
        return name.isEmpty ? nil : name
    }

    static func isStripped(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true                      // C0, DEL, C1
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true  // bidi controls
        case 0x2028, 0x2029: return true                                // line/paragraph separators
        case 0x200B, 0x2060...0x2064, 0x206A...0x206F, 0xFEFF, 0xFFF9...0xFFFB: return true  // invisible format
        default: return false
        }
    }
}

extension String {
    /// Without leading and trailing white space (Unicode White_Space, via `Character.isWhitespace`).
    fileprivate var trimmingWhiteSpace: String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[first...last])
    }
}
