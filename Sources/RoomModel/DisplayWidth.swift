/// How many terminal columns text takes, like wcwidth(3)/wcswidth(3), and cutting text to a number of columns.
///
/// Labels are laid out in columns, not in scalars: a CJK ideograph or an emoji takes two columns, a combining accent
/// or a zero-width joiner none. Counting scalars would let "山田太郎" overflow its tile by four columns and would cut
/// "é" (e + U+0301) between its letter and its accent. Pure and table-based, for the ranges that matter:
/// East Asian Wide and Fullwidth (UAX #11), emoji presentation (UTS #51 Emoji_Presentation), and the zero-width
/// scalars (nonspacing and enclosing marks, format characters such as U+200D, Hangul medial and final jamo).
///
/// A grapheme cluster is as wide as the sum of its scalars, as curses (glibc's wcwidth) counts it when it places
/// text, but never narrower than 2 when it asks for emoji presentation (U+FE0F): terminals that draw "❤️" two
/// columns wide exist, and a label must not overflow on them. Where terminals differ (a ZWJ family drawn as one
/// emoji or three) the larger count is the one used, so a cut label may end a column or two early, never late.
public enum DisplayWidth {
    /// Columns of one scalar: 0, 1 or 2. Control characters count 0 (they are removed before display anyway).
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v < 0x20 || (v >= 0x7F && v < 0xA0) { return 0 }
        if v < 0x300 { return 1 }   // Latin-1 and Latin Extended: the common case, no table needed
        if isZeroWidth(scalar) { return 0 }
        if isWide(v) || scalar.properties.isEmojiPresentation { return 2 }
        return 1
    }

    /// Columns of one grapheme cluster (see the type comment).
    public static func of(_ character: Character) -> Int {
        var sum = 0
        var emojiPresentation = false
        for s in character.unicodeScalars {
            sum += of(s)
            if s.value == 0xFE0F { emojiPresentation = true }
        }
        return emojiPresentation ? max(sum, 2) : sum
    }

    /// Columns of a string.
    public static func of(_ text: String) -> Int { text.reduce(0) { $0 + of($1) } }

    /// `text` cut to at most `columns` columns, only between grapheme clusters; when something was cut, the last
    /// column holds `ellipsis` (which should be one column wide).
    public static func fit(_ text: String, columns: Int, ellipsis: Character = "…") -> String {
        guard columns > 0 else { return "" }
        if of(text) <= columns { return text }
        let budget = columns - of(ellipsis)
        guard budget >= 0 else { return "" }
        var kept = ""
        var used = 0
        for c in text {
            let w = of(c)
            if used + w > budget { break }
            kept.append(c)
            used += w
        }
        kept.append(ellipsis)
        return kept
    }

    /// `text` cut without an ellipsis (for clipping at a screen edge).
    public static func clip(_ text: String, columns: Int) -> String {
        guard columns > 0 else { return "" }
        var kept = ""
        var used = 0
        for c in text {
            let w = of(c)
            if used + w > columns { break }
            kept.append(c)
            used += w
        }
        return kept
    }

    /// `text` broken into rows of at most `columns` columns: after a space where there is one in the row, else between
    /// characters (a word longer than a row is split, a wide character never is). Always at least one row.
    public static func wrap(_ text: String, columns: Int) -> [String] {
        guard columns > 0 else { return [""] }
        var rows: [String] = []
        var row: [Character] = []
        var used = 0
        for c in text {
            let w = of(c)
            if used + w > columns && !row.isEmpty {
                // Break after the last space of the row, carrying the started word over, when the row has one.
                if c != " ", let space = row.lastIndex(of: " "), space > 0 {
                    let carried = Array(row[(space + 1)...])
                    rows.append(String(row[..<space]))
                    row = carried
                    used = carried.reduce(0) { $0 + of($1) }
                } else {
                    rows.append(String(row))
                    row = []
                    used = 0
                }
                if c == " " && row.isEmpty { continue }
            }
            row.append(c)
            used += w
        }
        rows.append(String(row))
        return rows
    }

    /// `text` followed by spaces up to `columns` columns (unchanged when already that wide).
    public static func pad(_ text: String, to columns: Int) -> String {
        let w = of(text)
        return w >= columns ? text : text + String(repeating: " ", count: columns - w)
    }

    private static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        // Hangul Jungseong and Jongseong: they join the preceding Choseong into one syllable cell.
        if (0x1160...0x11FF).contains(v) || (0xD7B0...0xD7FF).contains(v) { return true }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return true
        default: return v == 0x200B
        }
    }

    /// East Asian Wide (W) and Fullwidth (F) blocks, UAX #11; emoji are covered by Emoji_Presentation.
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F,     // Hangul Choseong
        0x2329...0x232A,     // angle brackets
        0x2E80...0x303E,     // CJK radicals, Kangxi, ideographic description, CJK symbols and punctuation
        0x3041...0x33FF,     // Hiragana, Katakana, Bopomofo, Hangul compatibility jamo, Kanbun, CJK compatibility
        0x3400...0x4DBF,     // CJK Extension A
        0x4E00...0x9FFF,     // CJK Unified Ideographs
        0xA000...0xA4CF,     // Yi
        0xA960...0xA97F,     // Hangul Jamo Extended-A
        0xAC00...0xD7A3,     // Hangul syllables
        0xF900...0xFAFF,     // CJK compatibility ideographs
        0xFE10...0xFE19,     // vertical forms
        0xFE30...0xFE6F,     // CJK compatibility forms, small form variants
        0xFF00...0xFF60,     // fullwidth forms
        0xFFE0...0xFFE6,     // fullwidth signs
        0x16FE0...0x16FE4,   // ideographic symbols
        0x17000...0x18CFF,   // Tangut, Khitan
        0x1B000...0x1B2FF,   // Kana supplement and extensions, Nushu
        0x1F200...0x1F2FF,   // enclosed ideographic supplement
        0x20000...0x2FFFD,   // CJK Extensions B-F, compatibility supplement
        0x30000...0x3FFFD,   // CJK Extension G and later
    ]

    private static func isWide(_ v: UInt32) -> Bool {
        guard v >= 0x1100 else { return false }
        var low = 0, high = wideRanges.count - 1
        while low <= high {
            let mid = (low + high) / 2
            if v < wideRanges[mid].lowerBound { high = mid - 1 } else if v > wideRanges[mid].upperBound { low = mid + 1 } else { return true }
        }
        return false
    }
}
