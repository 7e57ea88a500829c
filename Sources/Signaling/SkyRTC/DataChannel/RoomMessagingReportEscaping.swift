extension RoomMessaging {
    /// `text` for a report or a log line: control characters (C0, DEL, C1), line and paragraph separators and
    /// the bidirectional controls become `\u{1B}`-style escapes, so a peer's chat cannot move the cursor, clear
    /// the terminal or reorder what follows it; every other character, emoji sequences with their zero-width
    /// joiners and variation selectors included, is kept exactly. The screen cleans chat its own way (SafeText).
    public static func escapedForReport(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                out.append(scalar)
                continue
            }
            out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
        }
        return String(out)
    }

    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        default: break
        }
        switch scalar.value {
        // ALM, LRM/RLM, the embeddings and overrides (LRE...RLO), the isolates (LRI...PDI).
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
