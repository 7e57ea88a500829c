import Testing
@testable import ConfTUI
import RoomModel

/// The chat input: grapheme clusters are single steps, and the visible part is measured in terminal columns.

private func typed(_ text: String) -> LineEditor {
    var e = LineEditor()
    // As curses delivers them: one scalar per key.
    for s in text.unicodeScalars { e.apply(.insert(Character(s))) }
    return e
}

@Test func combiningMarksAndZWJSequencesAreOneCharacter() {
    var e = typed("e\u{301}👩\u{200D}💻日")
    #expect(e.characters.count == 3)
    #expect(e.text == "e\u{301}👩\u{200D}💻日")
    e.apply(.backspace)
    e.apply(.backspace)
    #expect(e.text == "e\u{301}")
    e.apply(.left)
    e.apply(.delete)
    #expect(e.isEmpty)
}

@Test func cursorMovesAndInsertsInTheMiddle() {
    var e = typed("helo")
    e.apply(.left)
    e.apply(.insert("l"))
    #expect(e.text == "hello")
    e.apply(.home)
    e.apply(.insert(">"))
    e.apply(.end)
    e.apply(.insert("!"))
    #expect(e.text == ">hello!")
    e.apply(.right)
    #expect(e.cursor == 7)
}

@Test func ctrlUAndCtrlWDeleteBackwards() {
    var e = typed("one two  three")
    e.apply(.deleteWordBack)
    #expect(e.text == "one two  ")
    e.apply(.deleteWordBack)
    #expect(e.text == "one ")
    e.apply(.left)
    e.apply(.clearToStart)
    #expect(e.text == " ")
    #expect(e.cursor == 0)
}

@Test func controlCharactersAreNotText() {
    let e = typed("a\u{1b}b\u{07}\u{202e}c")
    #expect(e.text == "abc")
}

@Test func lengthIsBounded() {
    let e = typed(String(repeating: "x", count: LineEditor.maxCharacters + 50))
    #expect(e.characters.count == LineEditor.maxCharacters)
}

@Test func visibleScrollsToKeepTheCursorAndNeverSplitsWideCharacters() {
    var e = typed("日本語のテキスト")   // 8 characters, 16 columns
    let (text, column) = e.visible(columns: 7)
    #expect(DisplayWidth.of(text) <= 7)
    #expect(column <= 6)
    #expect(text.hasSuffix("ト"))
    #expect(column == DisplayWidth.of(text))
    e.apply(.home)
    let start = e.visible(columns: 7)
    #expect(start.text == "日本語")
    #expect(start.cursorColumn == 0)
    let accents = typed("e\u{301}e\u{301}e\u{301}")
    #expect(accents.visible(columns: 10).text == "e\u{301}e\u{301}e\u{301}")
    #expect(accents.visible(columns: 10).cursorColumn == 3)
    let emoji = typed("ab👩\u{200D}💻")
    // The ZWJ sequence counts as its parts (`DisplayWidth` takes the larger of what terminals draw).
    #expect(emoji.visible(columns: 10).cursorColumn == 2 + DisplayWidth.of("👩\u{200D}💻"))
}
