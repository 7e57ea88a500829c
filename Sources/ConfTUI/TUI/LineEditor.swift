import RoomModel

/// The chat's one-line input as a value: the text as grapheme clusters, so a letter with its combining accent or an
/// emoji ZWJ sequence is one step for the cursor, Backspace and Delete; what to draw is measured in terminal columns
/// (`DisplayWidth`). Pure: the screen turns keys into `Edit`s and draws `visible(columns:)`.
struct LineEditor: Equatable {
    static let maxCharacters = ChatLog.maxCharacters

    enum Edit: Equatable {
        case insert(Character)
        case backspace, delete, left, right, home, end
        /// Ctrl-U: everything before the cursor goes.
        case clearToStart
        /// Ctrl-W: the word before the cursor (and the spaces after it) goes.
        case deleteWordBack
    }

    private(set) var characters: [Character] = []
    /// 0...characters.count: the cursor sits before `characters[cursor]`.
    private(set) var cursor = 0

    var text: String { String(characters) }
    var isEmpty: Bool { characters.isEmpty }

    mutating func apply(_ edit: Edit) {
        switch edit {
        case .insert(let c): insert(c)
        case .backspace:
            if cursor > 0 { characters.remove(at: cursor - 1); cursor -= 1 }
        case .delete:
            if cursor < characters.count { characters.remove(at: cursor) }
        case .left: cursor = max(0, cursor - 1)
        case .right: cursor = min(characters.count, cursor + 1)
        case .home: cursor = 0
        case .end: cursor = characters.count
        case .clearToStart:
            characters.removeFirst(cursor)
            cursor = 0
        case .deleteWordBack:
            var start = cursor
            while start > 0 && characters[start - 1].isWhitespace { start -= 1 }
            while start > 0 && !characters[start - 1].isWhitespace { start -= 1 }
            characters.removeSubrange(start..<cursor)
            cursor = start
        }
    }

    /// Keys arrive one scalar at a time: a combining mark, a ZWJ and what follows it, a skin tone or the second half
    /// of a flag join the character before the cursor when Unicode says they form one cluster with it.
    private mutating func insert(_ c: Character) {
        guard SafeText.stripped(String(c)) == String(c) else { return }
        if cursor > 0 {
            let joined = String(characters[cursor - 1]) + String(c)
            if joined.count == 1 {
                characters[cursor - 1] = Character(joined)
                return
            }
        }
        guard characters.count < LineEditor.maxCharacters else { return }
        characters.insert(c, at: cursor)
        cursor += 1
    }

    /// The part of the text to draw in `columns` columns and the cursor's column in it: from the start when the cursor
    /// fits, else scrolled so the cursor sits at the right edge (its cell included). A wide character that would
    /// cross the edge is left out whole.
    func visible(columns: Int) -> (text: String, cursorColumn: Int) {
        guard columns > 0 else { return ("", 0) }
        var start = 0
        var beforeCursor = characters[0..<cursor].reduce(0) { $0 + DisplayWidth.of($1) }
        // One cell for the cursor itself after the text.
        while beforeCursor + 1 > columns && start < cursor {
            beforeCursor -= DisplayWidth.of(characters[start])
            start += 1
        }
        var shown = ""
        var used = 0
        for c in characters[start...] {
            let w = DisplayWidth.of(c)
            if used + w > columns { break }
            shown.append(c)
            used += w
        }
        return (shown, beforeCursor)
    }
}
