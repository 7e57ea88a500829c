import Testing
@testable import RoomModel

/// Issue #12 item 6: what reaches the terminal is clean, and labels are laid out in columns.
@Suite struct DisplayWidthTests {
    @Test func widthsOfTheCasesThatMatter() {
        #expect(DisplayWidth.of("Ada") == 3)
        #expect(DisplayWidth.of("山田") == 4)                 // CJK ideographs: East Asian Wide
        #expect(DisplayWidth.of("한국") == 4)                 // Hangul syllables
        #expect(DisplayWidth.of("ｱＡ") == 1 + 2)              // halfwidth katakana 1, fullwidth Latin 2
        #expect(DisplayWidth.of("😀🎉") == 4)                 // Emoji_Presentation
        #expect(DisplayWidth.of("☺") == 1)                   // text-presentation symbol
        #expect(DisplayWidth.of("❤️") == 2)                   // U+2764 U+FE0F: asks for emoji presentation
        #expect(DisplayWidth.of("e\u{301}") == 1)            // combining acute: one column, one character
        #expect(DisplayWidth.of("\u{1100}\u{1161}") == 2)    // conjoining jamo: one syllable cell
        #expect(DisplayWidth.of("a\u{200D}b") == 2)          // ZWJ takes no column
        #expect(DisplayWidth.of("👩‍💻") >= 2)                // a ZWJ sequence: 2 or more, never less
    }

    @Test func cjkAndEmojiAreCutToTheColumnNeverBeyond() {
        for name in ["山田太郎さんと佐藤さん", "🎉🎉🎉🎉🎉🎉🎉🎉", "Zoë 😀 山田 ❤️ 한국어", "👩‍💻👩‍💻👩‍💻👩‍💻"] {
            for columns in 0...30 {
                let cut = DisplayWidth.fit(name, columns: columns)
                let width = DisplayWidth.of(cut)
                #expect(width <= columns, "\"\(cut)\" is \(width) columns in \(columns)")
                if DisplayWidth.of(name) <= columns {
                    #expect(cut == name)
                } else if columns > 0 {
                    #expect(cut.hasSuffix("…"))
                    // Only a two-column character that did not fit may leave one column unused (a ZWJ sequence,
                    // counted at its widest as four, up to three).
                    #expect(width >= columns - (name.unicodeScalars.contains("\u{200D}") ? 3 : 1), "\"\(cut)\" in \(columns)")
                    #expect(name.hasPrefix(String(cut.dropLast())), "cut between characters only")
                }
            }
        }
        #expect(DisplayWidth.fit("山田太郎", columns: 7) == "山田太…")
        #expect(DisplayWidth.fit("山田太郎", columns: 6) == "山田…")
        #expect(DisplayWidth.fit("🎉🎉🎉🎉", columns: 5) == "🎉🎉…")
    }

    @Test func combiningSequencesAreNeverSplit() {
        let name = String(repeating: "e\u{301}", count: 10) + "\u{1100}\u{1161}\u{11A8}"
        for columns in 1...14 {
            let cut = DisplayWidth.fit(name, columns: columns)
            #expect(DisplayWidth.of(cut) <= columns)
            // Every accent kept still follows its letter; the jamo syllable is kept whole or not at all.
            let scalars = Array(cut.unicodeScalars)
            for (i, s) in scalars.enumerated() where s == "\u{301}" { #expect(i > 0 && scalars[i - 1] == "e") }
            #expect(!cut.unicodeScalars.contains("\u{1100}") || cut.unicodeScalars.contains("\u{11A8}") || cut == name)
        }
        #expect(DisplayWidth.fit(name, columns: 5) == String(repeating: "e\u{301}", count: 4) + "…")
    }

    @Test func aHostileSocketIdShowsNoControlOrBidiCharacter() {
        let hostile = "\u{1B}[2J\u{1B}]0;pwned\u{7}\u{9B}31m\u{202E}\u{2066}ab\u{85}c\u{200F}\u{61C}d\u{2028}e\u{FEFF}\u{200B}f"
        var p = Participant(id: ParticipantID(hostile), isLocal: false, connection: .connected, joinIndex: 1)
        p.audioMuted = true
        let shown = [p.displayName, TileLabel.name(of: p), TileLabel.text(for: p, columns: 40), TileLabel.text(for: p, columns: 9)]
        for text in shown {
            for s in text.unicodeScalars {
                #expect(s.value >= 0x20 && !(0x7F...0x9F).contains(s.value), "control U+\(String(s.value, radix: 16)) in \(text.debugDescription)")
                #expect(s.properties.generalCategory != .format, "format U+\(String(s.value, radix: 16)) in \(text.debugDescription)")
                #expect(s.value != 0x2028 && s.value != 0x2029)
            }
        }
        #expect(p.displayName == "[2J]0;pw")   // what is left of it: printable, 8 characters
        // What the screen draws through curses (server errors, close reasons) loses the same characters, uncut.
        #expect(SafeText.stripped("server: \u{1B}[2Jbad\u{9B}1m \u{202E}room  ") == "server: [2Jbad1m room  ")
        #expect(SafeText.stripped("👩\u{200D}💻 山田") == "👩\u{200D}💻 山田")
        // An id with nothing printable still shows something.
        #expect(ParticipantID("\u{1B}\u{9B}\u{202E}").short == "peer")
        // Names keep the joiners emoji need.
        var room = Room(roomName: "r")
        room.apply(.peerJoined(ParticipantID("x")))
        room.apply(.nameChanged(ParticipantID("x"), "👩\u{200D}💻 Lin\u{202E}"))
        #expect(room.remotes[ParticipantID("x")]?.name == "👩\u{200D}💻 Lin")
    }

    @Test func tileLabelsFitTheirTilesExactly() {
        var p = Participant(id: ParticipantID("abc"), isLocal: false, connection: .connected, joinIndex: 1, name: "山田太郎 🎉 Ünïcödé")
        p.speaking = true
        let full = TileLabel.text(for: p, columns: 200)
        #expect(full == "◆ 山田太郎 🎉 Ünïcödé · connected")
        for columns in 0...40 {
            let label = TileLabel.text(for: p, columns: columns)
            #expect(DisplayWidth.of(label) <= columns, "\(label) overflows \(columns)")
            if columns > 0 && columns < DisplayWidth.of(full) { #expect(DisplayWidth.of(label) >= columns - 1) }
        }
    }
}
